/**
 * The router's shards: one pooled client per shard of a cluster.json, and the ways the router
 * asks them: one shard (its failure to answer named), the first that answers (a replicated
 * read), every shard holding a collection (a scatter's parts), every shard at once, and a
 * write to every shard that is all or nothing. It knows nothing of SQL or of REST routes.
 */

import type { DocdbClient } from '../client/index.js';
import { dbError, isDbError, relayedError } from '../errors/index.js';
import { normalizeCollectionName } from '../util/index.js';
import { type ClusterConfig, type ClusterShard, shardMembers } from './config.js';
import { ShardMembers } from './shard-members.js';

/** Codes that mean a shard did not give a docdb answer, as opposed to refusing the request. */
export const SHARD_UNANSWERED_CODES: readonly string[] = [
  'ERR_CLIENT_UNREACHABLE',
  'ERR_CLIENT_TIMEOUT',
  'ERR_CLIENT_PROTOCOL',
];

/**
 * The document `ensureEverywhere` inserts and deletes again to create a collection on a
 * shard; the router's change feed hides both entries.
 */
export const PLACEHOLDER_DOCUMENT = Object.freeze({ _placeholder: 'docdb router' });

/** Options of a Router. */
/**
 * Connections the router keeps open to each shard. A router funnels every client onto few
 * shards and each connection carries one request at a time, so the client's default of 8
 * would cap the requests a shard sees at once below what its clients send the router.
 */
export const ROUTER_SHARD_CONNECTIONS = 64;

export interface RouterOptions {
  /** Each shard request's timeout (the client's default when absent). */
  timeoutMs?: number;
  /**
   * How long a call to a replica-set shard keeps looking for a leader (a failover or a
   * handover in progress) before it fails (default LEADER_WAIT_MS_DEFAULT).
   */
  leaderWaitMs?: number;
  /**
   * Reads (`Retry` 'read') may go to a replica set's follower whose data is at most this
   * old (shard-members.ts `freshFollower`); undefined: every read goes to the leader.
   */
  followerReadMaxLagMs?: number;
  /**
   * Default true: the router asks shards over the wire (src/wire/) where they speak it; false
   * sends everything over HTTP.
   */
  shardWire?: boolean;
}

/** How long a call waits for a replica set to have a leader again, by default. */
export const LEADER_WAIT_MS_DEFAULT = 15_000;

/**
 * The first pause between looks for a new leader; it doubles up to LEADER_PAUSE_MAX_MS, short
 * enough that a request waiting out an election is sent soon after it ends (the looks of a
 * shard's waiting requests are one: ShardMembers finds the leader once for all of them).
 */
const LEADER_PAUSE_MS = 50;
const LEADER_PAUSE_MAX_MS = 250;

/**
 * Failures that say the member may no longer lead although the write is not to be sent again
 * (it may be committed there): the next call looks for the leader anew.
 */
const MAY_NOT_LEAD_CODES: readonly string[] = [
  'ERR_REPLICATION_TIMEOUT',
  'ERR_REPLICATION_NO_LEASE',
  ...SHARD_UNANSWERED_CODES,
];

/**
 * Which failures of a call to a replica set's leader may be tried again on the leader found
 * next: `refused` only those that applied nothing (a follower's or a lapsed lease's refusal,
 * a refused connection); `any` every failure to answer too, for a call that cannot apply
 * twice (a read of tags, which are the leader's; a write under a router-assigned `_id`,
 * checked on the retry); `read` as `any`, for a read a fresh follower may answer when the
 * router allows it (followerReadMaxLagMs).
 */
export type Retry = 'refused' | 'any' | 'read';

export class ShardSet {
  private readonly members = new Map<string, ShardMembers>();
  private readonly leaderWaitMs: number;
  private readonly followerReadMaxLagMs: number | undefined;
  /** Collections known to exist on every shard (see ensureEverywhere). */
  private readonly present = new Set<string>();

  constructor(
    readonly config: ClusterConfig,
    options: RouterOptions = {},
  ) {
    this.leaderWaitMs = options.leaderWaitMs ?? LEADER_WAIT_MS_DEFAULT;
    this.followerReadMaxLagMs = options.followerReadMaxLagMs;
    for (const shard of config.shards) {
      this.members.set(
        shard.name,
        new ShardMembers(shard, {
          connections: ROUTER_SHARD_CONNECTIONS,
          wire: options.shardWire ?? true,
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        }),
      );
    }
  }

  /** The members of `shard` and which one leads. */
  membersOf(shard: ClusterShard): ShardMembers {
    return this.members.get(shard.name) as ShardMembers;
  }

  /**
   * Runs `fn` against one shard. A shard that does not answer becomes ERR_SHARD_UNAVAILABLE
   * naming it, and so does one that refuses the router's API key: the client's own key is
   * not at fault, so a 401 would mislead it. A shard's refusal of the request (a SQL error,
   * a 404, a 409) passes through as it is; a shard's own trouble (5xx: read-only, storage)
   * keeps its status and code, its message and `shard` naming the shard.
   */
  async ask<T>(
    shard: ClusterShard,
    fn: (client: DocdbClient, again: boolean) => Promise<T>,
    retry: Retry = 'refused',
  ): Promise<T> {
    const members = this.membersOf(shard);
    const deadline = performance.now() + this.leaderWaitMs;
    let again = false;
    for (let pause = LEADER_PAUSE_MS; ; pause = Math.min(pause * 2, LEADER_PAUSE_MAX_MS)) {
      let client: DocdbClient | undefined;
      try {
        client =
          retry === 'read'
            ? await members.reader(this.followerReadMaxLagMs)
            : await members.leader();
        return await fn(client, again);
      } catch (error) {
        const tryAgain =
          members.replicaSet &&
          (client === undefined || mayTryAgain(error, retry)) &&
          performance.now() + pause < deadline;
        if (!tryAgain) {
          if (client !== undefined && isDbError(error) && MAY_NOT_LEAD_CODES.includes(error.code)) {
            members.forget(client);
          }
          throw shardError(shard, client && members.urlOf(client), error);
        }
        if (client !== undefined) {
          members.forget(client);
          again = true;
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Runs `fn` on the first of `shards` that answers (a replicated read: tried again freely). */
  async askAny<T>(
    shards: readonly ClusterShard[],
    fn: (client: DocdbClient) => Promise<T>,
    retry: Retry = 'any',
  ): Promise<{ shard: ClusterShard; answer: T }> {
    let last: unknown;
    for (const shard of shards) {
      try {
        return { shard, answer: await this.ask(shard, fn, retry) };
      } catch (error) {
        if (!isDbError(error, 'ERR_SHARD_UNAVAILABLE')) throw error;
        last = error;
      }
    }
    throw last ?? dbError('ERR_SHARD_UNAVAILABLE', 'noShards');
  }

  /**
   * Runs `fn` on `shards` at once and keeps the answers of the shards that hold the
   * collection: a hash collection's documents may all live on other shards, and a shard that
   * never received one has no such collection (ERR_COLLECTION_NOT_FOUND), which for a scatter
   * means an empty part. When no shard has it, the first shard's refusal is the answer.
   */
  async parts<T>(
    fn: (client: DocdbClient) => Promise<T>,
    shards: readonly ClusterShard[] = this.config.shards,
    retry: Retry = 'refused',
  ): Promise<Array<{ shard: ClusterShard; answer: T }>> {
    let missing: unknown;
    const found = await Promise.all(
      shards.map(async (shard) => {
        try {
          return [{ shard, answer: await this.ask(shard, fn, retry) }];
        } catch (error) {
          if (!isDbError(error, 'ERR_COLLECTION_NOT_FOUND')) throw error;
          missing ??= error;
          return [];
        }
      }),
    );
    const parts = found.flat();
    if (parts.length === 0 && missing !== undefined) throw missing;
    return parts;
  }

  /** The answers of `parts`, without their shards. */
  async partAnswers<T>(
    fn: (client: DocdbClient) => Promise<T>,
    shards: readonly ClusterShard[] = this.config.shards,
    retry: Retry = 'refused',
  ): Promise<T[]> {
    return (await this.parts(fn, shards, retry)).map((p) => p.answer);
  }

  /** Runs `fn` on every shard at once; any shard's failure fails the whole call. */
  all<T>(fn: (client: DocdbClient) => Promise<T>, shards = this.config.shards): Promise<T[]> {
    return Promise.all(shards.map((s) => this.ask(s, fn)));
  }

  /**
   * A write to every shard of a replicated collection under one `_id`: a shard that did not
   * answer is tried once more; if it still fails (or a shard refused the write) the write is
   * undone (`undo`) on every shard that took it or may have (one that timed out may have
   * stored it), and the failure names the shard. All or nothing per request. A refusal is not
   * undone where it was refused: the `_id` there may be another document's.
   */
  async everywhere<T>(
    fn: (client: DocdbClient) => Promise<T>,
    undo: (client: DocdbClient) => Promise<unknown>,
  ): Promise<T[]> {
    const { shards } = this.config;
    const settled = await Promise.allSettled(shards.map((s) => this.ask(s, fn)));
    const answers: T[] = [];
    const maybeStored = new Set<ClusterShard>();
    let failure: unknown;
    for (const [k, outcome] of settled.entries()) {
      const shard = shards[k] as ClusterShard;
      if (outcome.status === 'fulfilled') {
        answers[k] = outcome.value;
        maybeStored.add(shard);
        continue;
      }
      if (!isDbError(outcome.reason, 'ERR_SHARD_UNAVAILABLE')) {
        failure ??= outcome.reason;
        continue;
      }
      maybeStored.add(shard);
      try {
        answers[k] = await this.ask(shard, fn);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure === undefined) return answers;
    await Promise.allSettled([...maybeStored].map((s) => this.ask(s, undo)));
    throw failure;
  }

  /**
   * Makes sure every shard has the collection before the router writes to it or indexes it,
   * so that reads on any shard and indexes on every shard see it: a shard without it gets a
   * placeholder document inserted and deleted again (a node creates a collection on its first
   * write and has no other way to). Remembered per router; cheap once done.
   */
  async ensureEverywhere(collection: string): Promise<void> {
    const name = normalizeCollectionName(collection);
    if (this.present.has(name)) return;
    await this.all(async (client) => {
      if ((await client.collections()).includes(name)) return;
      const { id } = await client.insert(name, { ...PLACEHOLDER_DOCUMENT });
      await client.delete(name, id);
    });
    this.present.add(name);
  }

  /** Forgets that a collection exists everywhere (it was dropped). */
  forget(collection: string): void {
    this.present.delete(normalizeCollectionName(collection));
  }

  /**
   * A client whose every call goes to `shard`'s leader of the moment through `ask` with
   * `retry` (a long job's view of a replica set: rebalance copies and deletes through it).
   * Only calls that answer one promise go through; a stream's later reads would not follow
   * the leader, so a stream method is refused when called.
   */
  leaderClient(shard: ClusterShard, retry: Retry = 'any'): DocdbClient {
    return new Proxy({} as DocdbClient, {
      get: (_, method: string) => {
        if (STREAM_METHODS.has(method)) {
          throw new Error(`${method} is a stream; it cannot follow a shard's leader`);
        }
        return (...args: unknown[]) =>
          this.ask(
            shard,
            (client) =>
              (client as unknown as Record<string, Callable>)[method]?.(
                ...args,
              ) as Promise<unknown>,
            retry,
          );
      },
    });
  }

  /** Closes every shard client. */
  async close(): Promise<void> {
    await Promise.all([...this.members.values()].map((m) => m.close()));
  }
}

type Callable = (...args: unknown[]) => Promise<unknown>;

/** The client's methods that answer a stream rather than one promise. */
const STREAM_METHODS = new Set(['queryStream', 'changes', 'changesWithHeartbeats']);

/** True when a failed call to a leader may be tried again on the next (see Retry). */
function mayTryAgain(error: unknown, retry: Retry): boolean {
  if (!isDbError(error)) return false;
  if (error.code === 'ERR_NODE_READ_ONLY') return true;
  if (error.code === 'ERR_CLIENT_UNREACHABLE' && error.details?.cause === 'ECONNREFUSED') {
    return true;
  }
  if (error.code === 'ERR_REPLICATION_NO_LEASE' && error.details?.committedLocally !== true) {
    return true;
  }
  return retry !== 'refused' && SHARD_UNANSWERED_CODES.includes(error.code);
}

/**
 * A shard's failure as the router's client meets it (see ShardSet.ask); `url` is the member
 * that failed, when one was asked.
 */
function shardError(shard: ClusterShard, url: string | undefined, error: unknown): unknown {
  if (!isDbError(error)) return error;
  if (error.code === 'ERR_SHARD_UNAVAILABLE') return error;
  const [name, urls] = [shard.name, url ?? shardMembers(shard).join(', ')];
  const details = { shard: shard.name };
  if (SHARD_UNANSWERED_CODES.includes(error.code)) {
    return dbError(
      'ERR_SHARD_UNAVAILABLE',
      'noAnswer',
      { name, urls, cause: error.message },
      details,
    );
  }
  if (error.code === 'ERR_UNAUTHORIZED') {
    return dbError('ERR_SHARD_UNAVAILABLE', 'keyRefused', { name, urls }, details);
  }
  // A refusal of the request (400, 404, 409…) is the cluster's answer, as a node would give
  // it; a shard's own trouble (read-only, storage, a bug) says which shard has it.
  if (error.status < 500 || error.details?.shard !== undefined) return error;
  const values = { name, urls, message: error.message };
  return relayedError(
    error.code,
    'fromShard',
    values,
    { ...error.details, ...details },
    error.status,
  );
}

/**
 * The router's change feed (ADR 0016): every shard's GET /changes merged as the entries
 * arrive, each line naming its shard and carrying the router cursor, `s1:12,s2:40`, the seq
 * each shard's feed has reached, which a consumer gives back as `since`. It holds at most
 * one entry per shard (backpressure reaches the shards through TCP) and never orders
 * entries across shards: no order exists between two shards' logs.
 */

import type { DocdbClient } from '../client/index.js';
import { type DbError, dbError, isDbError, relayedError } from '../errors/index.js';
import type { ChangeHeartbeat, FeedEntry } from '../types/index.js';
import { type ClusterConfig, type ClusterShard, describeShard } from './config.js';
import { requirePlacement } from './route-plan.js';
import { shardClient } from './shard-client.js';
import { PLACEHOLDER_DOCUMENT, SHARD_UNANSWERED_CODES } from './shard-set.js';

/** Options of `openRouterFeed`. */
export interface RouterFeedOptions {
  /** A router cursor, or `0` (every shard from its start); absent: every shard from now. */
  since?: string | undefined;
  /** Only this collection's entries; it must be placed in the cluster config. */
  collection?: string | undefined;
  /** Ends the feed and its shard feeds. */
  signal: AbortSignal;
}

/** An open router feed: its lines, and the cursor of the moment (for heartbeats). */
export interface RouterFeed {
  lines: AsyncGenerator<FeedEntry, void, undefined>;
  cursor(): string;
}

/** Seqs by shard name, in the config's shard order. */
type Positions = Map<string, number>;

const CURSOR_PART = /^([A-Za-z0-9._-]+):(0|[1-9][0-9]{0,14})$/;

function badCursor(since: string): DbError {
  return dbError(
    'ERR_BAD_ARGUMENT',
    'notRouterCursor',
    { since: since.slice(0, 80) },
    { parameter: 'since' },
  );
}

/**
 * Reads a router cursor: `name:seq` per shard, comma-separated. A shard of the config the
 * cursor does not name starts from 0 (a shard added since: its whole retained log); a name
 * the config no longer lists is ignored. `0` starts every shard from 0.
 */
export function decodeRouterCursor(since: string, shards: readonly ClusterShard[]): Positions {
  const given = new Map<string, number>();
  if (since !== '0') {
    for (const part of since.split(',')) {
      const match = CURSOR_PART.exec(part);
      if (!match) throw badCursor(since);
      given.set((match[1] as string).toLowerCase(), Number(match[2]));
    }
  }
  return new Map(shards.map((s) => [s.name, given.get(s.name.toLowerCase()) ?? 0]));
}

/** The cursor of `positions`: `name:seq` per shard in config order, comma-separated. */
export function encodeRouterCursor(positions: Positions): string {
  return [...positions].map(([name, seq]) => `${name}:${seq}`).join(',');
}

/** A shard's failure in the router's words: which shard, and what to do. */
function shardFailure(shard: ClusterShard, error: unknown): unknown {
  if (!isDbError(error)) return error;
  if (SHARD_UNANSWERED_CODES.includes(error.code)) {
    return dbError(
      'ERR_SHARD_UNAVAILABLE',
      'feedNoAnswer',
      { shard: describeShard(shard), cause: error.message },
      { shard: shard.name },
    );
  }
  // A shard's own refusal (410 trimmed, 400 a seq past its log) keeps its code and status,
  // with the shard named, so a consumer knows which part of its cursor is at fault.
  const values = { name: shard.name, message: error.message };
  const details = { ...error.details, shard: shard.name };
  return relayedError(error.code, 'fromShardFeed', values, details, error.status);
}

/**
 * True for the entries of the router's own placeholder (shard-set.ts): its insert, whose id
 * `seen` keeps, and the delete of that id. Ids are UUIDs, unique across shards.
 */
function isPlaceholder(entry: FeedEntry, seen: Set<string>): boolean {
  if (entry.op === 'delete') return seen.delete(entry.id);
  if (entry.op !== 'insert' || entry.documents.length !== 1) return false;
  const [only] = entry.documents;
  const doc = only?.doc as Record<string, unknown> | undefined;
  const keys = Object.keys(doc ?? {}).filter((k) => k !== '_id');
  if (keys.length !== 1 || doc?._placeholder !== PLACEHOLDER_DOCUMENT._placeholder) return false;
  seen.add(only?.id as string);
  return true;
}

/** One shard's feed as the merge holds it. */
interface ShardFeed {
  shard: ClusterShard;
  client: DocdbClient;
  values: AsyncGenerator<FeedEntry | ChangeHeartbeat, void, undefined>;
}

/**
 * Opens every shard's feed and answers once each has sent its first heartbeat, so that a
 * shard's 410 (ERR_CHANGES_TRIMMED, naming the shard and its floor), 400 or absence fails the
 * request before any line is sent. A replicated collection's entries come from the first
 * shard only: every shard holds the same writes.
 */
export async function openRouterFeed(
  config: ClusterConfig,
  options: RouterFeedOptions,
): Promise<RouterFeed> {
  const { collection } = options;
  if (collection !== undefined) requirePlacement(config, collection);
  const positions: Positions | undefined =
    options.since === undefined ? undefined : decodeRouterCursor(options.since, config.shards);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const feeds: ShardFeed[] = config.shards.map((shard) => {
    // Its own connection per feed: a long feed must not take one of the router's pooled ones.
    const client = shardClient(shard, { connections: 1 });
    const since = positions?.get(shard.name);
    const values = client.changesWithHeartbeats({
      ...(since !== undefined && { since }),
      ...(collection !== undefined && { collection }),
      signal: stop.signal,
    });
    return { shard, client, values };
  });
  const close = async () => {
    stop.abort();
    options.signal.removeEventListener('abort', onAbort);
    await Promise.allSettled(feeds.map((f) => f.client.close()));
  };
  const reached: Positions = new Map();
  const first = await Promise.allSettled(feeds.map((f) => f.values.next()));
  for (const [k, outcome] of first.entries()) {
    const feed = feeds[k] as ShardFeed;
    if (outcome.status === 'rejected') {
      await close();
      throw shardFailure(feed.shard, outcome.reason);
    }
    const heartbeat = outcome.value.value as ChangeHeartbeat | undefined;
    reached.set(feed.shard.name, heartbeat?.lastSeq ?? positions?.get(feed.shard.name) ?? 0);
  }
  const replicated = new Set(
    Object.entries(config.collections)
      .filter(([, placement]) => placement.strategy === 'replicated')
      .map(([name]) => name),
  );
  const firstShard = config.shards[0]?.name;
  const placeholders = new Set<string>();
  return {
    cursor: () => encodeRouterCursor(reached),
    lines: merge(feeds, reached, (entry, shard) => {
      if (isPlaceholder(entry, placeholders)) return false;
      return replicated.has(entry.collection) ? shard.name === firstShard : true;
    }),
  };

  async function* merge(
    shardFeeds: ShardFeed[],
    at: Positions,
    keep: (entry: FeedEntry, shard: ClusterShard) => boolean,
  ): AsyncGenerator<FeedEntry, void, undefined> {
    type Next = { feed: ShardFeed; result: IteratorResult<FeedEntry | ChangeHeartbeat> };
    const pull = (feed: ShardFeed): Promise<Next> =>
      feed.values.next().then(
        (result) => ({ feed, result }),
        (error: unknown) => Promise.reject(shardFailure(feed.shard, error)),
      );
    const pending = new Map(shardFeeds.map((f) => [f, pull(f)]));
    try {
      while (!stop.signal.aborted) {
        const { feed, result } = await Promise.race(pending.values());
        if (result.done) {
          if (stop.signal.aborted) return;
          throw dbError(
            'ERR_SHARD_UNAVAILABLE',
            'feedEnded',
            { shard: describeShard(feed.shard) },
            { shard: feed.shard.name },
          );
        }
        pending.set(feed, pull(feed));
        const value = result.value;
        if ('heartbeat' in value) {
          at.set(feed.shard.name, value.lastSeq ?? at.get(feed.shard.name) ?? 0);
          continue;
        }
        at.set(feed.shard.name, value.seq);
        if (!keep(value, feed.shard)) continue;
        yield { ...value, shard: feed.shard.name, cursor: encodeRouterCursor(at) };
      }
    } finally {
      for (const p of pending.values()) p.catch(() => {});
      await close();
    }
  }
}

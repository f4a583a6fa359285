/**
 * One shard's nodes as the router sees them: a client per member, and which member leads.
 * A one-endpoint shard is its own leader and is never asked. A replica set's leader is found
 * from its members' `GET /replication/status`: the member that says it leads, writable (not
 * read-only, not fenced), with the highest term when a stale leader still says so too. It is
 * found again when the leader stops answering or refuses a write as a follower, and the
 * router's call is tried again on the new leader when that cannot apply it twice (ShardSet).
 */

import type { ClientOptions, DocdbClient } from '../client/index.js';
import { DbError } from '../errors/index.js';
import type { ReplicationStatus } from '../types/index.js';
import { type ClusterShard, describeShard, shardMembers } from './config.js';
import { shardClient } from './shard-client.js';

/** What one member said when the router last looked for the leader. */
export interface MemberView {
  url: string;
  /** Its replication status, or null when it did not answer. */
  status: ReplicationStatus | null;
  /** Why it did not answer. */
  error: string | null;
}

/** How long discovery waits for each member's status. */
const STATUS_TIMEOUT_MS = 2_000;

export class ShardMembers {
  private readonly clients = new Map<string, DocdbClient>();
  private current: DocdbClient | undefined;
  private finding: Promise<DocdbClient> | undefined;
  /** What the members said the last time the leader was looked for. */
  lastSeen: MemberView[] = [];

  constructor(
    readonly shard: ClusterShard,
    options: ClientOptions = {},
  ) {
    const urls = shardMembers(shard);
    for (const url of urls) {
      this.clients.set(url, shardClient(shard, options, url));
    }
    if (urls.length === 1 && shard.members === undefined) {
      this.current = this.clients.get(urls[0] as string);
    }
  }

  /** True for a replica set, whose leader can change. */
  get replicaSet(): boolean {
    return this.shard.members !== undefined;
  }

  /** The leader's client: the one known, or found now. */
  leader(): Promise<DocdbClient> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    this.finding ??= this.find().finally(() => {
      this.finding = undefined;
    });
    return this.finding;
  }

  /** Forgets the leader `client` (it failed); the next call finds the leader again. */
  forget(client: DocdbClient): void {
    if (this.replicaSet && this.current === client) this.current = undefined;
  }

  /** The URL of a member's client, for messages. */
  urlOf(client: DocdbClient): string {
    for (const [url, c] of this.clients) if (c === client) return url;
    return describeShard(this.shard);
  }

  private async find(): Promise<DocdbClient> {
    this.lastSeen = await Promise.all(
      [...this.clients].map(async ([url, client]): Promise<MemberView> => {
        try {
          const status = await withTimeout(client.replicationStatus(), STATUS_TIMEOUT_MS);
          return { url, status, error: null };
        } catch (error) {
          return { url, status: null, error: (error as Error).message };
        }
      }),
    );
    const leading = this.lastSeen
      .filter((m) => m.status?.role === 'leader' && !m.status.readOnly && !m.status.fenced)
      .sort((a, b) => (b.status?.term ?? 0) - (a.status?.term ?? 0));
    const chosen = leading[0];
    if (chosen === undefined) throw this.noLeader();
    this.current = this.clients.get(chosen.url) as DocdbClient;
    return this.current;
  }

  /** ERR_SHARD_UNAVAILABLE naming the shard and what each member said. */
  noLeader(): DbError {
    const seen = this.lastSeen.map((m) =>
      m.status === null
        ? `${m.url} did not answer (${m.error})`
        : `${m.url} is ${m.status.role === 'none' ? 'not replicating' : m.status.role}${m.status.readOnly ? ' (read-only)' : ''}`,
    );
    return new DbError(
      'ERR_SHARD_UNAVAILABLE',
      `shard ${this.shard.name} has no leader now: ${seen.join('; ')}`,
      { shard: this.shard.name },
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

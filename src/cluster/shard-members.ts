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

/** How old the members' statuses may be when a read picks a follower by them. */
const STATUS_FRESH_MS = 250;

/**
 * True when `member`'s status says its data is at most `maxLagMs` behind its leader: it
 * streams from the leader, had applied everything the leader had at their last contact, and
 * that contact was at most `maxLagMs` ago (`seenAt` is when the status was read; the
 * follower's clock and the router's are taken to agree, as NTP keeps them).
 */
export function freshFollower(member: MemberView, maxLagMs: number, now = Date.now()): boolean {
  const link = member.status?.role === 'follower' ? member.status.leader : null;
  if (link?.state !== 'streaming' || link.lagEntries !== 0) return false;
  if (link.lastLeaderContactAt === null) return false;
  return now - Date.parse(link.lastLeaderContactAt) <= maxLagMs;
}

export class ShardMembers {
  private readonly clients = new Map<string, DocdbClient>();
  private current: DocdbClient | undefined;
  private finding: Promise<DocdbClient> | undefined;
  /** What the members said the last time the leader was looked for. */
  lastSeen: MemberView[] = [];
  private seenAt = Number.NEGATIVE_INFINITY;
  private looking: Promise<MemberView[]> | undefined;

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

  /**
   * A member to read from: a follower whose data is at most `maxLagMs` old (freshFollower),
   * chosen at random among such, else the leader. Undefined `maxLagMs`: the leader.
   */
  async reader(maxLagMs: number | undefined): Promise<DocdbClient> {
    if (maxLagMs === undefined || !this.replicaSet) return this.leader();
    if (performance.now() - this.seenAt > STATUS_FRESH_MS) {
      this.looking ??= this.look().finally(() => {
        this.looking = undefined;
      });
      await this.looking;
    }
    const fresh = this.lastSeen.filter((m) => freshFollower(m, maxLagMs));
    const chosen = fresh[Math.floor(Math.random() * fresh.length)];
    return chosen === undefined ? this.leader() : (this.clients.get(chosen.url) as DocdbClient);
  }

  /** Forgets the leader `client` (it failed); the next call finds the leader again. */
  forget(client: DocdbClient): void {
    if (!this.replicaSet) return;
    if (this.current === client) this.current = undefined;
    // A follower that failed a read is not picked again by statuses read before it failed.
    this.seenAt = Number.NEGATIVE_INFINITY;
  }

  /** The URL of a member's client, for messages. */
  urlOf(client: DocdbClient): string {
    for (const [url, c] of this.clients) if (c === client) return url;
    return describeShard(this.shard);
  }

  /** Asks every member for its replication status at once. */
  private async look(): Promise<MemberView[]> {
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
    this.seenAt = performance.now();
    return this.lastSeen;
  }

  private async find(): Promise<DocdbClient> {
    await this.look();
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

/**
 * One shard's nodes as the router sees them: a client per member, and which member leads.
 * A one-endpoint shard is its own leader and is never asked. A replica set's leader is found
 * from its members' `GET /replication/status`: the member that says it leads, writable (not
 * read-only, not fenced), with the highest term when a stale leader still says so too. It is
 * found again when the leader stops answering or refuses a write as a follower, and the
 * router's call is tried again on the new leader when that cannot apply it twice (ShardSet).
 */

import type { DocdbClient } from '../client/index.js';
import { type DbError, dbError } from '../errors/index.js';
import type { RouterShardStats } from '../types/index.js';
import { type ClusterShard, describeShard, shardMembers } from './config.js';
import { askMembers, leaderOf, type MemberView, memberHealth } from './member-status.js';
import { type ShardClientOptions, shardClient } from './shard-client.js';

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

/** A shard's nodes as a router's `GET /stats` shows them. */
export type ShardNodes = Pick<RouterShardStats, 'endpoint' | 'members' | 'leader'>;

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
    options: ShardClientOptions = {},
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

  /**
   * The shard's nodes now: a one-endpoint shard's endpoint (not asked), or each member of a
   * replica set asked at once within `timeoutMs` and which one leads. Leaves the leader the
   * router sends to, and the statuses reads choose by, as they are; never throws for a
   * member's failure.
   */
  async nodes(timeoutMs: number): Promise<ShardNodes> {
    if (!this.replicaSet) {
      const endpoint = shardMembers(this.shard)[0] ?? null;
      return { endpoint, members: null, leader: endpoint };
    }
    const seen = await askMembers([...this.clients], timeoutMs);
    const leader = leaderOf(seen);
    return { endpoint: null, members: memberHealth(seen, leader), leader: leader?.url ?? null };
  }

  /** Asks every member for its replication status at once. */
  private async look(): Promise<MemberView[]> {
    this.lastSeen = await askMembers([...this.clients], STATUS_TIMEOUT_MS);
    this.seenAt = performance.now();
    return this.lastSeen;
  }

  private async find(): Promise<DocdbClient> {
    await this.look();
    const chosen = leaderOf(this.lastSeen);
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
    return dbError(
      'ERR_SHARD_UNAVAILABLE',
      'noLeader',
      { name: this.shard.name, members: seen.join('; ') },
      { shard: this.shard.name },
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}

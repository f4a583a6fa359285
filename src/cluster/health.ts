/**
 * `docdb health`'s work: asks every shard of a cluster.json, all at once, for its health and
 * its collections' document counts through the typed client, timing each answer. Read-only:
 * it sends GET requests only. A shard that does not answer in time, refuses the key or is not
 * a docdb node is `down` with the reason; nothing here throws for one shard's failure. A
 * replica set's members are each asked for their replication status: the shard answers
 * through its leader, is `down` without one and `degraded` while a member is down.
 */

import type { MemberHealth } from '../types/index.js';
import { HEALTH_TIMEOUT_MS_DEFAULT } from '../util/index.js';
import { type CollectionCount, countCollections } from './collection-counts.js';
import { type ClusterConfig, type ClusterShard, shardMembers } from './config.js';
import { askMembers, leaderOf, memberHealth } from './member-status.js';
import { shardClient } from './shard-client.js';

export type { MemberHealth };

/** One shard's answer. */
export interface ShardHealth {
  shard: string;
  /** The node that answered for the shard: its endpoint, or its replica set's leader. */
  endpoint: string;
  /** `degraded`: a replica set whose leader answers while some member does not. */
  status: 'up' | 'degraded' | 'down';
  /** Milliseconds until `/health` answered (up), or until it failed (down). */
  responseMs: number;
  node: string | null;
  version: string | null;
  role: string | null;
  readOnly: boolean | null;
  /** Documents per collection on this shard, from `/stats` (every collection it holds). */
  documents: Record<string, number> | null;
  /** Why it is down, or which members are. */
  error: string | null;
  /** A replica set's members, in cluster.json's order; null for a one-endpoint shard. */
  members: MemberHealth[] | null;
}

/** The whole cluster's answer. */
export interface ClusterHealth {
  shards: ShardHealth[];
  /**
   * Documents per collection over the shards that answered: a hash collection's summed, a
   * replicated one's counted once (collection-counts.ts); `complete` is false while a shard
   * that may hold some of them is down.
   */
  collections: CollectionCount[];
  up: number;
  /** Replica sets with a leader and a member down (counted in `up` too). */
  degraded: number;
  down: number;
}

/** Each member's replication status, asked at once on clients of its own. */
async function askReplicaSet(shard: ClusterShard, timeoutMs: number) {
  const clients = shardMembers(shard).map(
    (url) => [url, shardClient(shard, { timeoutMs, retries: 0, connections: 1 }, url)] as const,
  );
  try {
    return await askMembers(clients, timeoutMs);
  } finally {
    await Promise.all(clients.map(([, client]) => client.close().catch(() => {})));
  }
}

/** A replica set: each member's replication status, then the shard's health from its leader. */
async function checkReplicaSet(shard: ClusterShard, timeoutMs: number): Promise<ShardHealth> {
  const seen = await askReplicaSet(shard, timeoutMs);
  const leader = leaderOf(seen);
  const members = memberHealth(seen, leader);
  const down = members.filter((m) => m.status === 'down');
  const membersDown = down.map((m) => `member ${m.endpoint} is down: ${m.error}`);
  if (leader === undefined) {
    return {
      ...downShard(shard.name, shardMembers(shard)[0] as string, 0),
      error: ['no member leads', ...membersDown].join('; '),
      members,
    };
  }
  const health = await checkShard(shard, timeoutMs, leader.url);
  if (health.status === 'down' || down.length === 0) return { ...health, members };
  return { ...health, status: 'degraded', error: membersDown.join('; '), members };
}

function downShard(shard: string, endpoint: string, responseMs: number) {
  return {
    shard,
    endpoint,
    status: 'down' as const,
    responseMs,
    node: null,
    version: null,
    role: null,
    readOnly: null,
    documents: null,
    members: null,
  };
}

async function checkShard(
  shard: ClusterShard,
  timeoutMs: number,
  endpoint = shardMembers(shard)[0] as string,
): Promise<ShardHealth> {
  const client = shardClient(shard, { timeoutMs, retries: 0, connections: 1 }, endpoint);
  const base = { shard: shard.name, endpoint, members: null };
  const started = performance.now();
  try {
    const health = await client.health();
    const responseMs = Math.round(performance.now() - started);
    // /health is public; /stats needs the key, so a wrong key shows here.
    const stats = await client.stats();
    const documents: Record<string, number> = {};
    for (const c of stats.collections) documents[c.name] = c.count;
    return {
      ...base,
      status: 'up',
      responseMs,
      node: health.node,
      version: health.version,
      role: health.role,
      readOnly: health.readOnly,
      documents,
      error: null,
    };
  } catch (error) {
    return {
      ...downShard(shard.name, endpoint, Math.round(performance.now() - started)),
      error: (error as Error).message,
    };
  } finally {
    await client.close().catch(() => {});
  }
}

/** Asks every shard at once; answers in the order of cluster.json. */
export async function checkClusterHealth(
  config: ClusterConfig,
  options: { timeoutMs?: number } = {},
): Promise<ClusterHealth> {
  const timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS_DEFAULT;
  const shards = await Promise.all(
    config.shards.map((s) =>
      s.members === undefined ? checkShard(s, timeoutMs) : checkReplicaSet(s, timeoutMs),
    ),
  );
  const up = shards.filter((s) => s.status !== 'down').length;
  const degraded = shards.filter((s) => s.status === 'degraded').length;
  const collections = countCollections(
    config,
    shards.map((s) =>
      s.documents === null
        ? null
        : Object.entries(s.documents).map(([name, count]) => ({ name, count })),
    ),
  );
  return { shards, collections, up, degraded, down: shards.length - up };
}

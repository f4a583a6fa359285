/**
 * `docdb health`'s work: asks every shard of a cluster.json, all at once, for its health and
 * its collections' document counts through the typed client, timing each answer. Read-only:
 * it sends GET requests only. A shard that does not answer in time, refuses the key or is not
 * a docdb node is `down` with the reason; nothing here throws for one shard's failure.
 */

import { HEALTH_TIMEOUT_MS_DEFAULT } from '../util/index.js';
import { type CollectionCount, countCollections } from './collection-counts.js';
import type { ClusterConfig, ClusterShard } from './config.js';
import { shardClient } from './shard-client.js';

/** One shard's answer. */
export interface ShardHealth {
  shard: string;
  endpoint: string;
  status: 'up' | 'down';
  /** Milliseconds until `/health` answered (up), or until it failed (down). */
  responseMs: number;
  node: string | null;
  version: string | null;
  role: string | null;
  readOnly: boolean | null;
  /** Documents per collection on this shard, from `/stats` (every collection it holds). */
  documents: Record<string, number> | null;
  /** Why it is down. */
  error: string | null;
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
  down: number;
}

async function checkShard(shard: ClusterShard, timeoutMs: number): Promise<ShardHealth> {
  const client = shardClient(shard, { timeoutMs, retries: 0, connections: 1 });
  const base = { shard: shard.name, endpoint: shard.endpoint };
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
      ...base,
      status: 'down',
      responseMs: Math.round(performance.now() - started),
      node: null,
      version: null,
      role: null,
      readOnly: null,
      documents: null,
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
  const shards = await Promise.all(config.shards.map((s) => checkShard(s, timeoutMs)));
  const up = shards.filter((s) => s.status === 'up').length;
  const collections = countCollections(
    config,
    shards.map((s) =>
      s.documents === null
        ? null
        : Object.entries(s.documents).map(([name, count]) => ({ name, count })),
    ),
  );
  return { shards, collections, up, down: shards.length - up };
}

/**
 * What a router's `GET /health` says of its shards: each is asked, at once and within a
 * short deadline, for its health and for one request that needs the API key, so a shard that
 * is down, silent or refuses the router's key shows, and so does one that refuses writes.
 * It never throws for a shard's failure; the router's own liveness is the caller's.
 */

import { type ClusterShard, describeShard } from './config.js';
import type { ShardSet } from './shard-set.js';

/** How long a router's `/health` waits for each shard before calling it down. */
export const ROUTER_HEALTH_TIMEOUT_MS = 2_000;

/** The shards' part of a router's `/health` body. */
export interface ShardsHealth {
  /**
   * `ok` when every shard answers, `degraded` when some do not (requests that need them
   * fail with 503 naming them), `down` when none does.
   */
  status: 'ok' | 'degraded' | 'down';
  /** True when some shard refuses writes (a follower, or read-only): those writes fail. */
  readOnly: boolean;
  /** The shards that did not answer, each with why. */
  shardsDown: Array<{ shard: string; error: string }>;
  /** The shards that answer but refuse writes. */
  shardsReadOnly: string[];
}

type Probe =
  | { shard: string; up: true; readOnly: boolean }
  | { shard: string; up: false; error: string };

function withDeadline<T>(work: Promise<T>, timeoutMs: number, shard: ClusterShard): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`shard ${describeShard(shard)} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function probe(shards: ShardSet, shard: ClusterShard, timeoutMs: number): Promise<Probe> {
  try {
    const health = await withDeadline(
      shards.ask(shard, async (client) => {
        const answer = await client.health();
        // /health is public; /collections needs the key, so a key the shard refuses shows.
        await client.collections();
        return answer;
      }),
      timeoutMs,
      shard,
    );
    return { shard: shard.name, up: true, readOnly: health.readOnly };
  } catch (error) {
    return { shard: shard.name, up: false, error: (error as Error).message };
  }
}

/** Asks every shard of `shards` at once; answers within about `timeoutMs`. */
export async function checkShards(
  shards: ShardSet,
  timeoutMs = ROUTER_HEALTH_TIMEOUT_MS,
): Promise<ShardsHealth> {
  const probes = await Promise.all(shards.config.shards.map((s) => probe(shards, s, timeoutMs)));
  const shardsDown = probes.flatMap((p) => (p.up ? [] : [{ shard: p.shard, error: p.error }]));
  const shardsReadOnly = probes.flatMap((p) => (p.up && p.readOnly ? [p.shard] : []));
  const up = probes.length - shardsDown.length;
  const status = up === 0 ? 'down' : shardsDown.length > 0 ? 'degraded' : 'ok';
  return { status, readOnly: shardsReadOnly.length > 0, shardsDown, shardsReadOnly };
}

/**
 * Documents per collection over a cluster's shards, the one rule the router's `/stats` and
 * `docdb health` both use: a hash collection's documents are spread, so its shards' counts
 * are summed; a replicated collection's are copies, so it counts once (as `COUNT(*)`
 * through the router does). Pure: it sees counts, never a shard.
 */

import { type ClusterConfig, placementOf } from './config.js';

/** One collection's documents across the cluster. */
export interface CollectionCount {
  name: string;
  count: number;
  /**
   * False when a shard that did not answer may hold documents the count lacks: a hash
   * collection's while any shard is down. A replicated collection's count is whole once one
   * copy was counted.
   */
  complete: boolean;
}

/**
 * Counts each collection of `perShard` (each shard's `{ name, count }` list, in the order of
 * `config.shards`; null for a shard that did not answer), sorted by name. A replicated
 * collection counts the first copy in that order, as a replicated read asks the first shard
 * that answers. A collection cluster.json does not declare is summed, as it may be spread.
 */
export function countCollections(
  config: ClusterConfig,
  perShard: ReadonlyArray<ReadonlyArray<{ name: string; count: number }> | null>,
): CollectionCount[] {
  const missing = perShard.some((counts) => counts === null);
  const totals = new Map<string, CollectionCount>();
  for (const counts of perShard) {
    for (const { name, count } of counts ?? []) {
      const replicated = placementOf(config, name)?.strategy === 'replicated';
      const seen = totals.get(name);
      if (seen === undefined) totals.set(name, { name, count, complete: replicated || !missing });
      else if (!replicated) seen.count += count;
    }
  }
  return [...totals.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

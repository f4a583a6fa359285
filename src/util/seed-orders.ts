/**
 * `seed` over any implementation of the REST surface (types/api.ts): the sample orders
 * (sample-orders.ts) stored in batches, then the indexes that show every plan kind. A node's
 * database and a router seed alike, so a demo gives the same data either way.
 */

import type { NodeApi, SeedResult } from '../types/index.js';
import {
  checkSeedCount,
  SEED_COUNT_DEFAULT,
  SEED_INDEXES,
  sampleOrderBatches,
} from './sample-orders.js';

/** The collection `seed` fills. */
const SEED_COLLECTION = 'orders';

/** Options of seedOrders. */
export interface SeedOptions {
  count?: number;
  /** PRNG seed (default 1): the same seed gives the same documents on an empty collection. */
  seed?: number;
  /** Called after each batch with the number of orders written so far. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Loads `count` sample orders into `orders` in batches and creates the sample indexes
 * (once; existing ones are kept). PNRs already in the collection are skipped, and the orders
 * already stored vary the seed, so a second run adds new ones.
 */
export async function seedOrders(api: NodeApi, options: SeedOptions = {}): Promise<SeedResult> {
  const count = options.count ?? SEED_COUNT_DEFAULT;
  checkSeedCount(count);
  const stats = await api.stats();
  const existing = stats.collections.find((c) => c.name === SEED_COLLECTION)?.count ?? 0;
  let inserted = 0;
  let skipped = 0;
  let done = 0;
  for (const batch of sampleOrderBatches(count, options.seed ?? 1, existing)) {
    const result = await api.bulk(SEED_COLLECTION, batch);
    inserted += result.ids.length;
    skipped += result.errors.length;
    done += batch.length;
    options.onProgress?.(done, count);
  }
  // Nothing stored and nothing there (`orders: 0` on a fresh file): no collection to index.
  if (existing + inserted === 0) {
    return { collection: SEED_COLLECTION, inserted, skipped, indexes: [] };
  }
  // Missing indexes are built once after the load, which is faster than upkeep per batch.
  const have = new Set((await api.indexes(SEED_COLLECTION)).map((i) => i.name.toLowerCase()));
  const created: string[] = [];
  for (const spec of SEED_INDEXES) {
    if (have.has(spec.name.toLowerCase())) continue;
    await api.createIndex({
      collection: SEED_COLLECTION,
      paths: [...spec.paths],
      name: spec.name,
      unique: 'unique' in spec,
    });
    created.push(spec.name);
  }
  return { collection: SEED_COLLECTION, inserted, skipped, indexes: created };
}

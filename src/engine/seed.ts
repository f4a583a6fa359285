/**
 * Loads the sample reservation data (util/sample-orders.ts) into a database: `orders` in
 * batches, then the indexes that show every plan kind. Deterministic for a given seed, so a
 * demo or a test can rely on the same data.
 */

import {
  checkSeedCount,
  SEED_COUNT_DEFAULT,
  SEED_INDEXES,
  sampleOrderBatches,
} from '../util/index.js';
import type { SeedResult } from '../types/index.js';
import type { Database } from './database.js';

export {
  SEED_COUNT_DEFAULT,
  SEED_COUNT_MAX,
  SEED_INDEXES,
  sampleOrder,
} from '../util/index.js';
export type { SeedResult } from '../types/index.js';

/** Options of seedOrders. */
export interface SeedOptions {
  count?: number;
  /** PRNG seed (default 1): the same seed gives the same documents on an empty file. */
  seed?: number;
  /** Called after each batch with the number of orders written so far. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Loads `count` sample orders into `orders` in batches and creates the sample indexes
 * (once; existing ones are kept). PNRs already in the collection are skipped.
 */
export async function seedOrders(db: Database, options: SeedOptions = {}): Promise<SeedResult> {
  const count = options.count ?? SEED_COUNT_DEFAULT;
  checkSeedCount(count);
  const orders = db.collection('orders');
  let inserted = 0;
  let skipped = 0;
  let done = 0;
  for (const batch of sampleOrderBatches(count, options.seed ?? 1, orders.count())) {
    const result = await orders.insertMany(batch);
    inserted += result.ids.length;
    skipped += result.errors.length;
    done += batch.length;
    options.onProgress?.(done, count);
  }
  // Missing indexes are built once after the load, which is faster than upkeep per batch.
  const have = new Set(
    orders.exists() ? orders.listIndexes().map((i) => i.name.toLowerCase()) : [],
  );
  const created: string[] = [];
  for (const spec of SEED_INDEXES) {
    if (have.has(spec.name.toLowerCase())) continue;
    await orders.createIndex({ name: spec.name, paths: [...spec.paths], unique: 'unique' in spec });
    created.push(spec.name);
  }
  return { collection: 'orders', inserted, skipped, indexes: created };
}

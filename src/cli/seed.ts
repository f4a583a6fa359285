/**
 * `docdb seed <file> [count]`: loads sample reservation orders (default 10000) with the
 * indexes that show every plan kind. A progress bar on a terminal; `--seed N` makes the data
 * reproducible; `--json` prints the result for scripts.
 */

import { seedOrders } from '../engine/index.js';
import { openForWriting, VIA_NODE } from './open-file.js';
import { printJson } from './output.js';
import { progressBar } from './progress.js';

/** Runs `docdb seed` (declared in commands.ts). */
export async function runSeed(
  file: string,
  count: number,
  options: { seed: number; json?: boolean },
): Promise<void> {
  // Seeding only writes: beside a running node it fails at once, pointing at POST /seed.
  const db = await openForWriting(file, VIA_NODE.seed(count));
  const bar = progressBar(
    'seeding [{bar}] {value}/{total} orders {eta_formatted} left',
    options.json,
  );
  const started = performance.now();
  try {
    bar.update(0, count);
    const result = await seedOrders(db, {
      count,
      seed: options.seed,
      onProgress: (done) => bar.update(done, count),
    });
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    if (options.json) {
      printJson({ ...result, file: db.file, seconds });
    } else {
      const skipped = result.skipped > 0 ? ` (${result.skipped} skipped: PNR already present)` : '';
      process.stdout.write(
        `seeded ${result.inserted} orders into ${db.file} in ${seconds.toFixed(2)} s${skipped}\n` +
          (result.indexes.length > 0 ? `created indexes: ${result.indexes.join(', ')}\n` : ''),
      );
    }
  } finally {
    bar.stop();
    await db.close();
  }
}

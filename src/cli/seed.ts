/**
 * `docdb seed <file> [count]`: loads sample reservation orders (default 10000) with the
 * indexes that show every plan kind. A progress bar on a terminal; `--seed N` makes the data
 * reproducible; `--json` prints the result for scripts.
 */

import { type Command, InvalidArgumentError } from 'commander';
import { SEED_COUNT_DEFAULT, SEED_COUNT_MAX, seedOrders } from '../engine/index.js';
import { openForWriting, VIA_NODE } from './open-file.js';
import { printJson } from './output.js';
import { progressBar } from './progress.js';

function integer(name: string, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value > max) {
      throw new InvalidArgumentError(`${name} must be an integer from 0 to ${max}`);
    }
    return value;
  };
}

export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description(
      `load sample reservation orders with nested passengers and flights (default ${SEED_COUNT_DEFAULT})`,
    )
    .argument('<file>', 'a data directory or its data.docdb file (created if missing)')
    .argument('[count]', 'how many orders', integer('count', SEED_COUNT_MAX), SEED_COUNT_DEFAULT)
    .option('--seed <n>', 'random seed, for reproducible data', integer('--seed', 2 ** 31), 1)
    .option('--json', 'print the result as JSON')
    .action(async (file: string, count: number, options: { seed: number; json?: boolean }) => {
      // Seeding only writes: beside a running node it fails at once, pointing at POST /seed.
      const db = await openForWriting(file, VIA_NODE.seed(count));
      const bar = progressBar(
        'seeding [{bar}] {value}/{total} orders {eta_formatted} left',
        options.json,
      );
      const started = performance.now();
      try {
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
          const skipped =
            result.skipped > 0 ? ` (${result.skipped} skipped: PNR already present)` : '';
          process.stdout.write(
            `seeded ${result.inserted} orders into ${db.file} in ${seconds.toFixed(2)} s${skipped}\n` +
              (result.indexes.length > 0 ? `created indexes: ${result.indexes.join(', ')}\n` : ''),
          );
        }
      } finally {
        bar.stop();
        await db.close();
      }
    });
}

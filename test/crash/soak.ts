/**
 * Soak runs of the crash test: `npm run test:crash -- --cycles 1000 [--seed S] [--dir D]`.
 * Prints one line per cycle and a summary; exits 1 on the first failure, keeping the data
 * directory for inspection. The same harness runs 20 cycles in `npm test`.
 */

import { parseArgs } from 'node:util';
import { CrashCheckError, runCrashCycles } from './crash-harness.js';

const CYCLES_DEFAULT = 200;

function parseOptions(): { cycles: number; seed: number; dir: string | undefined } {
  const { values } = parseArgs({
    options: {
      cycles: { type: 'string', default: String(CYCLES_DEFAULT) },
      seed: { type: 'string' },
      dir: { type: 'string' },
    },
    strict: true,
  });
  const cycles = Number(values.cycles);
  if (!Number.isInteger(cycles) || cycles < 1) {
    throw new Error(`--cycles takes a positive integer; got '${values.cycles}'`);
  }
  const seed =
    values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) {
    throw new Error(`--seed takes a non-negative integer; got '${values.seed}'`);
  }
  return { cycles, seed, dir: values.dir };
}

async function main(): Promise<number> {
  let options: ReturnType<typeof parseOptions>;
  try {
    options = parseOptions();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error('usage: npm run test:crash -- [--cycles N] [--seed S] [--dir DATA_DIR]');
    return 2;
  }
  console.log(`crash soak: ${options.cycles} cycles, seed ${options.seed}`);
  try {
    const summary = await runCrashCycles({ ...options, log: (line) => console.log(line) });
    console.log(
      `crash soak passed: ${summary.cycles} cycles, seed ${summary.seed}; ` +
        `${summary.ackedWrites} writes acknowledged (${summary.ackedChanges} document changes), ` +
        `all found; ${summary.inFlight} in flight at the kills, ${summary.inFlightLanded} of them landed; ` +
        `${summary.documentsVerified} document checks; ` +
        `${(summary.totalMs / 1000).toFixed(1)} s, ${Math.round(summary.msPerCycle)} ms per cycle`,
    );
    return 0;
  } catch (error) {
    if (error instanceof CrashCheckError) {
      console.error(error.message);
      console.error(`data directory kept: ${error.dir}`);
    } else {
      console.error(error);
    }
    return 1;
  }
}

process.exitCode = await main();

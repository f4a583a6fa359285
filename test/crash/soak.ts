/**
 * The crash suite's long runs, `npm run test:crash`: the kill -9 part (crash-harness.ts) and the
 * power-cut part (power-cut.ts), each printing one line per cycle and one summary line; exits 1
 * when either fails. The kill -9 part stops at its first failure; the power-cut part records
 * failures and goes on. A failed part keeps its directory. The power-cut part needs holdfs (FUSE
 * as root); without it the part is skipped with the reason, and `--require-fuse` (CI) makes that
 * a failure. The same kill -9 harness runs 20 cycles in `npm test`.
 */

import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CrashCheckError, runCrashCycles } from './crash-harness.js';
import { probeHoldFs } from './holdfs.js';
import { runPowerCutCycles, summaryLine } from './power-cut.js';

const PARTS = ['kill', 'power', 'all'] as const;
type Part = (typeof PARTS)[number];

const CYCLES_DEFAULT = 200;
/**
 * Cycles of each part in `--quick` (CI), about 40 s in all on a 2-core machine: twenty power
 * cuts take every moment four times, twice torn, and cut two new directories at their first
 * sync and two at a later one.
 */
const QUICK_CYCLES = { kill: 10, power: 20 };
const USAGE =
  'usage: npm run test:crash -- [--part kill|power|all] [--cycles N] [--quick] [--seed S] [--dir D] [--require-fuse]';

interface Options {
  part: Part;
  cycles: { kill: number; power: number };
  seed: number;
  /** Working root: the kill -9 part's data directory is D/kill, the power-cut part's D/power. */
  dir: string | undefined;
  requireFuse: boolean;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      part: { type: 'string', default: 'all' },
      cycles: { type: 'string' },
      quick: { type: 'boolean', default: false },
      seed: { type: 'string' },
      dir: { type: 'string' },
      'require-fuse': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const part = values.part as Part;
  if (!PARTS.includes(part)) throw new Error(`--part takes kill, power or all; got '${part}'`);
  let cycles = values.quick ? { ...QUICK_CYCLES } : { kill: CYCLES_DEFAULT, power: CYCLES_DEFAULT };
  if (values.cycles !== undefined) {
    const count = Number(values.cycles);
    if (!Number.isInteger(count) || count < 1) {
      throw new Error(`--cycles takes a positive integer; got '${values.cycles}'`);
    }
    cycles = { kill: count, power: count };
  }
  const seed =
    values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0) {
    throw new Error(`--seed takes a non-negative integer; got '${values.seed}'`);
  }
  return { part, cycles, seed, dir: values.dir, requireFuse: values['require-fuse'] };
}

/** The kill -9 part; true when it passed. */
async function killPart(options: Options): Promise<boolean> {
  const cycles = options.cycles.kill;
  console.log(`kill -9 part: ${cycles} cycles, seed ${options.seed}`);
  try {
    const summary = await runCrashCycles({
      cycles,
      seed: options.seed,
      dir: options.dir && path.join(options.dir, 'kill'),
      log: (line) => console.log(line),
    });
    console.log(
      `kill -9 part passed: ${summary.cycles} cycles, seed ${summary.seed}; ` +
        `${summary.ackedWrites} writes acknowledged (${summary.ackedChanges} document changes), ` +
        `all found; ${summary.inFlight} in flight at the kills, ${summary.inFlightLanded} of them landed; ` +
        `${summary.documentsVerified} document checks; ` +
        `${(summary.totalMs / 1000).toFixed(1)} s, ${Math.round(summary.msPerCycle)} ms per cycle`,
    );
    return true;
  } catch (error) {
    if (error instanceof CrashCheckError) {
      console.error(error.message);
      console.error(`data directory kept: ${error.dir}`);
      console.log(`kill -9 part FAILED at cycle ${error.cycle}, seed ${options.seed}`);
    } else {
      console.error(error);
      console.log(`kill -9 part FAILED: ${error instanceof Error ? error.message : error}`);
    }
    return false;
  }
}

/** The power-cut part; true when it passed (or was skipped without --require-fuse). */
async function powerPart(options: Options): Promise<boolean> {
  const probe = await probeHoldFs();
  if (!probe.available) {
    const verdict = options.requireFuse ? 'FAILED (--require-fuse)' : 'SKIPPED';
    console.log(`power-cut part ${verdict}: holdfs cannot run here: ${probe.reason}`);
    return !options.requireFuse;
  }
  const cycles = options.cycles.power;
  console.log(`power-cut part: ${cycles} cycles and the self-test, seed ${options.seed}`);
  try {
    const summary = await runPowerCutCycles({
      cycles,
      seed: options.seed,
      python: probe.python,
      dir: options.dir && path.join(options.dir, 'power'),
      log: (line) => console.log(line),
    });
    for (const failure of summary.failures) console.error(failure);
    const passed = summary.failedCycles === 0 && summary.selfTest.caught;
    if (!passed) console.error(`power-cut directories kept under ${summary.dir}`);
    console.log(summaryLine(summary));
    return passed;
  } catch (error) {
    console.error(error);
    console.log(`power-cut part FAILED: ${error instanceof Error ? error.message : error}`);
    return false;
  }
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(USAGE);
    return 2;
  }
  let passed = true;
  if (options.part !== 'power') passed = (await killPart(options)) && passed;
  if (options.part !== 'kill') passed = (await powerPart(options)) && passed;
  return passed ? 0 : 1;
}

process.exitCode = await main();

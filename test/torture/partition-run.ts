/**
 * `npm run test:partition`: the long mode of the torture suite's partition part (issue 21),
 * `--cycles N` per sync setting (default 50) through every mode combination, printing a line
 * per cycle, one row per mode, a summary line per sync setting, and a last line `N passed, M
 * failed` counting cycles. Exits 1 when any cycle failed. Not part of `npm test`.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import {
  LONG_CYCLES_DEFAULT,
  longPlan,
  QUICK_PLAN,
  runPartition,
  summaryLine,
} from './partition.js';

/** More cycles than this per sync setting is a typo, not a run. */
const CYCLES_MAX = 10_000;

const USAGE = `usage: npm run test:partition -- [--cycles N] [--quick] [--seed N] [--json] [--keep]

Cuts a leader and its follower apart through proxies (reset, blackhole, freeze), heals and
rejoins them under clients (issue 21), N cycles per sync setting (0 and 1), going through
every mode combination; prints a line per cycle and a summary line per sync setting, and a
last line "N passed, M failed" (cycles); exits 1 when any cycle failed.

  --cycles N   cycles per sync setting (default ${LONG_CYCLES_DEFAULT})
  --quick      the quick plan of the torture suite instead (${QUICK_PLAN.length} cycles)
  --seed N     seed of the order of the combinations (default 1)
  --json       print the checks and summaries as JSON on stdout (the log goes to stderr)
  --keep       keep the working directory even when the run passes
  --help       this text`;

interface Options {
  cycles: number;
  quick: boolean;
  seed: number;
  json: boolean;
  keep: boolean;
}

function parseOptions(): Options | string | undefined {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse().values;
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help) return undefined;
  const cycles = Number(values.cycles ?? LONG_CYCLES_DEFAULT);
  if (!Number.isSafeInteger(cycles) || cycles < 1 || cycles > CYCLES_MAX) {
    return `--cycles takes an integer from 1 to ${CYCLES_MAX}; got '${values.cycles}'`;
  }
  const seed = Number(values.seed ?? 1);
  if (!Number.isSafeInteger(seed) || seed < 0) {
    return `--seed takes an integer; got '${values.seed}'`;
  }
  return {
    cycles,
    quick: values.quick === true,
    seed,
    json: values.json === true,
    keep: values.keep === true,
  };
}

function parse() {
  return parseArgs({
    options: {
      cycles: { type: 'string' },
      quick: { type: 'boolean' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      keep: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
}

async function main(): Promise<number> {
  const options = parseOptions();
  if (options === undefined) {
    console.log(USAGE);
    return 0;
  }
  if (typeof options === 'string') {
    console.error(options);
    console.error(USAGE);
    return 2;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-partition-'));
  const log = (line: string) => console.error(line);
  const plan = options.quick ? QUICK_PLAN : longPlan(options.cycles, options.seed);
  const started = Date.now();
  log(
    `partition run: ${plan.length} cycles${options.quick ? ' (quick)' : `, seed ${options.seed}`}, working in ${dir}`,
  );
  const run = await runPartition({ dir, plan, quick: options.quick, log });
  const passed = run.checks.reduce((n, c) => n + c.passed, 0);
  const failed = run.checks.reduce((n, c) => n + c.failed, 0);
  const ms = Date.now() - started;
  if (options.json) {
    console.log(JSON.stringify({ passed, failed, seed: options.seed, ms, ...run }, null, 2));
  } else {
    for (const check of run.checks) {
      const outcomes = Object.entries(check.outcomes)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ');
      console.log(`${check.name}: ${check.passed} passed, ${check.failed} failed; ${outcomes}`);
    }
    for (const summary of run.summaries) console.log(summaryLine(summary));
  }
  for (const check of run.checks) {
    for (const failure of check.failures) log(`FAILED partition / ${check.name}: ${failure}`);
  }
  if (failed === 0 && !options.keep) fs.rmSync(dir, { recursive: true, force: true });
  else log(`working directory kept: ${dir}`);
  log(`partition run took ${(ms / 1000).toFixed(1)} s (${plan.length} cycles)`);
  (options.json ? log : console.log)(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();

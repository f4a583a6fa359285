/**
 * `npm run test:set`: the long mode of the torture suite's set part (issue 24), `--cycles N`
 * per mode (default 100), printing a line per cycle, a summary line per mode and a last line
 * `N passed, M failed` counting cycles and kills. Exits 1 when any failed. Not part of
 * `npm test`.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { SET_MODES } from './set-cluster.js';
import { runSet, summaryLine } from './set.js';

const CYCLES_DEFAULT = 100;
/** More cycles than this per mode is a typo, not a run. */
const CYCLES_MAX = 10_000;
const MODE_NAMES = SET_MODES.map((m) => m.name);

const USAGE = `usage: npm run test:set -- [--cycles N] [--mode MODE] [--json] [--keep]

Jepsen's set workload through a docdb router into 2 shards × 3 members (issue 24): each cycle
kills one shard's leader, partitions the other's, slows both leaders' links and restarts the
router, then reads everything back. Prints a line per cycle, a summary line per mode and a
last line "N passed, M failed"; exits 1 when any cycle failed or writes resumed late.

  --cycles N   cycles per mode (default ${CYCLES_DEFAULT})
  --mode MODE  one of ${MODE_NAMES.join(', ')} (default: all; etcd is skipped, saying so, on a
               build without --coordinator)
  --json       print the checks and summaries as JSON on stdout (the log goes to stderr)
  --keep       keep the working directory even when the run passes
  --help       this text`;

function options(): { cycles: number; mode?: string; json: boolean; keep: boolean } | string {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      options: {
        cycles: { type: 'string' },
        mode: { type: 'string' },
        json: { type: 'boolean' },
        keep: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help) return USAGE;
  const cycles = Number(values.cycles ?? CYCLES_DEFAULT);
  if (!Number.isSafeInteger(cycles) || cycles < 1 || cycles > CYCLES_MAX) {
    return `--cycles takes an integer from 1 to ${CYCLES_MAX}; got '${values.cycles}'`;
  }
  const mode = values.mode as string | undefined;
  if (mode !== undefined && !MODE_NAMES.includes(mode as (typeof MODE_NAMES)[number])) {
    return `--mode takes one of ${MODE_NAMES.join(', ')}; got '${mode}'`;
  }
  return { cycles, ...(mode && { mode }), json: values.json === true, keep: values.keep === true };
}

async function main(): Promise<number> {
  const chosen = options();
  if (typeof chosen === 'string') {
    const help = chosen === USAGE;
    (help ? console.log : console.error)(chosen);
    if (!help) console.error(USAGE);
    return help ? 0 : 2;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-set-'));
  const log = (line: string) => console.error(line);
  const modes = SET_MODES.filter((m) => chosen.mode === undefined || m.name === chosen.mode);
  const started = Date.now();
  log(
    `set run: ${chosen.cycles} cycles per mode (${modes.map((m) => m.name).join(', ')}), working in ${dir}`,
  );
  const run = await runSet({ dir, modes, cycles: chosen.cycles, log });
  const passed = run.checks.reduce((n, c) => n + c.passed, 0);
  const failed = run.checks.reduce((n, c) => n + c.failed, 0);
  const ms = Date.now() - started;
  if (chosen.json) console.log(JSON.stringify({ passed, failed, ms, ...run }, null, 2));
  else for (const summary of run.summaries) console.log(summaryLine(summary));
  for (const check of run.checks) {
    const skipped = Object.keys(check.outcomes).find((o) => o.startsWith('skipped'));
    if (skipped) log(`${check.name}: ${skipped}`);
    for (const failure of check.failures) log(`FAILED ${check.name}: ${failure}`);
  }
  if (failed === 0 && !chosen.keep) fs.rmSync(dir, { recursive: true, force: true });
  else log(`working directory kept: ${dir}`);
  log(`set run took ${(ms / 1000).toFixed(1)} s`);
  (chosen.json ? log : console.log)(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();

/**
 * `npm run test:torture`: runs the parts of the torture suite (registry.ts) and prints one
 * summary table, the first failures of each check, and a last line `N passed, M failed`
 * counting attempts. Exits 1 when any attempt failed. Long by default; `--quick` is the
 * short run `.ci/run` makes. Not part of `npm test`.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { CheckResult } from './part.js';
import { PARTS } from './registry.js';

const USAGE = `usage: npm run test:torture -- [--quick] [--json] [--only PART] [--seed N] [--keep]

Runs every part of the torture suite (${PARTS.map((p) => p.name).join(', ')}):
${PARTS.map((p) => `  ${p.name}: ${p.description}`).join('\n')}
Prints one table and a last line "N passed, M failed" (attempts); exits 1 when any failed.

  --quick      a short run of every part (CI)
  --json       print the summary as JSON on stdout (the table goes to stderr)
  --only PART  run one part
  --seed N     seed of every random choice (default 1), to repeat a run
  --keep       keep the working directory even when the run passes
  --help       this text`;

interface Options {
  quick: boolean;
  json: boolean;
  only: string | undefined;
  seed: number;
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
  const seed = Number(values.seed ?? 1);
  if (!Number.isSafeInteger(seed) || seed < 0)
    return `--seed takes an integer; got '${values.seed}'`;
  if (values.only !== undefined && !PARTS.some((p) => p.name === values.only)) {
    return `--only takes one of ${PARTS.map((p) => p.name).join(', ')}; got '${values.only}'`;
  }
  return {
    quick: values.quick === true,
    json: values.json === true,
    only: values.only,
    seed,
    keep: values.keep === true,
  };
}

function parse() {
  return parseArgs({
    options: {
      quick: { type: 'boolean' },
      json: { type: 'boolean' },
      only: { type: 'string' },
      seed: { type: 'string' },
      keep: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
}

interface PartSummary {
  part: string;
  checks: CheckResult[];
  /** Set when the part itself could not run (its setup failed). */
  error?: string;
}

function table(parts: PartSummary[]): string {
  const rows = [['part', 'check', 'attempts', 'passed', 'failed', 'seconds', 'outcomes']];
  for (const { part, checks, error } of parts) {
    if (error) rows.push([part, `did not run: ${error}`, '-', '-', '1', '-', '']);
    for (const c of checks) {
      const outcomes = Object.entries(c.outcomes)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ');
      rows.push([
        part,
        c.name,
        String(c.passed + c.failed),
        String(c.passed),
        String(c.failed),
        (c.ms / 1000).toFixed(1),
        outcomes,
      ]);
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
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
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-torture-'));
  const log = (line: string) => console.error(line);
  const started = Date.now();
  log(`torture run${options.quick ? ' (quick)' : ''}, seed ${options.seed}, working in ${root}`);
  const summaries: PartSummary[] = [];
  for (const part of PARTS) {
    if (options.only !== undefined && part.name !== options.only) continue;
    const dir = path.join(root, part.name);
    fs.mkdirSync(dir, { recursive: true });
    try {
      const checks = await part.run({ dir, quick: options.quick, seed: options.seed, log });
      summaries.push({ part: part.name, checks });
    } catch (error) {
      summaries.push({ part: part.name, checks: [], error: (error as Error).message });
    }
  }
  const passed = summaries.flatMap((s) => s.checks).reduce((n, c) => n + c.passed, 0);
  const failed =
    summaries.flatMap((s) => s.checks).reduce((n, c) => n + c.failed, 0) +
    summaries.filter((s) => s.error).length;
  const text = table(summaries);
  if (options.json) {
    console.log(
      JSON.stringify(
        { passed, failed, seed: options.seed, ms: Date.now() - started, parts: summaries },
        null,
        2,
      ),
    );
    log(text);
  } else {
    console.log(text);
  }
  for (const { part, checks } of summaries) {
    for (const check of checks) {
      for (const failure of check.failures) log(`FAILED ${part} / ${check.name}: ${failure}`);
    }
  }
  if (failed === 0 && !options.keep) fs.rmSync(root, { recursive: true, force: true });
  else log(`working directory kept: ${root}`);
  log(`torture run took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The last line, on stdout unless stdout is the JSON.
  (options.json ? log : console.log)(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();

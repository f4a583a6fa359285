/**
 * `npm run test:failover`: planned handovers and auto-failovers of real `docdb serve`
 * processes under a steady write load, counting acknowledged writes lost. Runs N handover
 * cycles, then N auto-failover cycles with syncFollowers 0 and N with syncFollowers 1;
 * prints one summary line per part (or the summary as JSON) and exits 1 when a handover or
 * a failover with syncFollowers 1 lost a write, or any check failed. Losses with
 * syncFollowers 0 are reported and allowed. Not part of `npm test`; `.ci/run` runs --quick.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { stopAll } from '../e2e/support.js';
import { type FailoverSummary, runAutoFailover } from './auto-failover.js';
import { FailoverCheckError, killAllNow, saveAllLogs } from './cluster.js';
import { type HandoverSummary, runHandover } from './handover.js';

const CYCLES_DEFAULT = 20;
const QUICK_CYCLES = 2;
/** Concurrent clients of the write load. */
const CLIENTS = 4;
/** Acknowledged writes each cycle waits for before it switches (a quick run waits for fewer). */
const WRITES_PER_CYCLE = 400;
const QUICK_WRITES_PER_CYCLE = 100;
/** The whole run's bound: a run that takes longer is stopped and fails. */
const RUN_TIMEOUT_MS_PER_CYCLE = 60_000;
const RUN_TIMEOUT_MS_BASE = 120_000;

const USAGE = `usage: npm run test:failover -- [--cycles N] [--quick] [--json] [--keep]

Starts real docdb serve nodes on 127.0.0.1 (free ports, temp data dirs) under a write load of
${CLIENTS} clients and runs:
  N planned handovers (read-only, wait for the follower, promote, the old leader follows),
  N auto-failovers (kill -9 the leader, the follower promotes itself, the old leader rejoins
    and rolls back) with syncFollowers 0, then N with syncFollowers 1.
Prints one line per part; exits 1 when a handover or a failover with syncFollowers 1 lost an
acknowledged write or a check failed (losses with syncFollowers 0 are reported, allowed).

  --cycles N   cycles of each part (default ${CYCLES_DEFAULT})
  --quick      ${QUICK_CYCLES} cycles of each part and fewer writes per cycle (CI)
  --json       print the summary as JSON on stdout (the lines go to stderr)
  --keep       keep the data directories even when the run passes
  --help       this text`;

interface Options {
  cycles: number;
  writesPerCycle: number;
  json: boolean;
  keep: boolean;
}

/** Answers the options, or a usage error's message (undefined for --help). */
function parseOptions(): Options | string | undefined {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse().values;
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help) return undefined;
  if (values.quick && values.cycles !== undefined) return '--quick and --cycles do not combine';
  const cycles = values.quick ? QUICK_CYCLES : Number(values.cycles ?? CYCLES_DEFAULT);
  if (!Number.isInteger(cycles) || cycles < 1) {
    return `--cycles takes a positive integer; got '${values.cycles}'`;
  }
  return {
    cycles,
    writesPerCycle: values.quick ? QUICK_WRITES_PER_CYCLE : WRITES_PER_CYCLE,
    json: values.json === true,
    keep: values.keep === true,
  };
}

function parse() {
  return parseArgs({
    options: {
      cycles: { type: 'string' },
      quick: { type: 'boolean' },
      json: { type: 'boolean' },
      keep: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
}

interface Summary {
  passed: boolean;
  failures: string[];
  handover: HandoverSummary;
  failover: FailoverSummary[];
  ms: number;
}

function handoverLine(h: HandoverSummary): string {
  return `handover cycles ${h.cycles}, acknowledged ${h.acknowledged}, lost ${h.lost}`;
}

function failoverLine(f: FailoverSummary): string {
  return (
    `failover sync=${f.syncFollowers} cycles ${f.cycles}, acknowledged ${f.acknowledged}, lost ${f.lost}, ` +
    `lag before kill: max ${Math.max(0, ...f.lagBeforeKill)} entries`
  );
}

function detailLine(f: FailoverSummary): string {
  return (
    `failover sync=${f.syncFollowers}: promoted in ${Math.min(...f.promoteMs)}-${Math.max(...f.promoteMs)} ms after the kill; ` +
    `lag before kill ${f.lagBeforeKill.join(',')}; rolled back ${f.rolledBackEntries} entries in ${f.rollbackFiles} files; ` +
    `${f.refused} writes refused and ${f.failedConnections} cut, retried; ${(f.ms / 1000).toFixed(1)} s`
  );
}

async function run(options: Options, root: string, log: (line: string) => void) {
  const started = Date.now();
  const common = {
    root,
    cycles: options.cycles,
    clients: CLIENTS,
    writesPerCycle: options.writesPerCycle,
    log,
  };
  const handover = await runHandover(common);
  log(
    `handover: ${handover.viaStartFollower} via start-follower, ${handover.viaRestart} via restart; slowest switch ${handover.switchMsMax} ms; ` +
      `${handover.refused} writes refused and ${handover.failedConnections} cut, retried; ${(handover.ms / 1000).toFixed(1)} s`,
  );
  const failover: FailoverSummary[] = [];
  for (const syncFollowers of [0, 1] as const) {
    const part = await runAutoFailover({ ...common, syncFollowers });
    log(detailLine(part));
    failover.push(part);
  }
  const failures: string[] = [];
  if (handover.lost > 0) failures.push(`handover lost ${handover.lost} acknowledged writes`);
  for (const part of failover) {
    if (part.syncFollowers === 1 && part.lost > 0) {
      failures.push(`failover with syncFollowers 1 lost ${part.lost} acknowledged writes`);
    }
  }
  const summary: Summary = {
    passed: failures.length === 0,
    failures,
    handover,
    failover,
    ms: Date.now() - started,
  };
  return summary;
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
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-failover-'));
  const log = (line: string) => console.error(line);
  log(`failover run: ${options.cycles} cycles of each part, ${CLIENTS} clients, data in ${root}`);
  // However the run ends, no node outlives it.
  process.once('exit', killAllNow);
  const interrupted = new Promise<number>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log(`${signal}: stopping every node; data kept in ${root}`);
      resolve(130);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  const timeoutMs = RUN_TIMEOUT_MS_BASE + options.cycles * 3 * RUN_TIMEOUT_MS_PER_CYCLE;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      log(`the run did not finish within ${timeoutMs / 1000} s; stopping; data kept in ${root}`);
      resolve(1);
    }, timeoutMs);
  });
  const finished = run(options, root, log).then(
    (summary) => {
      if (options.json) {
        console.log(JSON.stringify(summary, null, 2));
        log(handoverLine(summary.handover));
        for (const part of summary.failover) log(failoverLine(part));
      } else {
        console.log(handoverLine(summary.handover));
        for (const part of summary.failover) console.log(failoverLine(part));
      }
      for (const failure of summary.failures) log(`FAILED: ${failure}`);
      log(
        `failover run ${summary.passed ? 'passed' : 'FAILED'} in ${(summary.ms / 1000).toFixed(1)} s`,
      );
      return summary.passed ? 0 : 1;
    },
    (error: unknown) => {
      log(
        error instanceof FailoverCheckError
          ? `FAILED: ${error.message}`
          : `FAILED: ${(error as Error).stack ?? String(error)}`,
      );
      return 1;
    },
  );
  const code = await Promise.race([finished, interrupted, timedOut]);
  clearTimeout(timer);
  if (code !== 0) saveAllLogs();
  await stopAll();
  if (code === 0 && !options.keep) fs.rmSync(root, { recursive: true, force: true });
  else if (code !== 130) log(`data and node logs kept in ${root}`);
  return code;
}

process.exit(await main());

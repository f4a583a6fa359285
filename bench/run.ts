/**
 * `npm run bench`: docdb against real peers on this machine in one run (issues 5 and 13).
 * The embedded phase (docdb's API, SQLite, NeDB) runs first; the served phase reopens docdb's
 * loaded file as a REST node and sets it against PostgreSQL and the HTTP ceiling; the writers
 * phase sets 8 concurrent durable writers against SQLite's and PostgreSQL's; the cluster
 * phase measures the replicated write path and the router path against a single node. A full
 * run writes bench/results/latest.json and rewrites docs/benchmarks.md from it; a quick or
 * partial run writes bench/results/quick.json only; scale mode (docdb alone) writes scale.json.
 */

import * as os from 'node:os';
import * as path from 'node:path';
import { writeBenchmarksDoc } from './docs.js';
import { loadDocdbOnly, type Measurement, runEmbedded } from './embedded/phase.js';
import { DIRS, describeMachine } from './machine.js';
import { type Phase, parseOptions } from './options.js';
import { runCluster } from './cluster/phase.js';
import { cleanupAll, installCleanupHandlers } from './proc.js';
import { buildReport, printReport, QUIET_LOAD_MAX, writeJson } from './report.js';
import { runScale } from './scale.js';
import { runServed } from './served/phase.js';
import { runWriters } from './writers/phase.js';

const RESULTS_DIR = path.join(DIRS.bench, 'results');

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  installCleanupHandlers();
  const started = performance.now();
  const loadAverageAtStart = os.loadavg();
  if ((loadAverageAtStart[0] ?? 0) > QUIET_LOAD_MAX) {
    console.warn(
      `warning: the machine is busy (load average ${loadAverageAtStart[0]?.toFixed(2)}, above ${QUIET_LOAD_MAX}): this run's figures are not to be quoted; repeat it on a quiet machine.`,
    );
  }
  if (options.scale) {
    const scale = await runScale(options);
    writeJson(path.join(RESULTS_DIR, 'scale.json'), scale);
    writeBenchmarksDoc(RESULTS_DIR);
    console.log(`\nwrote bench/results/scale.json and docs/benchmarks.md`);
    return;
  }
  const runs = (phase: Phase) => options.only === undefined || options.only === phase;
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  let postgresSkipped: string | undefined;
  let postgresVersion: string | undefined;
  if (runs('embedded') || runs('served')) {
    const embedded = runs('embedded') ? await runEmbedded(options) : await loadDocdbOnly(options);
    measurements.push(...embedded.measurements);
    if (runs('served')) {
      const served = await runServed(options, embedded.docdbDir, embedded.liveDocs);
      measurements.push(...served.measurements);
      notes.push(...served.notes);
      postgresSkipped = served.postgresSkipped;
      postgresVersion = served.postgresVersion;
    }
  }
  if (runs('writers')) {
    const writers = await runWriters(options);
    measurements.push(...writers.measurements);
    notes.push(...writers.notes);
    postgresSkipped ??= writers.postgresSkipped;
    postgresVersion ??= writers.postgresVersion;
  }
  if (runs('cluster')) {
    const cluster = await runCluster(options);
    measurements.push(...cluster.measurements);
    notes.push(...cluster.notes);
  }
  const report = buildReport({
    machine: describeMachine(postgresVersion ? { postgresql: postgresVersion } : {}),
    mode: options.quick ? 'quick' : 'full',
    docs: options.docs,
    rounds: options.rounds,
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
    measurements,
    notes,
    loadAverageAtStart,
    ...(postgresSkipped !== undefined && { postgresSkipped }),
  });
  printReport(report);
  if (options.quick || options.only !== undefined) {
    writeJson(path.join(RESULTS_DIR, 'quick.json'), report);
    console.log(
      '\nwrote bench/results/quick.json (a quick or partial run leaves latest.json and docs/benchmarks.md as they are)',
    );
  } else {
    writeJson(path.join(RESULTS_DIR, 'latest.json'), report);
    writeBenchmarksDoc(RESULTS_DIR);
    console.log('\nwrote bench/results/latest.json and docs/benchmarks.md');
  }
  console.log(`run took ${report.durationSeconds} s`);
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  })
  .finally(cleanupAll);

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
import { readJson, writeBenchmarksDoc } from './docs.js';
import { loadDocdbOnly, type Measurement, runEmbedded } from './embedded/phase.js';
import { cpuModel, DIRS, describeMachine } from './machine.js';
import { type Phase, parseOptions } from './options.js';
import { type Probe, type ProbedMachine, runProbe, slowerMachineNote } from './probe.js';
import { runCluster } from './cluster/phase.js';
import { cleanupAll, installCleanupHandlers } from './proc.js';
import { buildReport, printReport, QUIET_LOAD_MAX, writeJson } from './report.js';
import { runScale } from './scale.js';
import { runServed } from './served/phase.js';
import { wrkMissingNote, wrkVersion } from './served/wrk.js';
import { runWriters } from './writers/phase.js';

const RESULTS_DIR = path.join(DIRS.bench, 'results');

/** How often the wait for a quiet machine looks at the load average. */
const QUIET_POLL_MS = 5000;

/**
 * Waits up to `seconds` for the 1-minute load average to fall to QUIET_LOAD_MAX, saying so
 * every half minute; answers the load average the run begins at (quiet or not).
 */
async function waitForQuiet(seconds: number): Promise<number[]> {
  let load = os.loadavg();
  const busy = () => (load[0] ?? 0) > QUIET_LOAD_MAX;
  if (!busy() || seconds === 0) return load;
  const deadline = performance.now() + seconds * 1000;
  let said = Number.NEGATIVE_INFINITY;
  while (busy() && performance.now() < deadline) {
    if (performance.now() - said >= 30_000) {
      console.log(
        `waiting for a quiet machine: load average ${(load[0] ?? 0).toFixed(2)}, above ${QUIET_LOAD_MAX} (at most ${seconds} s; --quiet-wait 0 begins at once)`,
      );
      said = performance.now();
    }
    await new Promise((resolve) => setTimeout(resolve, QUIET_POLL_MS));
    load = os.loadavg();
  }
  return load;
}

/**
 * Times the machine itself (bench/probe.ts) and compares it with the recorded run this one
 * would replace (`recorded`, in bench/results), warning when the machine is slower.
 */
function probeMachine(recorded: string | undefined): { probe: Probe; slower?: string } {
  console.log('timing the machine itself (bench/probe.ts) …');
  const probe = runProbe();
  const before = recorded
    ? readJson<{ date: string; machine: ProbedMachine }>(path.join(RESULTS_DIR, recorded))
    : undefined;
  const slower = slowerMachineNote({ cpu: cpuModel(), probe }, before);
  if (slower) console.warn(`warning: ${slower}`);
  return slower ? { probe, slower } : { probe };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  installCleanupHandlers();
  const loadAverageAtStart = await waitForQuiet(options.quietWaitSeconds);
  const started = performance.now();
  if ((loadAverageAtStart[0] ?? 0) > QUIET_LOAD_MAX) {
    console.warn(
      `warning: the machine is busy (load average ${loadAverageAtStart[0]?.toFixed(2)}, above ${QUIET_LOAD_MAX}): this run's figures are not to be quoted; repeat it on a quiet machine.`,
    );
  }
  const partial = options.quick || options.only !== undefined;
  const probe = probeMachine(options.scale ? 'scale.json' : partial ? undefined : 'latest.json');
  if (options.scale) {
    const scale = await runScale(options);
    scale.machine.probe = probe.probe;
    writeJson(path.join(RESULTS_DIR, 'scale.json'), scale);
    writeBenchmarksDoc(RESULTS_DIR);
    console.log(`\nwrote bench/results/scale.json and docs/benchmarks.md`);
    return;
  }
  const runs = (phase: Phase) => options.only === undefined || options.only === phase;
  const measurements: Measurement[] = [];
  const notes: string[] = probe.slower ? [probe.slower] : [];
  if ((runs('served') || runs('cluster')) && wrkVersion() === undefined) {
    const note = wrkMissingNote(os.cpus().length);
    console.warn(`warning: ${note}`);
    notes.push(note);
  }
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
    machine: describeMachine(postgresVersion ? { postgresql: postgresVersion } : {}, probe.probe),
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
  if (partial) {
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

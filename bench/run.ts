/**
 * `npm run bench`: docdb against real peers on this machine in one run (issue 5). The
 * embedded phase (docdb's API, SQLite, NeDB) runs first; the served phase reopens docdb's
 * loaded file as a REST node and sets it against PostgreSQL and the HTTP ceiling. A full run
 * writes bench/results/latest.json and rewrites docs/benchmarks.md from it; a quick run
 * writes bench/results/quick.json only; scale mode (docdb alone) writes scale.json.
 */

import * as os from 'node:os';
import * as path from 'node:path';
import { writeBenchmarksDoc } from './docs.js';
import { loadDocdbOnly, runEmbedded } from './embedded/phase.js';
import { DIRS, describeMachine } from './machine.js';
import { parseOptions } from './options.js';
import { cleanupAll, installCleanupHandlers } from './proc.js';
import { buildReport, printReport, writeJson } from './report.js';
import { runScale } from './scale.js';
import { runServed } from './served/phase.js';

const RESULTS_DIR = path.join(DIRS.bench, 'results');

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  installCleanupHandlers();
  const started = performance.now();
  const loadAverageAtStart = os.loadavg();
  if (options.scale) {
    const scale = await runScale(options);
    writeJson(path.join(RESULTS_DIR, 'scale.json'), scale);
    writeBenchmarksDoc(RESULTS_DIR);
    console.log(`\nwrote bench/results/scale.json and docs/benchmarks.md`);
    return;
  }
  const embedded =
    options.only === 'served' ? await loadDocdbOnly(options) : await runEmbedded(options);
  const measurements = [...embedded.measurements];
  const notes: string[] = [];
  let postgresSkipped: string | undefined;
  let postgresVersion: string | undefined;
  if (options.only !== 'embedded') {
    const served = await runServed(options, embedded.docdbDir, embedded.liveDocs);
    measurements.push(...served.measurements);
    notes.push(...served.notes);
    postgresSkipped = served.postgresSkipped;
    postgresVersion = served.postgresVersion;
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

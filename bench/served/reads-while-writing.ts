/**
 * Reads while writing (issue 22): the served GET by `_id` row's reads (32 connections, random
 * ids of the same documents) on the served docdb node, once with nothing else running and
 * once while 8 durable writers (the served writers' inserts and UPDATEs, each connection
 * waiting for its answer before its next) run against the same node. The row is the ratio of
 * the two p99s. It runs the loads; it does not start or stop the node.
 */

import type { Sample } from '../measure.js';
import type { Options } from '../options.js';
import { insertBase, WRITERS } from '../writers/plan.js';
import type { WorkloadId } from '../workloads.js';
import { exactSampleOf, failedRequests, load, sampleOf, startLoad } from './load.js';
import type { LoadOutcome, LoadSpec } from './load-worker.js';

const WORKLOAD: WorkloadId = 'rest-get-by-id-while-writing';
/** The pseudo-system of the row: the same node and the same reads, no writers running. */
export const NO_WRITERS = 'no-writers';
/**
 * The longest the writers of one measurement may run. They are stopped as soon as the reads
 * end; this bounds them should the harness never get that far.
 */
const WRITERS_BOUND_SECONDS = 120;
/** The line a load worker prints at its first answer: the writers are under way. */
const ANSWERING = '"answering":true';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A failed request would leave its latency out of the p99 and flatter it: the run stops. */
function requireNoFailures(what: string, outcome: LoadOutcome): void {
  if (failedRequests(outcome) > 0) {
    throw new Error(
      `${WORKLOAD}, ${what}: ${failedRequests(outcome)} of ${outcome.requests} requests failed`,
    );
  }
}

/**
 * The reads of `reads` while the 8 writers of `writes` run: the reads begin once a write has
 * been answered and the writers are stopped once the reads end, so every read has them beside
 * it. Answers both loads' outcomes.
 */
async function readBesideWriters(
  reads: LoadSpec,
  writes: LoadSpec,
): Promise<{ read: LoadOutcome; written: LoadOutcome }> {
  const writers = startLoad(writes);
  let read: LoadOutcome;
  try {
    await writers.printed(ANSWERING);
    read = await load(reads);
  } finally {
    writers.finish();
  }
  return { read, written: await writers.result };
}

/**
 * Runs the row on the node at `url` (documents [0, liveDocs) present): a warm-up pair, then per
 * round the reads alone and the reads beside the writers, with the same ids in both.
 * Its writes grow docdb's collection only, so the served phase runs it after its other rows.
 */
export async function runReadsWhileWriting(
  options: Options,
  url: string,
  liveDocs: number,
  record: (workload: WorkloadId, system: string, round: number, sample: Sample) => void,
): Promise<string[]> {
  log(`${WORKLOAD}: warm-up and rounds`);
  const writeRates: number[] = [];
  for (let round = -1; round < options.rounds; round++) {
    const reads: LoadSpec = {
      url,
      kind: 'get',
      connections: options.pointConnections,
      durationSeconds: round < 0 ? options.servedWarmupSeconds : options.servedSeconds,
      keyBound: liveDocs,
      seed: 700 + round,
      timeoutSeconds: 30,
    };
    const writes: LoadSpec = {
      url,
      kind: 'write',
      connections: WRITERS,
      durationSeconds: WRITERS_BOUND_SECONDS,
      keyBound: liveDocs,
      seed: 800 + round,
      // New documents far above the ones the bulk row inserted, never the same twice.
      insertStart: insertBase(options.docs, round + 2),
      timeoutSeconds: 30,
    };
    const alone = await load(reads);
    requireNoFailures(`reads alone, round ${round + 1}`, alone);
    const { read, written } = await readBesideWriters(reads, writes);
    requireNoFailures(`reads beside the writers, round ${round + 1}`, read);
    requireNoFailures(`the writers, round ${round + 1}`, written);
    const writesPerSec = sampleOf(written, 1).opsPerSec;
    log(
      `${WORKLOAD} round ${round + 1}: p99 ${alone.p99MsExact.toFixed(2)} ms alone, ${read.p99MsExact.toFixed(2)} ms beside ${Math.round(writesPerSec)} writes/s`,
    );
    if (round < 0) continue;
    record(WORKLOAD, NO_WRITERS, round, exactSampleOf(alone));
    record(WORKLOAD, 'docdb', round, exactSampleOf(read));
    writeRates.push(writesPerSec);
  }
  const rates = writeRates.map((r) => Math.round(r).toLocaleString('en-US')).join(', ');
  return [
    `${WORKLOAD}: the ${WRITERS} writers made ${rates} writes/s in the rounds (over their whole run, which begins before the reads and ends up to a second after them).`,
  ];
}

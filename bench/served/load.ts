/**
 * The harness's side of the load worker: starts a load in its own process and turns its
 * summary into a sample. It never sends a request itself, so no load shares the harness's
 * event loop.
 */

import type { Sample } from '../measure.js';
import { type JsonChild, startJsonChild } from '../proc.js';
import type { LoadOutcome, LoadSpec } from './load-worker.js';

/** Starts one load in a load-worker process, for a caller that runs loads side by side. */
export function startLoad(spec: LoadSpec): JsonChild<LoadOutcome> {
  return startJsonChild<LoadOutcome>('./served/load-worker.ts', [JSON.stringify(spec)]);
}

/** One load (wrk's or autocannon's, load-worker.ts chooses) in the load-worker process. */
export function load(spec: LoadSpec): Promise<LoadOutcome> {
  return startLoad(spec).result;
}

/** The requests of a run that failed: errors, timeouts and answers other than 2xx. */
export function failedRequests(outcome: LoadOutcome): number {
  return outcome.errors + outcome.timeouts + outcome.non2xx;
}

/** The sample of one load, counting `unitsPerRequest` units per request. */
export function sampleOf(outcome: LoadOutcome, unitsPerRequest: number): Sample {
  return {
    opsPerSec: ((outcome.requests * unitsPerRequest) / outcome.elapsedMs) * 1000,
    p50Ms: outcome.p50Ms,
    p99Ms: outcome.p99Ms,
    ops: outcome.requests,
  };
}

/**
 * The sample of a latency row: requests per second, with the exact p50 and p99 of its
 * answers instead of whole milliseconds.
 */
export function exactSampleOf(outcome: LoadOutcome): Sample {
  return { ...sampleOf(outcome, 1), p50Ms: outcome.p50MsExact, p99Ms: outcome.p99MsExact };
}

/**
 * Every core (issue 25): the served GET by `_id` row's load (the same connections, random ids
 * of the same documents) on the docdb node with the default processes (`--serve-processes`
 * unset: the cores), then on the same node restarted with one. The load generator runs on the
 * same cores. It restarts the node through `restart` and leaves it as it found it.
 */

import type { Sample } from '../measure.js';
import type { Options } from '../options.js';
import type { WorkloadId } from '../workloads.js';
import type { ServerFlags } from './docdb-server.js';
import { failedRequests, load, sampleOf } from './load.js';

const WORKLOAD: WorkloadId = 'rest-get-by-id-every-core';
/** The pseudo-system of the row: the same node serving from one process. */
export const ONE_PROCESS = 'one-process';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Runs the row on the node at `url` (documents [0, liveDocs) present, the default processes
 * running): a warm-up and the rounds, then the same on one process, then back to the default.
 */
export async function runEveryCore(
  options: Options,
  url: string,
  liveDocs: number,
  restart: (flags: ServerFlags) => Promise<void>,
  record: (workload: WorkloadId, system: string, round: number, sample: Sample) => void,
): Promise<string[]> {
  const notes: string[] = [];
  const measure = async (system: string) => {
    for (let round = -1; round < options.rounds; round++) {
      const outcome = await load({
        url,
        kind: 'get',
        connections: options.pointConnections,
        durationSeconds: round < 0 ? options.servedWarmupSeconds : options.servedSeconds,
        keyBound: liveDocs,
        seed: 900 + round,
        timeoutSeconds: 30,
      });
      if (failedRequests(outcome) > 0) {
        notes.push(
          `${WORKLOAD} on ${system}, round ${round + 1}: ${failedRequests(outcome)} failed requests.`,
        );
      }
      if (round >= 0) record(WORKLOAD, system, round, sampleOf(outcome, 1));
    }
  };
  log(`${WORKLOAD}: the default processes, warm-up and rounds`);
  await measure('docdb');
  log(`${WORKLOAD}: one process, warm-up and rounds`);
  await restart({ serveProcesses: 1 });
  try {
    await measure(ONE_PROCESS);
  } finally {
    await restart({});
  }
  return notes;
}

/**
 * One SQLite writer of the concurrent-writers workload, in a worker thread with its own
 * connection (as SQLite applications run concurrent writers). It opens the store, says
 * ready, then on each `run` message writes for the time box and answers what it did.
 */

import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteWriter } from '../embedded/sqlite.js';
import { type WriterPlan, writeFor, writerOp } from './plan.js';

/** A message from the phase: write for a time box, or close. */
export type WriterMessage =
  | { type: 'run'; plan: WriterPlan; durationMs: number }
  | { type: 'close' };

const { dir, index } = workerData as { dir: string; index: number };
const writer = openSqliteWriter(dir);
const port = parentPort;
if (!port) throw new Error('sqlite-writer.ts runs as a worker thread');
port.on('message', (message: WriterMessage) => {
  if (message.type === 'close') {
    writer.close();
    port.close();
    return;
  }
  writeFor(message.durationMs, writerOp(writer, message.plan, index)).then(
    (outcome) => port.postMessage({ ok: true, outcome }),
    (error: unknown) => port.postMessage({ ok: false, error: String(error) }),
  );
});
port.postMessage({ ready: true });

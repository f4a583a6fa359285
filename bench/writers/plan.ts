/**
 * What each of the 8 concurrent durable writers of issue 13 does, the same on every system:
 * single-document writes, an insert of a new order and an UPDATE of the status of a random
 * existing order in turn, for a time box. Pure planning and timing; the systems' code lives
 * with the systems.
 */

import { keyPicker, type Order, orderAt, pnrAt, STATUSES } from '../data.js';

/** The concurrent clients of the writers workloads. */
export const WRITERS = 8;
/** Document numbers reserved for one writer in one slot: far more than it can insert. */
export const WRITER_SPAN_DOCS = 1_000_000;

/** The first new document number of a slot (a round of a workload): never reused. */
export function insertBase(docs: number, slot: number): number {
  return docs + WRITERS * WRITER_SPAN_DOCS * slot;
}

/** One round of writers: where new documents start, and which orders exist to update. */
export interface WriterPlan {
  start: number;
  /** Documents [0, liveDocs) exist. */
  liveDocs: number;
  seed: number;
}

/** A system's two single-document durable writes; update returns the rows it changed. */
export interface WriterOps {
  insert(doc: Order): unknown;
  update(pnr: string, status: string): number | Promise<number>;
}

/** The n-th operation of writer `w`: even n insert a new order, odd n update a random one. */
export function writerOp(ops: WriterOps, plan: WriterPlan, w: number): (n: number) => unknown {
  const pick = keyPicker(plan.liveDocs, plan.seed + w);
  const first = plan.start + w * WRITER_SPAN_DOCS;
  return async (n) => {
    if (n % 2 === 0) return ops.insert(orderAt(first + (n >> 1)));
    const changed = await ops.update(pnrAt(pick()), STATUSES[(n >> 1) % STATUSES.length] as string);
    if (changed !== 1) throw new Error(`a writer's update changed ${changed} rows, not 1`);
  };
}

/** What one writer did. */
export interface WriterOutcome {
  ops: number;
  elapsedMs: number;
}

/** Runs `op` one call after another until `durationMs` have passed. */
export async function writeFor(
  durationMs: number,
  op: (n: number) => unknown,
): Promise<WriterOutcome> {
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < durationMs) {
    await op(n);
    n++;
  }
  return { ops: n, elapsedMs: performance.now() - started };
}

/** The writes per second of writers that ran side by side: all their writes over the longest. */
export function writesPerSec(outcomes: readonly WriterOutcome[]): number {
  const ops = outcomes.reduce((sum, o) => sum + o.ops, 0);
  const elapsedMs = Math.max(...outcomes.map((o) => o.elapsedMs));
  return (ops / elapsedMs) * 1000;
}

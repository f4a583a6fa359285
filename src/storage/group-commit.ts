/**
 * The Store's side of group commit (the queue is write-queue.ts): each batch in one write
 * transaction, each job in a child transaction of it, and after the commit the batch's
 * changes made the committed state (catalog, handles, the log's end, the scans, the write
 * counts) and the way it is made durable: by the write-ahead log when its change-log entries
 * redo all it did, by a checkpoint when it did more (durability.ts). A commit that fails has
 * its logged frame taken back before any of its jobs hears of it.
 */

import * as path from 'node:path';
import type { StoreContext } from './context.js';
import { asDamage } from './damage.js';
import type { Durability, Durable, Pending } from './durability.js';
import { checkFileCap, markForCap, settleFreedPages, storageFailed } from './file-cap.js';
import type { StoreParts } from './store-reads.js';
import { markJob, newTxnState, noWrites, rollBackJob, type TxnState } from './txn-state.js';
import { type BatchRunner, WriteQueue } from './write-queue.js';
import { WriteTxn } from './write-txn.js';

/** The state a batch starts from (see durableBy). */
interface BatchStart {
  meta: TxnState['meta'];
  structures: number;
}

export class GroupCommit implements BatchRunner<WriteTxn> {
  /** Documents written since the file was opened, by operation (`/metrics`). */
  readonly written = noWrites();
  private readonly queue: WriteQueue<WriteTxn> = new WriteQueue<WriteTxn>(this);
  private readonly ctx: StoreContext;
  /** When commits are durable (set once a writing open's recovery is done). */
  private durable: Durability | undefined;
  /** The running batch's way to durable, begun just before its commit (durability.logAhead). */
  private pending: Pending | undefined;
  /** When the running batch's commit failed after its frame was logged: its retraction. */
  private retracting: Promise<void> | undefined;

  /**
   * `reload` reads the committed catalog and log again, after a batch that did not commit;
   * `maxFileBytes` is the file's size cap, checked by every job.
   */
  constructor(
    private readonly parts: StoreParts,
    private readonly maxFileBytes: number | undefined,
    private readonly reload: () => void,
  ) {
    this.ctx = parts.ctx;
  }

  /** Queues a job for the next batch; resolves with its result once its batch is durable. */
  enqueue<T>(job: (txn: WriteTxn) => T): Promise<T> {
    return this.queue.enqueue(job);
  }

  /** Resolves once every queued job has settled. */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** How commits are made durable from now on; none before (an open's own replay). */
  get durability(): Durability | undefined {
    return this.durable;
  }

  /** From the end of a writing open's recovery: commits are durable as `durability` says. */
  useDurability(durability: Durability): void {
    this.durable = durability;
  }

  /** Runs `body` as one batch at once, outside the queue (an open's recovery). */
  runNow(body: (txn: WriteTxn) => void): void {
    this.afterBatch(this.runBatch(body), undefined);
  }

  runBatch(body: (txn: WriteTxn) => void): WriteTxn {
    const { catalog, log, docs, scans, handles } = this.parts;
    const { meta } = catalog;
    const { lastSeq, lastTerm, lastChain } = log;
    const state = newTxnState(meta, { lastSeq, lastTerm, lastChain }, scans.following);
    const txn = new WriteTxn(this.ctx, scans, state);
    const start: BatchStart = { meta, structures: docs.structureCount };
    let pending: Pending | undefined;
    try {
      handles.env.transactionSync(() => {
        handles.dropDeferred(txn.state.handles);
        body(txn);
        // The log first: the group's frame is written and flushed while LMDB commits.
        pending = this.durable?.logAhead(this.durableBy(txn.state, start));
      });
    } catch (error) {
      // The commit itself failed (disk full, I/O error): nothing of the batch is stored, and
      // its frame, if logged, is taken back before anyone hears of the failure (afterBatch).
      if (pending) this.retracting = this.durable?.retract(pending);
      const failed = storageFailed(error, path.dirname(this.ctx.file));
      if (failed.code === 'ERR_STORAGE_FULL') this.durable?.diskFull();
      throw failed;
    }
    this.pending = pending;
    return txn;
  }

  runJob<T>(txn: WriteTxn, job: (txn: WriteTxn) => T): T {
    const { docs, log, handles } = this.parts;
    const mark = markJob(txn.state, docs.structureCount);
    try {
      return handles.env.transactionSync(() => {
        const cap = this.maxFileBytes;
        const before = cap === undefined ? undefined : markForCap(this.ctx, txn.state);
        const value = job(txn);
        log.writePending(txn.state);
        if (cap !== undefined && before) checkFileCap(this.ctx, txn.state, cap, before);
        return value;
      });
    } catch (error) {
      docs.truncate(mark.structures);
      rollBackJob(txn.state, mark);
      // A write that read a damaged record (the document it replaces, one it indexes).
      throw asDamage(error, { file: this.ctx.file, part: 'a record the write read' });
    }
  }

  afterBatch(txn: WriteTxn | undefined, error: unknown): Promise<void> | undefined {
    const pending = this.pending;
    const retracting = this.retracting;
    this.pending = undefined;
    this.retracting = undefined;
    const { catalog, handles, log, scans } = this.parts;
    if (error !== undefined || !txn) {
      // Nothing of the batch was committed: forget what it staged (structures included)
      // and read the truth again.
      scans.forget();
      if (txn) handles.discard(txn.state.handles);
      this.reload();
      return retracting;
    }
    const { state } = txn;
    catalog.commit(state);
    handles.commit(state.handles);
    log.committed(state);
    scans.committed(state);
    this.written.insert += state.written.insert;
    this.written.replace += state.written.replace;
    this.written.delete += state.written.delete;
    const freed = state.written.delete > 0 || state.handles.dropped.size > 0;
    if (freed && this.maxFileBytes !== undefined) settleFreedPages(this.ctx);
    if (!pending || !this.durable) return undefined;
    const durable = this.durable.committed(pending);
    const { lastSeq } = state;
    durable.then(
      () => log.durable(lastSeq),
      () => {},
    );
    return durable;
  }

  /**
   * How a committed batch is made durable: by the write-ahead log when its entries redo all
   * it did; by a checkpoint when it did more (a collection, an index, shared structures, a
   * term, a snapshot load, a trim); not at all when it changed nothing.
   */
  private durableBy(state: TxnState, start: BatchStart): Durable {
    const before = start.meta;
    const after = state.meta;
    const redone =
      state.defs.size === 0 &&
      state.handles.opened.size === 0 &&
      state.handles.dropped.size === 0 &&
      !state.logReplaced &&
      this.parts.docs.structureCount === start.structures &&
      after.catalogGeneration === before.catalogGeneration &&
      after.nextDbId === before.nextDbId &&
      after.term === before.term &&
      after.termTag === before.termTag &&
      after.loading === before.loading;
    if (redone && state.logged.length > 0) {
      const firstSeq = state.lastSeq - state.logged.length + 1;
      return { by: 'log', entries: state.logged, firstSeq };
    }
    const untouched =
      after === before &&
      state.logged.length === 0 &&
      state.written.insert + state.written.replace + state.written.delete === 0;
    return redone && untouched ? { by: 'nothing' } : { by: 'checkpoint' };
  }
}

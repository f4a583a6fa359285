/**
 * Group commit. Writes queue up during an event-loop turn and run together: each job in its
 * own child transaction, so a failing job rolls back alone, and the batch in one commit. The
 * owner says when that commit is durable (`afterBatch` returns a promise: the write-ahead
 * log's flush, or a checkpoint); every job's promise settles only then, batches in commit
 * order, while the next batches gather and commit. The queue knows nothing of what a
 * transaction holds: the runner opens it and hands it to each job.
 *
 * A batch whose durability fails (its flush failed) rejects its jobs with that error. If the
 * owner cannot take a batch in afterwards (`afterBatch` throws: the catalog could not be read
 * again), every job of that batch still settles as its commit went, and the queue refuses
 * every later job with ERR_STORAGE_FAILED naming the cause: writing on over state that no
 * longer matches the file could corrupt it. Reopening the database clears it.
 *
 * Batching is done here over `transactionSync` rather than lmdb-js's asynchronous
 * `transaction()`: a child transaction per job gives per-write rollback, and the commit
 * returns at once (LMDB does not flush it; docs/adr/0023-write-ahead-log.md).
 */

import { type DbError, dbError } from '../errors/index.js';

/** Thrown by a job to roll back its own writes while still resolving with a value. */
export class RollbackWith<T> {
  constructor(readonly value: T) {}
}

interface Job<Txn> {
  run: (txn: Txn) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** What the owner of the queue provides: the transactions and what follows a commit. */
export interface BatchRunner<Txn> {
  /**
   * Opens one durable write transaction, runs `body` with its state and commits; throws when
   * the commit fails. Returns the state for `afterBatch`.
   */
  runBatch(body: (txn: Txn) => void): Txn;
  /** Runs one job in a child transaction of the batch; a throw undoes only that job. */
  runJob<T>(txn: Txn, job: (txn: Txn) => T): T;
  /**
   * Called once the batch committed (`error` undefined), or failed to. Returns a promise
   * that settles once the commit is durable (after every batch before it), or, for a failed
   * one, once what it left behind is undone (its logged frame taken back), when there is
   * something to wait for. The batch's jobs settle only then.
   */
  afterBatch(txn: Txn | undefined, error: unknown): Promise<void> | undefined;
}

type Outcome = { ok: boolean; value: unknown };

export class WriteQueue<Txn> {
  private pending: Job<Txn>[] = [];
  /** Batches committed and not yet durable. */
  private unsettled = 0;
  private scheduled = false;
  private idle: Array<() => void> = [];
  /** Set when `afterBatch` threw: the cause, and every later job is refused. */
  private broken: unknown = undefined;

  constructor(private readonly runner: BatchRunner<Txn>) {}

  /** Queues a job; resolves with its result once its batch is durable. */
  enqueue<T>(run: (txn: Txn) => T): Promise<T> {
    if (this.broken !== undefined) return Promise.reject(this.refusal());
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        run,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.drain());
      }
    });
  }

  /** Resolves when every queued job has settled. */
  whenIdle(): Promise<void> {
    if (!this.scheduled && this.pending.length === 0 && this.unsettled === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private drain(): void {
    const jobs = this.pending;
    this.pending = [];
    this.scheduled = false;
    const { outcomes, durable } = this.runBatch(jobs);
    if (!durable) {
      this.settle(jobs, outcomes);
      return;
    }
    this.unsettled++;
    durable.then(
      () => {
        this.unsettled--;
        this.settle(jobs, outcomes);
      },
      (error) => {
        this.unsettled--;
        // A job that failed keeps its own error; one that committed was not made durable
        // (the owner makes it durable before it acknowledges a later batch).
        this.settle(
          jobs,
          outcomes.map((o) => (o.ok ? { ok: false, value: error } : o)),
        );
      },
    );
  }

  private settle(jobs: Job<Txn>[], outcomes: Outcome[]): void {
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i] as Job<Txn>;
      const outcome = outcomes[i] as Outcome;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    }
    if (this.pending.length === 0 && this.unsettled === 0) {
      const waiting = this.idle;
      this.idle = [];
      for (const resolve of waiting) resolve();
    }
  }

  private runBatch(jobs: Job<Txn>[]): { outcomes: Outcome[]; durable?: Promise<void> } {
    const outcomes: Outcome[] = [];
    let txn: Txn | undefined;
    let failure: { error: unknown } | undefined;
    let durable: Promise<void> | undefined;
    try {
      txn = this.runner.runBatch((opened) => {
        txn = opened;
        for (const job of jobs) outcomes.push(this.runJob(opened, job));
      });
    } catch (error) {
      failure = { error };
    }
    try {
      durable = this.runner.afterBatch(txn, failure?.error);
    } catch (error) {
      // The batch's own outcome stands (committed or not); the writes after it cannot.
      this.broken = error;
    }
    if (failure)
      return { outcomes: jobs.map(() => ({ ok: false, value: failure.error })), durable };
    return { outcomes, durable };
  }

  /** The error of a job refused because an earlier batch could not be taken in. */
  private refusal(): DbError {
    const cause = this.broken instanceof Error ? this.broken.message : String(this.broken);
    return dbError('ERR_STORAGE_FAILED', 'catalogUnreadable', { cause }, { cause });
  }

  private runJob(txn: Txn, job: Job<Txn>): Outcome {
    try {
      return { ok: true, value: this.runner.runJob(txn, job.run) };
    } catch (error) {
      if (error instanceof RollbackWith) return { ok: true, value: error.value };
      return { ok: false, value: error };
    }
  }
}

/**
 * Group commit. Writes queue up during an event-loop turn (and while the previous commit is
 * syncing) and run together: each job in its own child transaction, so a failing job rolls
 * back alone, and the batch in one durable commit. Every job's promise settles only after
 * that commit returned, so an acknowledged write is on disk.
 *
 * Batching is done here over `transactionSync` rather than lmdb-js's asynchronous
 * `transaction()`: a child transaction per job gives per-write rollback, and a synchronous
 * commit (overlappingSync off) makes "the promise resolved" mean "fsync returned"
 * (docs/adr/0001-storage-on-lmdb.md).
 */

/** Thrown by a job to roll back its own writes while still resolving with a value. */
export class RollbackWith<T> {
  constructor(readonly value: T) {}
}

interface Job {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Hooks the owner provides: how to open the outer and child transactions. */
export interface BatchRunner {
  /** Runs `body` in one durable write transaction; throws when the commit fails. */
  runOuter(body: () => void): void;
  /** Runs `job` in a child transaction; a throw rolls back only that job. */
  runChild<T>(job: () => T): T;
  /** Called before each job: returns a function that undoes in-memory state on rollback. */
  beginJob(): () => void;
  /** Called once the batch committed, or with the error when it did not. */
  afterBatch(error: unknown): void;
}

export class WriteQueue {
  private pending: Job[] = [];
  private scheduled = false;
  private idle: Array<() => void> = [];

  constructor(private readonly runner: BatchRunner) {}

  /** Queues a job; resolves with its result once its batch is durable. */
  enqueue<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.drain());
      }
    });
  }

  /** Resolves when every queued job has settled. */
  whenIdle(): Promise<void> {
    if (!this.scheduled && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private drain(): void {
    const jobs = this.pending;
    this.pending = [];
    this.scheduled = false;
    const outcomes = this.runBatch(jobs);
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i] as Job;
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    }
    if (this.pending.length === 0) {
      const waiting = this.idle;
      this.idle = [];
      for (const resolve of waiting) resolve();
    }
  }

  private runBatch(jobs: Job[]): Array<{ ok: boolean; value: unknown }> {
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      this.runner.runOuter(() => {
        for (const job of jobs) outcomes.push(this.runJob(job));
      });
    } catch (error) {
      this.runner.afterBatch(error);
      return jobs.map(() => ({ ok: false, value: error }));
    }
    this.runner.afterBatch(undefined);
    return outcomes;
  }

  private runJob(job: Job): { ok: boolean; value: unknown } {
    const undo = this.runner.beginJob();
    try {
      return { ok: true, value: this.runner.runChild(job.run) };
    } catch (error) {
      undo();
      if (error instanceof RollbackWith) return { ok: true, value: error.value };
      return { ok: false, value: error };
    }
  }
}

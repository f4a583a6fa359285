/**
 * The group-commit queue on its own, over a runner whose batches are plain arrays: what a
 * job's promise says when a batch commits, fails, or cannot be taken in afterwards. The
 * store's own group commit over LMDB is tested in store.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { isDbError } from '../errors/index.js';
import { type BatchRunner, WriteQueue } from './write-queue.js';

type Txn = { writes: string[] };

/** A runner that records committed writes; `failCommit` and `failAfter` break its steps. */
function runner(
  options: {
    failCommit?: () => boolean;
    failAfter?: () => boolean;
    durable?: () => Promise<void> | undefined;
  } = {},
) {
  const committed: string[] = [];
  const batches: number[] = [];
  const runner: BatchRunner<Txn> = {
    runBatch(body) {
      const txn: Txn = { writes: [] };
      body(txn);
      if (options.failCommit?.()) throw new Error('disk I/O error');
      committed.push(...txn.writes);
      batches.push(txn.writes.length);
      return txn;
    },
    runJob(txn, job) {
      const before = txn.writes.length;
      try {
        return job(txn);
      } catch (error) {
        txn.writes.length = before;
        throw error;
      }
    },
    afterBatch() {
      if (options.failAfter?.()) throw new Error('catalog unreadable');
      return options.durable?.();
    },
  };
  return { runner, committed, batches };
}

const write = (name: string) => (txn: Txn) => {
  txn.writes.push(name);
  return name;
};

describe('WriteQueue', () => {
  it('commits the jobs of one turn together, and a throwing job rolls back alone', async () => {
    const r = runner();
    const queue = new WriteQueue(r.runner);
    const results = await Promise.allSettled([
      queue.enqueue(write('a')),
      queue.enqueue(() => {
        throw new Error('bad job');
      }),
      queue.enqueue(write('c')),
    ]);
    expect(results.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.committed).toEqual(['a', 'c']);
    expect(r.batches).toEqual([2]);
  });

  it('rejects every job of a batch whose commit fails, and takes the next batch', async () => {
    let fail = true;
    const r = runner({ failCommit: () => fail });
    const queue = new WriteQueue(r.runner);
    const first = await Promise.allSettled([queue.enqueue(write('a')), queue.enqueue(write('b'))]);
    expect(first.every((o) => o.status === 'rejected')).toBe(true);
    fail = false;
    await expect(queue.enqueue(write('c'))).resolves.toBe('c');
    expect(r.committed).toEqual(['c']);
  });

  it('settles a batch that could not be taken in, then refuses later writes by name', async () => {
    let failAfter = false;
    const r = runner({ failAfter: () => failAfter });
    const queue = new WriteQueue(r.runner);
    await queue.enqueue(write('a'));
    failAfter = true;
    // The commit went through: its jobs resolve, though the runner could not take it in.
    await expect(queue.enqueue(write('b'))).resolves.toBe('b');
    failAfter = false;
    const refused = await queue.enqueue(write('c')).catch((error: unknown) => error);
    expect(isDbError(refused, 'ERR_STORAGE_FAILED')).toBe(true);
    expect((refused as Error).message).toContain('catalog unreadable');
    expect((refused as Error).message).toContain('reopen');
    expect(r.committed).toEqual(['a', 'b']);
    await queue.whenIdle();
  });

  it('settles the jobs of a failed commit even when taking the failure in throws too', async () => {
    const r = runner({ failCommit: () => true, failAfter: () => true });
    const queue = new WriteQueue(r.runner);
    const error = await queue.enqueue(write('a')).catch((e: unknown) => e);
    expect((error as Error).message).toBe('disk I/O error');
    await expect(queue.enqueue(write('b'))).rejects.toThrow(/takes no more writes/);
  });

  it('settles a batch only once it is durable, in order, while the next batches commit', async () => {
    const flushes: Array<() => void> = [];
    const { runner: r, committed } = runner({
      durable: () => new Promise<void>((resolve) => flushes.push(resolve)),
    });
    const queue = new WriteQueue(r);
    const settled: string[] = [];
    const first = queue.enqueue(write('a')).then((v) => settled.push(v));
    await new Promise((resolve) => setImmediate(resolve));
    const second = queue.enqueue(write('b')).then((v) => settled.push(v));
    await new Promise((resolve) => setImmediate(resolve));
    // Both committed (the second gathered while the first waited), neither acknowledged.
    expect(committed).toEqual(['a', 'b']);
    expect(settled).toEqual([]);
    let idle = false;
    void queue.whenIdle().then(() => {
      idle = true;
    });
    flushes[0]?.();
    await first;
    expect(settled).toEqual(['a']);
    expect(idle).toBe(false);
    flushes[1]?.();
    await second;
    await queue.whenIdle();
    expect(settled).toEqual(['a', 'b']);
  });

  it('rejects the jobs of a batch whose flush fails, and takes later writes', async () => {
    let fail = true;
    const { runner: r } = runner({
      durable: () => (fail ? Promise.reject(new Error('EIO on flush')) : undefined),
    });
    const queue = new WriteQueue(r);
    await expect(queue.enqueue(write('a'))).rejects.toThrow('EIO on flush');
    fail = false;
    await expect(queue.enqueue(write('b'))).resolves.toBe('b');
    await queue.whenIdle();
  });
});

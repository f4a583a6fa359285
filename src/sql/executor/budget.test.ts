import { describe, expect, it } from 'vitest';
import { decodedBytes } from '../../storage/index.js';
import { QUERY_HEAP_LIVE_FRACTION_MAX } from '../../util/index.js';
import { HeapWatch, StatementBudget } from './budget.js';

/** A heap whose use the test sets, and whose collection frees what the test says is garbage. */
class FakeHeap {
  used = 0;
  garbage = 0;
  collections = 0;
  readonly limit = 1_000_000;
  readonly watch = new HeapWatch(
    () => ({ used: this.used, limit: this.limit }),
    () => {
      this.collections++;
      this.used -= this.garbage;
      this.garbage = 0;
    },
  );
}

const BOUND = 1_000_000 * QUERY_HEAP_LIVE_FRACTION_MAX;

function ticked(budget: StatementBudget, times: number): void {
  for (let i = 0; i < times; i++) budget.tick();
}

describe('HeapWatch', () => {
  it('lets a statement go on with the live heap at the bound, and stops it one byte past', () => {
    const at = new FakeHeap();
    at.used = BOUND;
    expect(() => at.watch.check()).not.toThrow();
    expect(at.collections).toBe(0);
    at.used = BOUND + 1;
    at.garbage = 1;
    expect(() => at.watch.check()).not.toThrow();
    expect(at.collections).toBe(1);
    const past = new FakeHeap();
    past.used = BOUND + 1;
    expect(() => past.watch.check()).toThrow(
      expect.objectContaining({
        code: 'ERR_QUERY_MEMORY',
        status: 503,
        details: { heapLiveBytes: BOUND + 1, heapLimitBytes: 1_000_000 },
      }),
    );
    // The heap stays that full (something else holds it): the next statements are not
    // collected for, nor stopped, until the heap in use is halfway to the limit.
    past.used = 900_000;
    expect(() => past.watch.check()).not.toThrow();
    expect(past.collections).toBe(1);
    past.used = 900_001;
    expect(() => past.watch.check()).toThrow(expect.objectContaining({ code: 'ERR_QUERY_MEMORY' }));
    expect(past.collections).toBe(2);
  });

  it('collects before it judges: garbage a stopped statement left does not stop the next', () => {
    const heap = new FakeHeap();
    heap.used = 950_000;
    heap.garbage = 900_000;
    expect(() => heap.watch.check()).not.toThrow();
    expect(heap.collections).toBe(1);
    expect(heap.used).toBe(50_000);
  });

  it('collects again only halfway from what was live to the limit', () => {
    const heap = new FakeHeap();
    heap.used = 790_000 + 50_000;
    heap.garbage = 50_000;
    heap.watch.check();
    expect(heap.collections).toBe(1);
    // Live 790,000: the next collection waits for 895,000 in use.
    heap.used = 895_000;
    heap.garbage = 105_000;
    heap.watch.check();
    expect(heap.collections).toBe(1);
    heap.used = 895_001;
    heap.watch.check();
    expect(heap.collections).toBe(2);
    expect(heap.used).toBe(790_001);
  });
});

/** A budget over an empty heap that counts its looks. */
function counted(): { budget: StatementBudget; looks: () => number } {
  let looks = 0;
  const watch = new HeapWatch(
    () => {
      looks++;
      return { used: 0, limit: 1 };
    },
    () => {},
  );
  return { budget: new StatementBudget({}, watch), looks: () => looks };
}

describe('StatementBudget', () => {
  it('looks at the heap every 256 rows, not at each', () => {
    const { budget, looks } = counted();
    ticked(budget, 255);
    expect(looks()).toBe(0);
    ticked(budget, 1);
    expect(looks()).toBe(1);
    ticked(budget, 512);
    expect(looks()).toBe(3);
  });

  it('looks at the heap after 8 MiB of decoded records too, however few the rows', () => {
    const { budget, looks } = counted();
    decodedBytes.total += 8 * 1024 * 1024;
    budget.tick();
    expect(looks()).toBe(0);
    decodedBytes.total += 1;
    budget.tick();
    expect(looks()).toBe(1);
    budget.tick();
    expect(looks()).toBe(1);
  });

  it('stops a statement past its timeout, naming the timeout', async () => {
    const budget = new StatementBudget({ timeoutMs: 5 });
    expect(() => budget.check()).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(() => budget.check()).toThrow(
      expect.objectContaining({
        code: 'ERR_QUERY_TIMEOUT',
        status: 503,
        message: expect.stringContaining('longer than 5 ms'),
      }),
    );
    const seconds = new StatementBudget({ timeoutMs: 30_000 });
    expect(() => seconds.check()).not.toThrow();
  });

  it('has no deadline without a timeout', () => {
    const budget = new StatementBudget();
    ticked(budget, 10_000);
    expect(() => budget.check()).not.toThrow();
  });

  it('collects the real heap and goes on when what it holds is garbage', () => {
    // The process's own watch, through V8: a full collection must be reachable.
    const budget = new StatementBudget();
    expect(() => budget.check()).not.toThrow();
  });
});

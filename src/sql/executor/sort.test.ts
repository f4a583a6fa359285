import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeapWatch, StatementBudget } from './budget.js';
import { sortedFirst } from './sort.js';

interface Item {
  key: number;
  at: number;
}

const byKey = (a: Item, b: Item) => a.key - b.key;

/** What a whole stable sort and a cut give. */
function sortThenCut(items: Item[], keep: number): Item[] {
  return [...items].sort(byKey).slice(0, keep);
}

function itemsOf(keys: number[]): Item[] {
  return keys.map((key, at) => ({ key, at }));
}

describe('sortedFirst', () => {
  it('answers what a whole stable sort then a cut answers, equal keys in input order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 3000 }),
        fc.oneof(fc.integer({ min: 0, max: 3100 }), fc.constant(Number.POSITIVE_INFINITY)),
        (keys, keep) => {
          const items = itemsOf(keys);
          const got = sortedFirst(items, byKey, new StatementBudget(), keep);
          expect(got).toEqual(sortThenCut(items, keep));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('sorts inputs longer than a run in runs and merges them stably', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const items = itemsOf(Array.from({ length: 100_000 }, () => next() % 1000));
    for (const keep of [Number.POSITIVE_INFINITY, 70_000, 40_000, 10, 0]) {
      expect(sortedFirst(items, byKey, new StatementBudget(), keep)).toEqual(
        sortThenCut(items, keep),
      );
    }
  });

  it('stops a long sort when its budget runs out', () => {
    const items = itemsOf(Array.from({ length: 100_000 }, (_, i) => (i * 7919) % 100_003));
    const budget = new StatementBudget(
      {},
      new HeapWatch(
        () => ({ used: 95, limit: 100 }),
        () => {},
      ),
    );
    expect(() => sortedFirst(items, byKey, budget)).toThrow(
      expect.objectContaining({ code: 'ERR_QUERY_MEMORY' }),
    );
  });
});

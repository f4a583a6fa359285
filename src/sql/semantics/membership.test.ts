/**
 * Proves that an OR of equalities on one path, tested as membership in a set of its values,
 * answers what its branches compared one by one answer (three-valued, across type families,
 * 0 and -0, nulls in the list, `?` bound to anything) and that a list of 50,000 values is
 * tested in steps per row, not per value.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Condition, PathRef, Value } from '../ast/index.js';
import { compare, evaluate, type RowValues, type Truth } from './index.js';

const AT = { line: 1, column: 1 };
const path: PathRef = { kind: 'path', text: 'k', at: AT };

/** A row whose `k` is `value`. */
function rowOf(value: unknown): RowValues {
  return { value: () => value, candidates: () => [value ?? null] };
}

/** `k = v1 OR … OR k = vN`, the path on either side of each branch. */
function orOf(values: Value[], flips: boolean[] = []): Condition & { kind: 'or' } {
  return {
    kind: 'or',
    conditions: values.map((value, i) =>
      flips[i]
        ? { kind: 'compare', op: '=', left: value, right: path }
        : { kind: 'compare', op: '=', left: path, right: value },
    ),
  };
}

/** The OR folded branch by branch, as the evaluator does for a short list. */
function branchByBranch(value: unknown, listed: readonly unknown[]): Truth {
  let unknown = false;
  for (const v of listed) {
    const truth = compare('=', value, v);
    if (truth === true) return true;
    if (truth === null) unknown = true;
  }
  return unknown ? null : false;
}

const scalar = fc.oneof(
  fc.constantFrom(0, -0, 1, 1.5, -1, 2 ** 53, '1', '', 'a', 'é', '\u{1F600}', true, false),
  fc.integer({ min: -5, max: 5 }),
  fc.string({ maxLength: 3 }),
);
const listed = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constant(null) },
);
const rowValue = fc.oneof(
  { weight: 8, arbitrary: listed },
  { weight: 1, arbitrary: fc.constantFrom(undefined, [1], { a: 1 }, ['a']) },
);

describe('an OR of equalities on one path', () => {
  it('answers as its branches do, with literals in the list', () => {
    fc.assert(
      fc.property(
        rowValue,
        fc.array(listed, { minLength: 1, maxLength: 24 }),
        fc.array(fc.boolean(), { maxLength: 24 }),
        (value, values, flips) => {
          const condition = orOf(
            values.map((v) => ({ kind: 'literal', value: v })),
            flips,
          );
          expect(evaluate(condition, rowOf(value), [])).toBe(branchByBranch(value, values));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers as its branches do with `?` bound to anything, arrays and objects included', () => {
    const bound = fc.oneof(listed, fc.constantFrom([1], { a: 1 }, ['a']));
    fc.assert(
      fc.property(rowValue, fc.array(bound, { minLength: 8, maxLength: 24 }), (value, params) => {
        const condition = orOf(params.map((_, index) => ({ kind: 'param', index, at: AT })));
        expect(evaluate(condition, rowOf(value), params)).toBe(branchByBranch(value, params));
      }),
      { numRuns: 1000 },
    );
  });

  it('answers one cached condition afresh for each execution’s parameters', () => {
    const condition = orOf(
      Array.from({ length: 10 }, (_, index) => ({ kind: 'param', index, at: AT })),
    );
    const first = Array.from({ length: 10 }, (_, i) => i);
    const second = Array.from({ length: 10 }, (_, i) => i + 100);
    expect(evaluate(condition, rowOf(3), first)).toBe(true);
    expect(evaluate(condition, rowOf(3), second)).toBe(false);
    expect(evaluate(condition, rowOf(103), second)).toBe(true);
  });

  it('is not an OR over two paths, which keeps each branch its own', () => {
    const other: PathRef = { kind: 'path', text: 'j', at: AT };
    const condition: Condition = {
      kind: 'or',
      conditions: Array.from({ length: 10 }, (_, i) => ({
        kind: 'compare',
        op: '=',
        left: i === 9 ? other : path,
        right: { kind: 'literal', value: i },
      })),
    };
    const row: RowValues = {
      value: (p) => (p.text === 'j' ? 9 : 100),
      candidates: () => [],
    };
    expect(evaluate(condition, row, [])).toBe(true);
  });

  it('tests a list of 50,000 values on 50,000 rows in one lookup per row', () => {
    const values = Array.from({ length: 50_000 }, (_, i) => i * 2);
    const condition = orOf(values.map((value) => ({ kind: 'literal', value })));
    let reads = 0;
    let found = 0;
    for (let i = 0; i < 50_000; i++) {
      const row: RowValues = {
        value: () => {
          reads++;
          return i;
        },
        candidates: () => [i],
      };
      if (evaluate(condition, row, []) === true) found++;
    }
    expect(found).toBe(25_000);
    expect(reads).toBe(50_000);
  });
});

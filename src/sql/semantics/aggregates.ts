/**
 * The aggregates of DESIGN §4 as objects with `init / accumulate / merge / finish`, so the
 * same rules serve one node (accumulate then finish) and a router (shards accumulate, the
 * router merges their states and finishes). States are plain JSON data. Rules: COUNT(*)
 * counts rows; COUNT(path) counts non-null values; SUM and AVG skip non-numbers, and SUM of
 * integers stays an integer; on no input COUNT is 0 and the others null; MIN and MAX use the
 * total order of `util/value-order.ts` (across types). Pure.
 */

import { compareValues } from '../../util/index.js';
import { type AggregateFn, assertNever } from '../ast/index.js';

/** One aggregate function. `accumulate` returns the new state (it may update it in place). */
export interface Aggregate<State = unknown> {
  init(): State;
  accumulate(state: State, value: unknown): State;
  merge(a: State, b: State): State;
  finish(state: State): unknown;
}

/** COUNT(*): every row counts; the value is not read. */
export const COUNT_ROWS: Aggregate<number> = {
  init: () => 0,
  accumulate: (state) => state + 1,
  merge: (a, b) => a + b,
  finish: (state) => state,
};

/** COUNT(path): non-null values. */
export const COUNT_VALUES: Aggregate<number> = {
  init: () => 0,
  accumulate: (state, value) => (value === undefined || value === null ? state : state + 1),
  merge: (a, b) => a + b,
  finish: (state) => state,
};

/** SUM(path): null until a number is seen. */
export const SUM: Aggregate<number | null> = {
  init: () => null,
  accumulate: (state, value) => (typeof value === 'number' ? (state ?? 0) + value : state),
  merge: (a, b) => (a === null ? b : b === null ? a : a + b),
  finish: (state) => state,
};

/** AVG's state: the sum and count of the numbers seen, so parts can be merged. */
export interface AvgState {
  sum: number;
  count: number;
}

/** AVG(path): the mean of the numbers seen, null without any. */
export const AVG: Aggregate<AvgState> = {
  init: () => ({ sum: 0, count: 0 }),
  accumulate: (state, value) => {
    if (typeof value === 'number') {
      state.sum += value;
      state.count++;
    }
    return state;
  },
  merge: (a, b) => ({ sum: a.sum + b.sum, count: a.count + b.count }),
  finish: (state) => (state.count === 0 ? null : state.sum / state.count),
};

/** MIN or MAX: the state is the best value so far, null before any (nulls are skipped). */
function extreme(sign: 1 | -1): Aggregate<unknown> {
  const better = (value: unknown, best: unknown) =>
    best === null || compareValues(value, best) * sign < 0;
  return {
    init: () => null,
    accumulate: (state, value) =>
      value === undefined || value === null || !better(value, state) ? state : value,
    merge: (a, b) => (b === null || !better(b, a) ? a : b),
    finish: (state) => state,
  };
}

export const MIN: Aggregate<unknown> = extreme(1);
export const MAX: Aggregate<unknown> = extreme(-1);

/** The aggregate of a select-list item: `fn(*)` or `fn(path)`. */
export function aggregateOf(fn: AggregateFn, star: boolean): Aggregate {
  switch (fn) {
    case 'COUNT':
      return (star ? COUNT_ROWS : COUNT_VALUES) as Aggregate;
    case 'SUM':
      return SUM as Aggregate;
    case 'AVG':
      return AVG as Aggregate;
    case 'MIN':
      return MIN;
    case 'MAX':
      return MAX;
    default:
      return assertNever(fn);
  }
}

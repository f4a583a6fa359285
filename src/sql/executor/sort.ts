/**
 * ORDER BY: reads every input row, computes each row's sort key once (the ORDER BY values,
 * then each document's `_id` when the node breaks ties by id), sorts with the semantics
 * module's comparison and yields the rows carrying their keys. Under a LIMIT it keeps only
 * the first OFFSET + LIMIT rows as it reads (`keep`), so `ORDER BY … LIMIT 10` of a million
 * rows holds and sorts a few thousand, not the million.
 *
 * Sorting is stable (equal rows keep their input order) and watched by the statement's
 * budget: a long input is sorted in runs and merged, looking at the budget between runs and
 * as it merges, where one `Array.prototype.sort` of 4M rows held the event loop for 13 s.
 */

import type { Document } from '../../storage/index.js';
import { valueAt } from '../../util/index.js';
import type { SortNode } from '../planner/index.js';
import { compareSortKeys, type SortKey } from '../semantics/index.js';
import type { StatementBudget } from './budget.js';
import type { Row } from './context.js';

/** Rows sorted by one `Array.prototype.sort` call (about 40 ms of this machine's time). */
const SORT_RUN_ROWS = 32_768;

/** The sort key of a row under a sort node. */
export function sortKeyOf(node: SortNode, row: Row): SortKey {
  const key: unknown[] = [];
  for (const column of node.columns) {
    if (column.kind === 'path') {
      key.push(valueAt(row[column.path.source], column.path.path));
    } else {
      const doc = row[0] as Document;
      key.push(column.name in doc ? doc[column.name] : undefined);
    }
  }
  if (node.ids) for (const doc of row) key.push(doc._id);
  return key;
}

/** Which positions of a sort key descend. */
export function descendingOf(node: SortNode): boolean[] {
  return node.columns.map((c) => c.descending);
}

/** Merges two sorted runs into one, the left's first among equals. */
function mergeRuns<T>(
  left: readonly T[],
  right: readonly T[],
  compare: (a: T, b: T) => number,
  budget: StatementBudget,
): T[] {
  const out = new Array<T>(left.length + right.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < left.length && j < right.length) {
    budget.tick();
    out[k++] = compare(right[j] as T, left[i] as T) < 0 ? (right[j++] as T) : (left[i++] as T);
  }
  while (i < left.length) out[k++] = left[i++] as T;
  while (j < right.length) out[k++] = right[j++] as T;
  return out;
}

/** `items` sorted, stably; may sort in place or answer a new array. */
function sortWatched<T>(items: T[], compare: (a: T, b: T) => number, budget: StatementBudget): T[] {
  if (items.length <= SORT_RUN_ROWS) return items.sort(compare);
  let runs: T[][] = [];
  for (let i = 0; i < items.length; i += SORT_RUN_ROWS) {
    runs.push(items.slice(i, i + SORT_RUN_ROWS).sort(compare));
    budget.check();
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const left = runs[r] as T[];
      const right = runs[r + 1];
      merged.push(right ? mergeRuns(left, right, compare, budget) : left);
    }
    runs = merged;
  }
  return runs[0] as T[];
}

/**
 * The first `keep` of `items` in order, stably (as a whole sort then a cut would give them).
 * Past `keep`, items gather until twice `keep`, are sorted and cut back; an item not before
 * the last one kept is dropped on sight (a later equal one would come after it anyway).
 */
export function sortedFirst<T>(
  items: Iterable<T>,
  compare: (a: T, b: T) => number,
  budget: StatementBudget,
  keep = Number.POSITIVE_INFINITY,
): T[] {
  if (keep === Number.POSITIVE_INFINITY) return sortWatched([...items], compare, budget);
  const gather = Math.max(2 * keep, 1024);
  let kept: T[] = [];
  let last: T | undefined;
  for (const item of items) {
    if (keep === 0 || (last !== undefined && compare(item, last) >= 0)) continue;
    kept.push(item);
    if (kept.length >= gather) {
      kept = sortWatched(kept, compare, budget);
      kept.length = keep;
      last = kept[keep - 1];
    }
  }
  kept = sortWatched(kept, compare, budget);
  if (kept.length > keep) kept.length = keep;
  return kept;
}

/** The rows of a sort node, at most the first `keep` of them. */
export function* sortRows(
  node: SortNode,
  input: Iterable<Row>,
  budget: StatementBudget,
  keep = Number.POSITIVE_INFINITY,
): Generator<Row> {
  const descending = descendingOf(node);
  function* keyed(): Generator<Row> {
    for (const row of input) {
      row.sortKey = sortKeyOf(node, row);
      yield row;
    }
  }
  yield* sortedFirst(
    keyed(),
    (a, b) => compareSortKeys(a.sortKey as SortKey, b.sortKey as SortKey, descending),
    budget,
    keep,
  );
}

/**
 * The ORDER BY comparison of sort-key tuples, shared by the sort operator, the stream and a
 * router's k-way merge of sorted parts. A sort key is the row's ORDER BY values followed by
 * the `_id` of each of its documents (FROM first, then each JOIN), so that ties break by
 * `_id` and every order is deterministic. Values compare in the total order of
 * `util/value-order.ts`. Pure.
 */

import { compareValues } from '../../util/index.js';

/** The ORDER BY values of a row, then its ids: plain JSON, so parts can travel. */
export type SortKey = readonly unknown[];

/**
 * Compares two sort keys: position k descends when `descending[k]` is true; positions past
 * `descending` (the ids) ascend.
 */
export function compareSortKeys(a: SortKey, b: SortKey, descending: readonly boolean[]): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const c = compareValues(a[k], b[k]);
    if (c !== 0) return descending[k] === true ? -c : c;
  }
  return a.length - b.length;
}

/**
 * ORDER BY: reads every input row, computes each row's sort key once (the ORDER BY values,
 * then each document's `_id` when the node breaks ties by id), sorts with the semantics
 * module's comparison and yields the rows carrying their keys.
 */

import type { Document } from '../../storage/index.js';
import { valueAt } from '../../util/index.js';
import type { SortNode } from '../planner/index.js';
import { compareSortKeys, type SortKey } from '../semantics/index.js';
import type { Row } from './context.js';

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

export function* sortRows(node: SortNode, input: Iterable<Row>): Generator<Row> {
  const rows: Row[] = [];
  for (const row of input) {
    row.sortKey = sortKeyOf(node, row);
    rows.push(row);
  }
  const descending = descendingOf(node);
  rows.sort((a, b) => compareSortKeys(a.sortKey as SortKey, b.sortKey as SortKey, descending));
  yield* rows;
}

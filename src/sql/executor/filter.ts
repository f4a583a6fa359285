/**
 * The filter: rows whose condition is true. Over an access path the dispatch fuses it into
 * the access (`access.ts`), which tests documents before it builds rows.
 */

import type { FilterNode } from '../planner/index.js';
import { type ExecContext, predicate, type Row } from './context.js';

export function* filterRows(
  node: FilterNode,
  ctx: ExecContext,
  input: Iterable<Row>,
): Generator<Row> {
  const passes = predicate(node.condition, ctx);
  for (const row of input) if (passes(row)) yield row;
}

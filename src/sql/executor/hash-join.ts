/**
 * The inner hash join: a table of the joined collection's documents by their join key, probed
 * by each input row. Null and missing values never join; values join only with values of
 * their own type (the semantics module's join key).
 */

import { type Document, withId } from '../../storage/index.js';
import { valueAt } from '../../util/index.js';
import type { HashJoinNode } from '../planner/index.js';
import { joinKey } from '../semantics/index.js';
import { type ExecContext, type Row, requireCollection } from './context.js';

export function* hashJoinRows(
  node: HashJoinNode,
  ctx: ExecContext,
  input: Iterable<Row>,
): Generator<Row> {
  const def = requireCollection(ctx.reader, node.collection);
  const table = new Map<string, Document[]>();
  const { budget } = ctx;
  for (const { id, body } of ctx.reader.scan(def)) {
    budget.tick();
    const doc = withId(id, body);
    const key = joinKey(valueAt(doc, node.build.path));
    if (key === undefined) continue;
    const bucket = table.get(key);
    if (bucket) bucket.push(doc);
    else table.set(key, [doc]);
  }
  const { source, path } = node.probe;
  for (const row of input) {
    const key = joinKey(valueAt(row[source], path));
    if (key === undefined) continue;
    for (const match of table.get(key) ?? []) {
      budget.tick();
      yield [...row, match];
    }
  }
}

/**
 * Projection: the result document of each row. `*` gives the document (or, over a join,
 * each source's document under its collection name); a list gives `_id` (unless DISTINCT or
 * a join leaves it out) and one key per listed path, a missing value as null. A sorted row's
 * sort key travels with its projected document.
 */

import { type Document, JsonProjection } from '../../storage/index.js';
import { valueAt } from '../../util/index.js';
import type { ProjectColumn, ProjectNode } from '../planner/index.js';
import type { Row } from './context.js';

/** The result document of one row. */
export function projectDocument(node: ProjectNode, row: Row): Document {
  if (node.columns === '*') {
    if (row.length === 1) return row[0] as Document;
    const out: Document = {};
    node.sources.forEach((name, i) => {
      out[name] = row[i];
    });
    return out;
  }
  const out: Document = {};
  if (node.keepId) out._id = (row[0] as Document)._id;
  for (const column of node.columns) {
    const value = valueAt(row[column.path.source], column.path.path);
    out[column.name] = value === undefined ? null : value;
  }
  return out;
}

/** The projected row of one row, carrying its sort key. */
export function projectRow(node: ProjectNode, row: Row): Row {
  // `*` over one collection: the row is its own result (and already holds its sort key).
  if (node.columns === '*' && row.length === 1) return row;
  const out: Row = [projectDocument(node, row)];
  if (row.sortKey) out.sortKey = row.sortKey;
  return out;
}

export function* projectRows(node: ProjectNode, input: Iterable<Row>): Generator<Row> {
  for (const row of input) yield projectRow(node, row);
}

/** Projections as the transcoder takes them, per column list (cached plans keep theirs). */
const jsonProjections = new WeakMap<ProjectColumn[], JsonProjection>();

/**
 * How a node's result documents can be written as JSON straight from the stored document of
 * a single-collection row: `whole` for `*`, else the JsonProjection of its columns (whose
 * fallback is projectDocument itself); undefined over a join.
 */
export function jsonProjectionOf(node: ProjectNode): JsonProjection | 'whole' | undefined {
  if (node.sources.length !== 1) return undefined;
  const { columns } = node;
  if (columns === '*') return 'whole';
  let projection = jsonProjections.get(columns);
  if (!projection) {
    projection = new JsonProjection(
      node.keepId,
      columns.map((c) => ({ name: c.name, path: c.path.path })),
      (doc) => projectDocument(node, [doc]),
    );
    jsonProjections.set(columns, projection);
  }
  return projection;
}

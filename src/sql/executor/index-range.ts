/**
 * A range through a single-path index: the ids whose key lies between the bounds (of one
 * type; bounds of mixed types, null or JSON values select nothing), each once, then their
 * documents.
 */

import { idsForRange, type RangeBounds, type StoredDocument } from '../../storage/index.js';
import type { IndexRangeNode } from '../planner/index.js';
import { resolveValue } from '../semantics/index.js';
import { type ExecContext, requireCollection, requireReadyIndex } from './context.js';
import { bodyRead } from './selection.js';

const BOUND_KEYS = { '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' } as const;

/** The ids with an indexed value inside the node's bounds, in key order. */
export function rangeIds(node: IndexRangeNode, ctx: ExecContext): Iterable<Buffer> {
  const def = requireCollection(ctx.reader, node.collection);
  const index = requireReadyIndex(def, node.index.name);
  const bounds: RangeBounds = {};
  for (const bound of node.bounds) {
    bounds[BOUND_KEYS[bound.op]] = resolveValue(bound.value, ctx.params);
  }
  return idsForRange(ctx.reader, index, bounds);
}

/** The documents of `rangeIds`, in its order. */
export function* rangeDocuments(node: IndexRangeNode, ctx: ExecContext): Generator<StoredDocument> {
  const read = bodyRead(node, ctx, requireCollection(ctx.reader, node.collection));
  for (const id of rangeIds(node, ctx)) {
    const body = read(id);
    if (body) yield { id, body };
  }
}

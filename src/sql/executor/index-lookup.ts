/**
 * Equality through an index: the ids listed under each key tuple, each once, then their
 * documents. Its fast path is the point lookup: one non-null scalar key on a ready unique
 * index is one index get and one document get, without iterators.
 */

import { idForUniqueKey, idsForKeys, type StoredDocument } from '../../storage/index.js';
import { isScalar } from '../../util/index.js';
import type { IndexLookupNode } from '../planner/index.js';
import { resolveValue } from '../semantics/index.js';
import { type ExecContext, requireCollection, requireReadyIndex } from './context.js';
import { bodyRead } from './selection.js';

/**
 * The ids listed under the node's keys, each once, in key order then `_id` order. A key
 * holding an array or object finds nothing (indexes list scalars only; a SQL equality with
 * such a `?` was bound to a scan before it ran, see `planner/bind.ts`).
 */
export function lookupIds(node: IndexLookupNode, ctx: ExecContext): Iterable<Buffer> {
  const def = requireCollection(ctx.reader, node.collection);
  const index = requireReadyIndex(def, node.index.name);
  const tuples = node.keys.map((tuple) =>
    tuple.map((part) => ({
      value: resolveValue(part.value, ctx.params),
      nullMatches: part.nullMatches,
    })),
  );
  return idsForKeys(ctx.reader, index, tuples);
}

/** The documents of `lookupIds`, in its order. */
export function* lookupDocuments(
  node: IndexLookupNode,
  ctx: ExecContext,
): Generator<StoredDocument> {
  const read = bodyRead(node, ctx, requireCollection(ctx.reader, node.collection));
  for (const id of lookupIds(node, ctx)) {
    const body = read(id);
    if (body) yield { id, body };
  }
}

/**
 * The point lookup: the one document under a non-null scalar key of a ready unique index
 * (null when there is none), or undefined when the node is not a point lookup with these
 * parameters (the general path answers it).
 */
export function pointLookup(
  node: IndexLookupNode,
  ctx: ExecContext,
): StoredDocument | null | undefined {
  const id = pointLookupId(node, ctx);
  if (!id) return id;
  const body = bodyRead(node, ctx, requireCollection(ctx.reader, node.collection))(id);
  return body ? { id, body } : null;
}

/**
 * The id a point lookup finds (null when none), or undefined when the node is not a point
 * lookup with these parameters: for a caller that reads the document in its own form.
 */
export function pointLookupId(node: IndexLookupNode, ctx: ExecContext): Buffer | null | undefined {
  if (!node.index.unique || node.keys.length !== 1) return undefined;
  const tuple = (node.keys[0] as IndexLookupNode['keys'][number]).map((part) =>
    resolveValue(part.value, ctx.params),
  );
  if (tuple.some((v) => v === null || !isScalar(v))) return undefined;
  const def = requireCollection(ctx.reader, node.collection);
  return idForUniqueKey(ctx.reader, requireReadyIndex(def, node.index.name), tuple);
}

/**
 * Where the router sends a written document (ADR 0014): the owner of its shard-key value; a
 * document without one is refused, and a replacement may not move a document to another
 * owner. Also the small helpers of merged document answers. Pure but for `deleteIds`, which
 * undoes a write through a shard's client, and `insertOnce`, which tries an insert again.
 */

import { isDeepStrictEqual } from 'node:util';
import type { DocdbClient, Document } from '../client/index.js';
import type { InsertAnswer, NodeApi } from '../types/index.js';
import { dbError, isDbError } from '../errors/index.js';
import { formatId, newId, parsePath, valueAt } from '../util/index.js';
import type { ClusterConfig, ClusterShard, CollectionPlacement } from './config.js';
import { shardFor } from './hash.js';

export { keyTextValues } from '../util/index.js';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The shard-key value of a document of a hash collection; missing or not a scalar: 400. */
export function shardKeyOf(placement: CollectionPlacement & { strategy: 'hash' }, doc: Document) {
  const value = valueAt(doc, parsePath(placement.path));
  if (value === undefined || (value !== null && typeof value === 'object')) {
    const path = placement.path;
    throw value === undefined
      ? dbError('ERR_SHARD_KEY_MISSING', 'missing', { path }, { path })
      : dbError(
          'ERR_SHARD_KEY_MISSING',
          'notScalar',
          { path, kind: Array.isArray(value) ? 'array' : 'object' },
          { path },
        );
  }
  return value;
}

/** The shard that owns a document: its key's owner (hash), or the first shard (replicated). */
export function ownerOfDocument(
  config: ClusterConfig,
  placement: CollectionPlacement,
  doc: Document,
): ClusterShard {
  if (placement.strategy === 'replicated') return config.shards[0] as ClusterShard;
  return shardFor(shardKeyOf(placement, doc), config.shards);
}

/** Refuses a replacement whose shard key would belong to another shard than `holder`. */
export function keepsOwner(
  config: ClusterConfig,
  placement: CollectionPlacement,
  doc: Document,
  holder: ClusterShard,
): void {
  if (placement.strategy !== 'hash') return;
  const owner = ownerOfDocument(config, placement, doc);
  if (owner.name !== holder.name) {
    throw dbError(
      'ERR_SHARD_KEY_MISSING',
      'keyChanged',
      { path: placement.path, shard: owner.name },
      { path: placement.path },
    );
  }
}

/** Documents in `_id` order (the node's list order: ids are uuid v7 text, which sorts by time). */
export function byId(docs: Document[]): Document[] {
  return docs.sort((a, b) =>
    String(a._id) < String(b._id) ? -1 : String(a._id) > String(b._id) ? 1 : 0,
  );
}

/** Deletes documents by `_id` on one shard, to undo a write; a missing one is no error. */
/**
 * Inserts `doc`, which carries its `_id`. Tried `again` after an attempt that did not answer
 * (it may have stored the document), a document already under that `_id` and equal to `doc`
 * is that attempt's: the insert succeeded once. Any other holder is the usual 409.
 */
export async function insertOnce(
  client: Pick<NodeApi, 'insert' | 'getTagged'>,
  collection: string,
  doc: Document,
  again: boolean,
): Promise<InsertAnswer> {
  try {
    return await client.insert(collection, doc);
  } catch (error) {
    if (!again || !isDbError(error, 'ERR_DOCUMENT_ID_EXISTS')) throw error;
    const stored = await client.getTagged(collection, doc._id as string);
    if (!isDeepStrictEqual(stored?.doc, doc)) throw error;
    return { id: doc._id as string };
  }
}

export async function deleteIds(client: DocdbClient, collection: string, ids: readonly string[]) {
  for (const id of ids) {
    try {
      await client.delete(collection, id);
    } catch (error) {
      if (!isDbError(error, 'ERR_DOCUMENT_NOT_FOUND')) throw error;
    }
  }
}

/**
 * The documents of a write to a replicated collection, each with the `_id` every shard will
 * store it under (the router assigns one when the document has none), and those ids.
 */
export function withRouterIds(docs: readonly unknown[]): { docs: unknown[]; ids: string[] } {
  const withIds = docs.map((d) =>
    isPlainObject(d) ? { ...d, _id: d._id ?? formatId(newId()) } : d,
  );
  const ids = withIds.flatMap((d) =>
    isPlainObject(d) && typeof d._id === 'string' ? [d._id] : [],
  );
  return { docs: withIds, ids };
}

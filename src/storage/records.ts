/**
 * Point reads of stored records: a document body by id, a collection's last id and size, and
 * the ids under index keys. Each reads the committed state, or inside a write transaction
 * (`txn` given) that transaction's own trees.
 */

import * as crypto from 'node:crypto';
import { dbError } from '../errors/index.js';
import { formatId, ID_BYTES } from '../util/index.js';
import type { CollectionDef, IndexDef } from './catalog.js';
import type { FieldSelection, JsonProjection } from './codec/index.js';
import type { JsonKeep } from './reader.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import { namedTrees, type SubDb, treeStats, valueInPlace } from './lmdb-env.js';
import type { TxnState } from './txn-state.js';

/** Lowest possible id key; keys below it (none today) are reserved. */
export const ID_MIN = Buffer.alloc(ID_BYTES, 0);

/** Greater than every 16-byte id: the start of a reverse scan. */
export const ID_PAST_MAX = Buffer.alloc(ID_BYTES + 1, 0xff);

/**
 * An id read from an index entry: 16 bytes, or the entry is damaged (the Store names the
 * index, damage.ts). Used as a key, a longer one would make the engine throw its own error.
 */
function storedId(id: Buffer): Buffer {
  if (id.length !== ID_BYTES) {
    throw dbError('ERR_STORAGE_CORRUPT', 'indexEntryNotId', { bytes: id.length });
  }
  return id;
}

/** The tree of a collection or index. */
export function tree(ctx: StoreContext, name: string, txn?: TxnState): SubDb {
  return ctx.handles.get(name, txn?.handles);
}

/**
 * Opens every tree the catalog names (and each collection's scan handle) before reads depend
 * on them. lmdb-js opens a tree in a read transaction of its own and ends the one reads were
 * using, so a tree first opened in the middle of a read (the documents an index lookup leads
 * to, the other side of a join) broke that read's cursor with MDB_BAD_TXN; and a pinned
 * snapshot cannot read a tree first opened after it began. A tree that cannot be opened is
 * left to the read that needs it, which reports it (guardRead names the tree).
 */
export function openCatalogTrees(ctx: StoreContext): void {
  for (const def of ctx.catalog.all().values()) {
    for (const name of treesOf(def)) {
      try {
        ctx.handles.get(name);
        if (name === def.dbName) ctx.handles.scan(name);
      } catch {
        // Reported where it is read.
      }
    }
  }
}

/** A collection's trees: its documents', then each index's. */
function treesOf(def: CollectionDef): string[] {
  return [def.dbName, ...def.indexes.map((index) => index.dbName)];
}

/** The names the catalog gives a collection's or an index's tree. */
const TREE_NAME = /^[ci][0-9]+$/;

/**
 * The empty collection and index trees of the file that the catalog no longer names. A tree
 * dropped while a snapshot read it is only emptied, and deleted by a later write
 * (Handles.drop); a stop or a close in between leaves it so. Names are never given twice (the
 * catalog's nextDbId), so such a tree is no one's. One that is not empty (which no drop
 * leaves) or cannot be opened is left as it is.
 */
export function emptiedTrees(ctx: StoreContext): string[] {
  const named = new Set([...ctx.catalog.all().values()].flatMap(treesOf));
  return namedTrees(ctx.handles.env).filter((name) => {
    if (!TREE_NAME.test(name) || named.has(name)) return false;
    try {
      return treeStats(ctx.handles.get(name)).entries === 0;
    } catch {
      return false;
    }
  });
}

/** The stored body of a document, or undefined. */
export function getBody(
  ctx: StoreContext,
  def: CollectionDef,
  id: Buffer,
  txn?: TxnState,
): Document | undefined {
  const bytes = tree(ctx, def.dbName, txn).getBinaryFast(id);
  return bytes === undefined ? undefined : ctx.docs.decode<Document>(bytes);
}

/**
 * The values at the selected paths of a stored document, as a sparse copy (`valueAt` answers
 * each selected path as on the whole body), or undefined when there is no such document. A
 * row that reads three fields of a 500-byte order need not build the rest of it.
 */
export function getSelectedBody(
  ctx: StoreContext,
  def: CollectionDef,
  id: Buffer,
  selection: FieldSelection,
  txn?: TxnState,
): Document | undefined {
  const bytes = tree(ctx, def.dbName, txn).getBinaryFast(id);
  return bytes === undefined
    ? undefined
    : ctx.docs.decodeSelected<Document>(bytes, bytes.length, selection);
}

/**
 * A document's tag: a digest of its stored bytes. Node's one-shot `crypto.hash` (20.12 and
 * later) makes no Hash object per read, a third of the digest's cost; older 20.x hash alike.
 */
const tagOf: (bytes: Uint8Array) => string =
  typeof crypto.hash === 'function'
    ? (bytes) => crypto.hash('sha1', bytes, 'base64url')
    : (bytes) => crypto.createHash('sha1').update(bytes).digest('base64url');

/**
 * The stored body of a document with its tag, a digest of its stored bytes: the tag changes
 * whenever the document does, so a client can make a write conditional on the version it read
 * (HTTP `ETag` and `If-Match`). A tag means something on the node that gave it only.
 */
export function getTagged(
  ctx: StoreContext,
  def: CollectionDef,
  id: Buffer,
  txn?: TxnState,
): { body: Document; tag: string } | undefined {
  const bytes = valueInPlace(tree(ctx, def.dbName, txn), id);
  if (bytes === undefined) return undefined;
  const tag = tagOf(bytes);
  return { body: ctx.docs.decode<Document>(bytes), tag };
}

/**
 * The JSON text of a stored document as callers see it, `JSON.stringify(withId(id, body))`,
 * or of its projection: written from `bytes` by the transcoder, or where it gives up
 * decoded and stringified.
 */
export function documentJson(
  ctx: StoreContext,
  id: Buffer,
  bytes: Uint8Array,
  projection?: JsonProjection,
): string {
  const idText = formatId(id);
  const json = ctx.docs.documentJson(bytes, bytes.length, idText, projection);
  return json ?? decodedJson(ctx, id, bytes, projection);
}

/** `documentJson` the slow way, for bytes the transcoder leaves: decoded and stringified. */
export function decodedJson(
  ctx: StoreContext,
  id: Buffer,
  bytes: Uint8Array,
  projection?: JsonProjection,
): string {
  const doc = withId(id, ctx.docs.decode<Document>(bytes));
  return JSON.stringify(projection ? projection.project(doc) : doc);
}

/**
 * A document's JSON text (see `documentJson`), or undefined when there is none or it fails
 * `keep`'s test.
 */
export function getJson(
  ctx: StoreContext,
  def: CollectionDef,
  id: Buffer,
  projection?: JsonProjection,
  keep?: JsonKeep,
  txn?: TxnState,
): string | undefined {
  const bytes = tree(ctx, def.dbName, txn).getBinaryFast(id);
  if (bytes === undefined) return undefined;
  if (keep) {
    const part = ctx.docs.decodeSelected<Document>(bytes, bytes.length, keep.selection);
    if (!keep.test(part, id)) return undefined;
  }
  return documentJson(ctx, id, bytes, projection);
}

/** `getTagged` with the document as its JSON text, never decoded where the transcoder reads it. */
export function getTaggedJson(
  ctx: StoreContext,
  def: CollectionDef,
  id: Buffer,
  txn?: TxnState,
): { json: string; tag: string } | undefined {
  const bytes = valueInPlace(tree(ctx, def.dbName, txn), id);
  if (bytes === undefined) return undefined;
  const tag = tagOf(bytes);
  return { json: documentJson(ctx, id, bytes), tag };
}

/** True when the collection holds a document with this id. */
export function idExists(ctx: StoreContext, def: CollectionDef, id: Buffer, txn?: TxnState) {
  return tree(ctx, def.dbName, txn).getBinaryFast(id) !== undefined;
}

/** The first id stored after `after` (or the first of all), or undefined. */
export function nextId(ctx: StoreContext, def: CollectionDef, after: Buffer | undefined) {
  const start = after ? Buffer.concat([after, Buffer.from([0])]) : ID_MIN;
  for (const key of tree(ctx, def.dbName).getKeys({ start, limit: 1 })) return key as Buffer;
  return undefined;
}

/** The greatest id stored in a collection, or undefined when it is empty. */
export function lastId(ctx: StoreContext, def: CollectionDef, txn?: TxnState): Buffer | undefined {
  const db = tree(ctx, def.dbName, txn);
  for (const key of db.getKeys({ start: ID_PAST_MAX, reverse: true, limit: 1 })) return key;
  return undefined;
}

/** Number of documents, from LMDB's tree statistics (no scan). */
export function count(ctx: StoreContext, def: CollectionDef, txn?: TxnState): number {
  return treeStats(tree(ctx, def.dbName, txn)).entries;
}

/**
 * Ids of index entries whose key lies in [start, end), each once even for multikey
 * indexes. Callers recheck the documents: truncated keys can produce extra candidates.
 */
export function* indexIds(
  ctx: StoreContext,
  index: IndexDef,
  start: Buffer,
  end: Buffer,
  txn?: TxnState,
): Generator<Buffer> {
  const seen = index.multikey ? new Set<string>() : undefined;
  for (const { value: id } of tree(ctx, index.dbName, txn).getRange({ start, end })) {
    if (seen) {
      const text = id.toString('latin1');
      if (seen.has(text)) continue;
      seen.add(text);
    }
    yield storedId(id);
  }
}

/**
 * Ids listed under exactly one key of an index. Keys are whole encoded tuples (or their
 * truncated form), so equality needs no range scan: one get for a unique index, the key's
 * data items otherwise.
 */
export function* indexIdsForKey(
  ctx: StoreContext,
  index: IndexDef,
  key: Buffer,
  txn?: TxnState,
): Generator<Buffer> {
  if (index.unique) {
    const id = indexIdForUniqueKey(ctx, index, key, txn);
    if (id !== undefined) yield id;
    return;
  }
  for (const id of tree(ctx, index.dbName, txn).getValues(key)) yield storedId(id);
}

/** The id under one key of a unique index. */
export function indexIdForUniqueKey(
  ctx: StoreContext,
  index: IndexDef,
  key: Buffer,
  txn?: TxnState,
): Buffer | undefined {
  const id = tree(ctx, index.dbName, txn).get(key);
  return id === undefined ? undefined : storedId(id);
}

/** Attaches `_id` in front of a stored body, as callers see documents. */
export function withId(id: Buffer, body: Document): Document {
  return { _id: formatId(id), ...body };
}

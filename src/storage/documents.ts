/**
 * Document writes inside write transactions: inserts (id claims, unique checks, documents and
 * index entries in key order), replaces, deletes and collection drops, each keeping the
 * collection's ready indexes in step. None records a change-log entry: the write transaction
 * (write-txn.ts) records what the caller did, and a follower's apply writes the leader's.
 */

import { collectionNotFound, DbError, dbError } from '../errors/index.js';
import type { BulkResult } from '../types/index.js';

export type { BulkResult };

import { COLLECTIONS_MAX, formatId, newId } from '../util/index.js';
import type { CollectionDef } from './catalog.js';
import { compareBytes } from './codec/index.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import { type IndexValue, indexValues, type LiveIndex, sameValueKey } from './index-keys.js';
import {
  type IndexEntry,
  indexEntry,
  markStale,
  putEntries,
  readyIndexes,
  refuseUnchecked,
  removeEntries,
  replaceEntries,
  staleUniqueIndexes,
  uniqueTaken,
  uniqueViolation,
} from './indexes.js';
import { idExists, lastId, tree } from './records.js';
import { noteDocumentWrite, type TxnState } from './txn-state.js';
import { RollbackWith } from './write-queue.js';

/** A document ready to store: validated body, its encoding, and the id it should keep. */
/**
 * A document's stored form and the body it was encoded from. Prepare it in the write job that
 * stores it (`txn.prepareDocument`) when the caller's object may still change: the index
 * entries are made from `body` when the job runs, the stored bytes were made when it was
 * prepared.
 */
export interface PreparedDocument {
  body: Document;
  encoded: Buffer;
  id: Buffer | undefined;
}

/** Options of an insert. */
export interface InsertOptions {
  /** Any failing item fails the whole call (see insertDocuments). */
  atomic?: boolean;
  /** Write no index entries and mark the collection's indexes stale. */
  skipIndexes?: boolean;
  /** Throw the first item's error instead of reporting it. */
  throwFirst?: boolean;
  /**
   * A recorded change applied again (a follower, a restore): its writer made the checks, so a
   * stale unique index does not refuse it (`refuseUnchecked`).
   */
  replayed?: boolean;
}

/** A document of an insert that passed its checks, with its id in both forms. */
export interface AcceptedDocument {
  id: Buffer;
  text: string;
  doc: PreparedDocument;
}

/** The collection's record inside a write transaction, created on first use when `create`. */
export function collectionForWrite(
  ctx: StoreContext,
  txn: TxnState,
  name: string,
  create: boolean,
): CollectionDef | undefined {
  const existing = ctx.catalog.get(name, txn);
  if (existing || !create) return existing;
  if (ctx.catalog.all(txn).size >= COLLECTIONS_MAX) {
    throw dbError('ERR_COLLECTION_LIMIT', 'tooMany', { name, limit: COLLECTIONS_MAX });
  }
  const dbName = ctx.catalog.allocateName(txn, 'c');
  ctx.handles.create(dbName, txn.handles);
  const def: CollectionDef = { name, dbName, createdAt: new Date().toISOString(), indexes: [] };
  ctx.catalog.save(txn, def);
  return def;
}

/** The collection's record inside a write transaction, or ERR_COLLECTION_NOT_FOUND. */
export function requireForWrite(ctx: StoreContext, txn: TxnState, name: string): CollectionDef {
  const def = collectionForWrite(ctx, txn, name, false);
  if (!def) throw collectionNotFound(name, ctx.catalog.names(txn));
  return def;
}

/** What an insert stored, and what it reports. */
export interface InsertOutcome {
  result: BulkResult;
  accepted: AcceptedDocument[];
}

/**
 * Inserts prepared documents (the collection is created when missing). Each item is checked
 * (id, unique values against stored data and earlier items) before anything is written;
 * failing items are reported and skipped, or with `atomic` the whole call rolls back. Index
 * entries are written per index in key order, and documents with `append` when their ids
 * extend the collection.
 */
export function insertDocuments(
  ctx: StoreContext,
  txn: TxnState,
  collection: string,
  docs: Array<PreparedDocument | DbError>,
  options: InsertOptions = {},
): InsertOutcome {
  const def = collectionForWrite(ctx, txn, collection, true) as CollectionDef;
  const indexes = options.skipIndexes ? [] : readyIndexes(def);
  const unchecked = options.skipIndexes || options.replayed ? [] : staleUniqueIndexes(def);
  const result: BulkResult = { ids: [], errors: [] };
  const accepted: AcceptedDocument[] = [];
  const entries: IndexEntry[][] = indexes.map(() => []);
  const batchUnique = indexes.map(() => new Set<string>());
  const storedLast = lastId(ctx, def, txn);
  const claims: IdClaims = { highest: storedLast, given: [], seen: undefined };
  docs.forEach((doc, position) => {
    try {
      if (doc instanceof DbError) throw doc;
      refuseUnchecked(def, unchecked, undefined, doc.body);
      const id = claimId(ctx, txn, def, doc.id, claims);
      checkIndexKeys(ctx, txn, def, indexes, doc, id, batchUnique, entries);
      const text = formatId(id);
      accepted.push({ id, text, doc });
      result.ids.push(text);
    } catch (error) {
      if (!(error instanceof DbError) || options.throwFirst) throw error;
      result.errors.push({ index: position, error: error.message, code: error.code });
    }
  });
  if (options.atomic && result.errors.length > 0) {
    // Roll back the whole job (a collection it created included), yet resolve with the report.
    throw new RollbackWith<BulkResult>({ ids: [], errors: result.errors });
  }
  writeAccepted(ctx, txn, def, indexes, accepted, entries, storedLast);
  if (options.skipIndexes && def.indexes.some((i) => i.state === 'ready') && accepted.length) {
    markStale(ctx, txn, def);
  }
  return { result, accepted };
}

/** The ids an insert claimed so far (see claimId). */
interface IdClaims {
  /** The greatest id stored or claimed: a given id above it is new without a lookup. */
  highest: Buffer | undefined;
  /** Every given id claimed, in order. */
  given: Buffer[];
  /** Their hex forms, built when an id first arrives out of order. */
  seen: Set<string> | undefined;
}

/**
 * Claims a given id for a new document (or makes one). A given id above every id stored or
 * claimed so far needs no lookup: ids from newId and most loads arrive in increasing order.
 */
function claimId(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  given: Buffer | undefined,
  claims: IdClaims,
): Buffer {
  if (!given) return newId();
  claims.given.push(given);
  if (claims.highest === undefined || given.compare(claims.highest) > 0) {
    claims.highest = given;
    claims.seen?.add(given.toString('hex'));
    return given;
  }
  // Out of order: check against the batch's earlier ids and the stored documents.
  const text = given.toString('hex');
  if (!claims.seen) {
    claims.seen = new Set();
    for (let i = 0; i < claims.given.length - 1; i++) {
      claims.seen.add((claims.given[i] as Buffer).toString('hex'));
    }
  }
  if (claims.seen.has(text) || idExists(ctx, def, given, txn)) {
    throw dbError(
      'ERR_DOCUMENT_ID_EXISTS',
      'exists',
      { id: formatId(given), collection: def.name },
      { _id: formatId(given) },
    );
  }
  claims.seen.add(text);
  return given;
}

/**
 * Computes a document's index entries and checks its unique values against stored data and
 * earlier items; only when every check passes are the entries added to `entries`.
 */
function checkIndexKeys(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  indexes: LiveIndex[],
  doc: PreparedDocument,
  id: Buffer,
  batchUnique: Set<string>[],
  entries: IndexEntry[][],
): void {
  const found: IndexValue[][] = [];
  let claims: Array<[Set<string>, string]> | undefined;
  for (let i = 0; i < indexes.length; i++) {
    const index = indexes[i] as LiveIndex;
    const values = indexValues(index, doc.body);
    if (index.def.unique) {
      for (const value of values) {
        if (value.hasNull) continue;
        const text = sameValueKey(value);
        const seen = batchUnique[i] as Set<string>;
        if (seen.has(text) || uniqueTaken(ctx, txn, def, index, value)) {
          throw uniqueViolation(def, index, value.tuple);
        }
        claims ??= [];
        claims.push([seen, text]);
      }
    }
    found.push(values);
  }
  if (claims) for (const [seen, text] of claims) seen.add(text);
  for (let i = 0; i < found.length; i++) {
    const list = entries[i] as IndexEntry[];
    for (const value of found[i] as IndexValue[]) list.push(indexEntry(value.bytes, id));
  }
}

/**
 * Writes accepted documents and their index entries. Documents go in id order, with
 * `append` when they extend the collection (`storedLast` is its greatest id).
 */
function writeAccepted(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  indexes: LiveIndex[],
  accepted: AcceptedDocument[],
  entries: IndexEntry[][],
  storedLast: Buffer | undefined,
): void {
  if (accepted.length === 0) return;
  const db = tree(ctx, def.dbName, txn);
  const ascending = idsAscending(accepted);
  const ordered = ascending ? accepted : [...accepted].sort((a, b) => a.id.compare(b.id));
  const first = (ordered[0] as AcceptedDocument).id;
  const putOptions = { append: !storedLast || first.compare(storedLast) > 0 };
  for (const item of ordered) {
    db.putSync(item.id, item.doc.encoded, putOptions);
    noteDocumentWrite(txn, def.dbName, item.id, item.doc.encoded);
  }
  indexes.forEach((index, i) => {
    putEntries(tree(ctx, index.def.dbName, txn), entries[i] as IndexEntry[], ascending);
  });
}

function idsAscending(accepted: AcceptedDocument[]): boolean {
  for (let i = 1; i < accepted.length; i++) {
    const previous = (accepted[i - 1] as AcceptedDocument).id;
    if (compareBytes(previous, (accepted[i] as AcceptedDocument).id) >= 0) return false;
  }
  return true;
}

/** The stored document with `id`, with its collection, or undefined. */
function stored(
  ctx: StoreContext,
  txn: TxnState,
  collection: string,
  id: Buffer,
): { def: CollectionDef; old: Document } | undefined {
  const def = collectionForWrite(ctx, txn, collection, false);
  if (!def) return undefined;
  const bytes = tree(ctx, def.dbName, txn).getBinaryFast(id);
  return bytes === undefined ? undefined : { def, old: ctx.docs.decode<Document>(bytes) };
}

/**
 * Replaces the document with `id`, keeping the id. Returns false when it does not exist.
 * `replayed` as for inserts.
 */
export function replaceDocument(
  ctx: StoreContext,
  txn: TxnState,
  collection: string,
  id: Buffer,
  doc: PreparedDocument,
  { replayed = false }: { replayed?: boolean } = {},
): boolean {
  const found = stored(ctx, txn, collection, id);
  if (!found) return false;
  if (!replayed) refuseUnchecked(found.def, staleUniqueIndexes(found.def), found.old, doc.body);
  replaceEntries(ctx, txn, found.def, id, found.old, doc.body);
  tree(ctx, found.def.dbName, txn).putSync(id, doc.encoded);
  noteDocumentWrite(txn, found.def.dbName, id, doc.encoded);
  return true;
}

/** Deletes the document with `id`. Returns false when it does not exist. */
export function deleteDocument(
  ctx: StoreContext,
  txn: TxnState,
  collection: string,
  id: Buffer,
): boolean {
  const found = stored(ctx, txn, collection, id);
  if (!found) return false;
  removeEntries(ctx, txn, found.def, id, found.old);
  tree(ctx, found.def.dbName, txn).removeSync(id);
  noteDocumentWrite(txn, found.def.dbName, id, null);
  return true;
}

/** Drops a collection with its indexes. Returns false when it does not exist. */
export function dropCollection(ctx: StoreContext, txn: TxnState, collection: string): boolean {
  const def = collectionForWrite(ctx, txn, collection, false);
  if (!def) return false;
  for (const index of def.indexes) ctx.handles.drop(index.dbName, txn.handles);
  ctx.handles.drop(def.dbName, txn.handles);
  ctx.catalog.remove(txn, def.name);
  return true;
}

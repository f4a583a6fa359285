/**
 * Index trees inside write transactions: the entries a document write adds and removes,
 * unique checks against stored entries, and creating, building, dropping, rebuilding and
 * marking indexes stale. Each function takes the transaction it writes in; none records a
 * change-log entry (the caller does, or applies a leader's).
 */

import { type DbError, dbError } from '../errors/index.js';
import { INDEXES_PER_COLLECTION_MAX } from '../util/index.js';
import { type CheckedIndexSpec, type CollectionDef, findIndex, type IndexDef } from './catalog.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import {
  type IndexValue,
  indexTuples,
  indexValues,
  type LiveIndex,
  liveIndex,
  sameValueKey,
  sameValues,
} from './index-keys.js';
import type { SubDb } from './lmdb-env.js';
import { getBody, ID_MIN, tree } from './records.js';
import { type IndexEntry, indexEntry, sortEntries } from './sort-entries.js';
import type { TxnState } from './txn-state.js';

export { type IndexEntry, indexEntry };

/** The clause that ends the message of a write that stored nothing (ERR_UNIQUE_VIOLATION's template ends with it too). */
export const NOTHING_STORED = 'nothing of this write was stored';

/** Parsed forms of index definitions; a definition is immutable, so it is its own key. */
const parsed = new WeakMap<IndexDef, LiveIndex>();

/** The collection's indexes with their paths parsed (ready and stale). */
function liveIndexes(def: CollectionDef): LiveIndex[] {
  return def.indexes.map((index) => {
    let live = parsed.get(index);
    if (!live) {
      live = liveIndex(index);
      parsed.set(index, live);
    }
    return live;
  });
}

/** The indexes a write maintains: the ready ones (stale ones wait for a rebuild). */
export function readyIndexes(def: CollectionDef): LiveIndex[] {
  return liveIndexes(def).filter((i) => i.def.state === 'ready');
}

/**
 * True when a document other than `self` holds the same complete value in a unique index.
 * One exact get answers it, except for truncated keys, whose holders are rechecked.
 */
export function uniqueTaken(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  index: LiveIndex,
  value: IndexValue,
  self?: Buffer,
): boolean {
  const db = tree(ctx, index.def.dbName, txn);
  if (!value.truncated) {
    const first = db.getBinaryFast(value.bytes);
    if (first === undefined) return false;
    if (!self || !first.equals(self)) return true;
    return db.getValuesCount(value.bytes) > 1;
  }
  const wanted = sameValueKey(value);
  for (const holder of db.getValues(value.bytes)) {
    if (self?.equals(holder)) continue;
    const body = getBody(ctx, def, holder, txn);
    if (!body) continue;
    for (const tuple of indexTuples(index, body)) {
      if (sameValueKey({ ...value, tuple }) === wanted) return true;
    }
  }
  return false;
}

export function uniqueViolation(def: CollectionDef, index: LiveIndex, tuple: unknown[]): DbError {
  const paths = index.def.paths.join(', ');
  const shown = tuple.map((v) => JSON.stringify(v)).join(', ');
  return dbError(
    'ERR_UNIQUE_VIOLATION',
    'duplicate',
    { index: index.def.name, collection: def.name, paths, shown },
    { index: index.def.name, collection: def.name, paths: index.def.paths, value: tuple },
  );
}

/**
 * The unique indexes a `skipIndexes` load left stale. They hold no entries for the loaded
 * documents, so a value written to one cannot be checked: see `refuseUnchecked`.
 */
export function staleUniqueIndexes(def: CollectionDef): LiveIndex[] {
  // Asked on every insert and replace: a collection with none (nearly all) parses nothing.
  if (!def.indexes.some((i) => i.unique && i.state === 'stale')) return [];
  return liveIndexes(def).filter((i) => i.def.unique && i.def.state === 'stale');
}

/**
 * Refuses a write that would add a value to a stale unique index (one the document did not
 * hold before; a value with a null is never checked, as in `uniqueTaken`'s callers): a
 * duplicate written now would pass unseen and make the rebuild fail. Loads that skip indexes
 * and deletes go on; a rebuild makes the index ready and these writes checked again.
 */
export function refuseUnchecked(
  def: CollectionDef,
  stale: LiveIndex[],
  old: Document | undefined,
  next: Document,
): void {
  for (const index of stale) {
    const held = old && new Set(indexValues(index, old).map(sameValueKey));
    for (const value of indexValues(index, next)) {
      if (value.hasNull || held?.has(sameValueKey(value))) continue;
      const shown = value.tuple.map((v) => JSON.stringify(v)).join(', ');
      throw dbError(
        'ERR_INDEX_STALE',
        'uniqueUnchecked',
        { index: index.def.name, collection: def.name, paths: index.def.paths.join(', '), shown },
        { index: index.def.name, collection: def.name, paths: index.def.paths, value: value.tuple },
      );
    }
  }
}

/**
 * Writes index entries sorted by key, then id: LMDB fills pages in order. When the entries
 * come in increasing id order (`idsAscending`), their order among equal keys is kept.
 */
export function putEntries(db: SubDb, entries: IndexEntry[], idsAscending: boolean): void {
  for (const entry of sortEntries(entries, idsAscending)) db.putSync(entry.key, entry.id);
}

/**
 * Moves a document's entries from its old body to its new one in every ready index,
 * checking unique indexes first for each value the document did not hold before. Checks
 * and writes interleave index by index: a violation throws and the job's rollback undoes
 * what was written.
 */
export function replaceEntries(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  id: Buffer,
  old: Document,
  next: Document,
): void {
  for (const index of readyIndexes(def)) {
    const before = indexValues(index, old);
    const after = indexValues(index, next);
    // Most replaces leave most indexes' values as they were: nothing to check or move.
    if (sameValues(before, after)) continue;
    // Entries are keyed by (possibly truncated) bytes; uniqueness is about whole values.
    const beforeBytes = new Set(before.map((v) => v.bytes.toString('latin1')));
    const afterBytes = new Set(after.map((v) => v.bytes.toString('latin1')));
    const beforeValues = new Set(before.map(sameValueKey));
    const idb = tree(ctx, index.def.dbName, txn);
    for (const value of after) {
      const isNew = !beforeValues.has(sameValueKey(value));
      if (
        isNew &&
        index.def.unique &&
        !value.hasNull &&
        uniqueTaken(ctx, txn, def, index, value, id)
      ) {
        throw uniqueViolation(def, index, value.tuple);
      }
      if (!beforeBytes.has(value.bytes.toString('latin1'))) idb.putSync(value.bytes, id);
    }
    for (const value of before) {
      if (!afterBytes.has(value.bytes.toString('latin1'))) idb.removeSync(value.bytes, id);
    }
  }
}

/** Removes a document's entries from every ready index. */
export function removeEntries(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  id: Buffer,
  old: Document,
): void {
  for (const index of readyIndexes(def)) {
    const idb = tree(ctx, index.def.dbName, txn);
    for (const value of indexValues(index, old)) idb.removeSync(value.bytes, id);
  }
}

/** Creates an index on a collection and builds it from the documents; returns its definition. */
export function createIndex(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  spec: CheckedIndexSpec,
): IndexDef {
  if (findIndex(def, spec.name)) {
    throw dbError(
      'ERR_INDEX_EXISTS',
      'exists',
      { collection: def.name, index: spec.name },
      { index: spec.name },
    );
  }
  if (def.indexes.length >= INDEXES_PER_COLLECTION_MAX) {
    throw dbError('ERR_INDEX_LIMIT', 'tooMany', {
      collection: def.name,
      count: def.indexes.length,
    });
  }
  const dbName = ctx.catalog.allocateName(txn, 'i');
  ctx.handles.create(dbName, txn.handles);
  const index: IndexDef = {
    name: spec.name,
    paths: spec.paths.map((p) => p.text),
    unique: spec.unique,
    multikey: spec.multikey,
    state: 'ready',
    dbName,
    createdAt: new Date().toISOString(),
  };
  buildIndex(ctx, txn, def, liveIndex(index));
  ctx.catalog.save(txn, { ...def, indexes: [...def.indexes, index] });
  return index;
}

/** Fills an empty index tree from every document, in key order. */
function buildIndex(ctx: StoreContext, txn: TxnState, def: CollectionDef, index: LiveIndex) {
  const entries: IndexEntry[] = [];
  const seen = new Set<string>();
  for (const { key, value } of tree(ctx, def.dbName, txn).getRange({ start: ID_MIN })) {
    const body = ctx.docs.decode<Document>(value);
    const id = Buffer.from(key);
    for (const v of indexValues(index, body)) {
      if (index.def.unique && !v.hasNull) {
        const text = sameValueKey(v);
        if (seen.has(text)) throw uniqueViolation(def, index, v.tuple);
        seen.add(text);
      }
      entries.push(indexEntry(v.bytes, id));
    }
  }
  // Documents come in id order, and so do the entries made from them.
  putEntries(tree(ctx, index.def.dbName, txn), entries, true);
}

/** The index of that name (case-insensitive), or ERR_INDEX_NOT_FOUND listing the others. */
function requireIndex(def: CollectionDef, name: string): IndexDef {
  const index = findIndex(def, name);
  if (!index) {
    const known = def.indexes.map((i) => i.name).join(', ') || 'none';
    throw dbError(
      'ERR_INDEX_NOT_FOUND',
      'noIndex',
      { collection: def.name, index: name, known },
      { index: name },
    );
  }
  return index;
}

/** Drops an index by name (case-insensitive); returns its definition. */
export function dropIndex(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  name: string,
): IndexDef {
  const index = requireIndex(def, name);
  ctx.handles.drop(index.dbName, txn.handles);
  ctx.catalog.save(txn, { ...def, indexes: def.indexes.filter((i) => i !== index) });
  return index;
}

/** Rebuilds the named indexes (all when `names` is undefined) and marks them ready. */
export function rebuildIndexes(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  names?: string[],
): IndexDef[] {
  const chosen = names ? names.map((n) => requireIndex(def, n)) : def.indexes;
  const rebuilt = new Map<IndexDef, IndexDef>();
  for (const index of chosen) {
    tree(ctx, index.dbName, txn).clearSync();
    const fresh: IndexDef = { ...index, state: 'ready' };
    buildIndex(ctx, txn, def, liveIndex(fresh));
    rebuilt.set(index, fresh);
  }
  ctx.catalog.save(txn, { ...def, indexes: def.indexes.map((i) => rebuilt.get(i) ?? i) });
  return [...rebuilt.values()];
}

/**
 * Marks a collection's indexes stale: every one (a load that skipped them), or those named in
 * `names` (a snapshot load, for the indexes its leader held stale).
 */
export function markStale(
  ctx: StoreContext,
  txn: TxnState,
  def: CollectionDef,
  names?: ReadonlySet<string>,
): void {
  ctx.catalog.save(txn, {
    ...def,
    indexes: def.indexes.map((i) =>
      names && !names.has(i.name) ? i : { ...i, state: 'stale' as const },
    ),
  });
}

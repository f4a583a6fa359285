/**
 * What the query layers read through: the committed state of the file, or a write job's own
 * view of it (its uncommitted writes included). Callers above storage type their reads
 * against this interface, never against the Store, so the same executor serves a read
 * request and the find step of an UPDATE inside its write transaction.
 */

import type { CollectionDef, IndexDef } from './catalog.js';
import type { FieldSelection, JsonProjection } from './codec/index.js';
import type { Document } from './document-check.js';

/**
 * A test a document must pass before its JSON is written: `test` runs on the sparse copy of
 * `selection` (what WHERE reads), so a rejected document is never decoded whole.
 */
export interface JsonKeep {
  selection: FieldSelection;
  test: (part: Document, id: Buffer) => boolean;
}

/** A stored document before `_id` is attached to its body. */
export interface StoredDocument {
  id: Buffer;
  body: Document;
}

export interface StoreReader {
  /** The definition of a collection (canonical name), if it exists. */
  getCollection(name: string): CollectionDef | undefined;
  /** Canonical names of every collection, sorted. */
  collectionNames(): string[];
  /** Number of documents, from LMDB's tree statistics (no scan). */
  count(def: CollectionDef): number;
  /** The stored body of a document, or undefined. */
  getBody(def: CollectionDef, id: Buffer): Document | undefined;
  /**
   * The values at the selected paths of a stored document (a sparse copy that answers
   * `valueAt` on each of them as the whole body would), or undefined.
   */
  getSelected(def: CollectionDef, id: Buffer, selection: FieldSelection): Document | undefined;
  /**
   * The JSON text of a document with its `_id` (or of its projection), exactly what
   * `JSON.stringify` of it gives, written from the stored bytes; undefined when none.
   */
  getJson(
    def: CollectionDef,
    id: Buffer,
    projection?: JsonProjection,
    keep?: JsonKeep,
  ): string | undefined;
  /** Documents in id order, starting after `afterId` when given. */
  scan(def: CollectionDef, afterId?: Buffer): Iterable<StoredDocument>;
  /**
   * Documents in id order, decoding from each only the `selection`: `keep` tests it, and a
   * kept document is yielded whole when `whole`, else as the selection (enough for
   * `valueAt` on every selected path).
   */
  scanSelected(
    def: CollectionDef,
    selection: FieldSelection,
    keep: ((part: Document) => boolean) | undefined,
    whole: boolean,
  ): Iterable<StoredDocument>;
  /** Ids of index entries whose key lies in [start, end), each once (multikey included). */
  indexIds(index: IndexDef, start: Buffer, end: Buffer): Iterable<Buffer>;
  /** Ids listed under exactly one key of an index. */
  indexIdsForKey(index: IndexDef, key: Buffer): Iterable<Buffer>;
  /** The id under one key of a unique index. */
  indexIdForUniqueKey(index: IndexDef, key: Buffer): Buffer | undefined;
}

/**
 * The handle a write job gets: one atomic write inside the batch's transaction. Its writes
 * (documents, indexes, collections) record their change-log entries as they go; its reads see
 * its own writes. The store passes it to every job and applies its state once the batch
 * commits; nothing else can write.
 */

import { type DbError, dbError } from '../errors/index.js';
import { DOCUMENT_BYTES_MAX, formatId } from '../util/index.js';
import type { CheckedIndexSpec, CollectionDef, IndexDef } from './catalog.js';
import type { FieldSelection, JsonProjection, Structure } from './codec/index.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import {
  type BulkResult,
  collectionForWrite,
  deleteDocument,
  dropCollection,
  type InsertOptions,
  insertDocuments,
  type PreparedDocument,
  replaceDocument,
  requireForWrite,
} from './documents.js';
import { createIndex, dropIndex, rebuildIndexes } from './indexes.js';
import { type CompactedTrees, compactTrees } from './maintenance.js';
import type { JsonKeep, StoredDocument, StoreReader } from './reader.js';
import {
  count,
  getBody,
  getJson,
  getSelectedBody,
  getTagged,
  indexIdForUniqueKey,
  indexIds,
  indexIdsForKey,
} from './records.js';
import type { Scans } from './scans.js';
import type { TxnState } from './txn-state.js';

/** Encodes a validated body for storage; enforces the document size limit. */
export function prepareDocument(
  ctx: StoreContext,
  body: Document,
  id: Buffer | undefined,
  persist: (structures: Structure[]) => void,
): PreparedDocument {
  const encoded = ctx.docs.encode(body, persist);
  if (encoded.length > DOCUMENT_BYTES_MAX) {
    throw dbError(
      'ERR_DOCUMENT_TOO_LARGE',
      'tooLarge',
      { bytes: encoded.length, limit: DOCUMENT_BYTES_MAX },
      { bytes: encoded.length, limit: DOCUMENT_BYTES_MAX },
    );
  }
  return { body, encoded, id };
}

export class WriteTxn implements StoreReader {
  constructor(
    private readonly ctx: StoreContext,
    private readonly scans: Scans,
    /** What this transaction changed; the store commits it. */
    readonly state: TxnState,
  ) {}

  // ---- writes -------------------------------------------------------------------------

  /**
   * Encodes a body inside this write: a new shared structure is stored in this transaction
   * (and forgotten if it rolls back).
   */
  prepareDocument(body: Document, id: Buffer | undefined): PreparedDocument {
    return prepareDocument(this.ctx, body, id, (structures) =>
      this.ctx.catalog.saveStructures(this.state, structures),
    );
  }

  /**
   * True once this job wrote something the change log records: the writes a client waits for
   * its followers on (the engine's commit barrier, write-gate.ts).
   */
  get logsChanges(): boolean {
    return this.state.pending.length > 0;
  }

  /**
   * Inserts prepared documents (the collection is created when missing): per-item errors,
   * or with `atomic` all or nothing. One change-log entry holds every document stored.
   */
  insertDocuments(
    collection: string,
    docs: Array<PreparedDocument | DbError>,
    options: InsertOptions = {},
  ): BulkResult {
    const { result, accepted } = insertDocuments(this.ctx, this.state, collection, docs, options);
    if (accepted.length > 0) {
      this.ctx.log.record(this.state, {
        op: 'insert',
        collection,
        documents: accepted.map((a) => ({ id: a.text, doc: a.doc.encoded })),
        ...(options.skipIndexes && { skipIndexes: true as const }),
      });
      this.state.written.insert += accepted.length;
    }
    return result;
  }

  /** Replaces the document with `id`, keeping the id. Returns false when it does not exist. */
  replaceDocument(collection: string, id: Buffer, doc: PreparedDocument): boolean {
    if (!replaceDocument(this.ctx, this.state, collection, id, doc)) return false;
    this.ctx.log.record(this.state, {
      op: 'replace',
      collection,
      id: formatId(id),
      doc: doc.encoded,
    });
    this.state.written.replace++;
    return true;
  }

  /** Deletes the document with `id`. Returns false when it does not exist. */
  deleteDocument(collection: string, id: Buffer): boolean {
    if (!deleteDocument(this.ctx, this.state, collection, id)) return false;
    this.ctx.log.record(this.state, { op: 'delete', collection, id: formatId(id) });
    this.state.written.delete++;
    return true;
  }

  /** Drops a collection with its indexes. Returns false when it does not exist. */
  dropCollection(collection: string): boolean {
    if (!dropCollection(this.ctx, this.state, collection)) return false;
    this.ctx.log.record(this.state, { op: 'dropCollection', collection });
    return true;
  }

  /** Creates an index and builds it from the collection's documents (created if missing). */
  createIndex(collection: string, spec: CheckedIndexSpec): IndexDef {
    const def = collectionForWrite(this.ctx, this.state, collection, true) as CollectionDef;
    const index = createIndex(this.ctx, this.state, def, spec);
    this.ctx.log.record(this.state, {
      op: 'createIndex',
      collection: def.name,
      index: { name: index.name, paths: index.paths, unique: index.unique },
    });
    return index;
  }

  /** Drops an index by name (case-insensitive). Returns the dropped definition. */
  dropIndex(collection: string, name: string): IndexDef {
    const def = requireForWrite(this.ctx, this.state, collection);
    const index = dropIndex(this.ctx, this.state, def, name);
    this.ctx.log.record(this.state, { op: 'dropIndex', collection: def.name, name: index.name });
    return index;
  }

  /** Rebuilds the named indexes (all when `names` is undefined) and marks them ready. */
  rebuildIndexes(collection: string, names?: string[]): IndexDef[] {
    const def = requireForWrite(this.ctx, this.state, collection);
    const rebuilt = rebuildIndexes(this.ctx, this.state, def, names);
    this.ctx.log.record(this.state, {
      op: 'rebuildIndexes',
      collection: def.name,
      names: rebuilt.map((i) => i.name),
    });
    return rebuilt;
  }

  /**
   * Rewrites a collection's documents and index entries into fresh trees and drops the old
   * ones, releasing their pages to LMDB's free list (maintenance.ts); Store.compactResult
   * measures what it reclaimed.
   */
  compactCollection(collection: string): CompactedTrees {
    return compactTrees(this.ctx, this.state, collection);
  }

  // ---- reads of this transaction's state ---------------------------------------------

  getCollection(name: string): CollectionDef | undefined {
    return this.ctx.catalog.get(name, this.state);
  }

  collectionNames(): string[] {
    return this.ctx.catalog.names(this.state);
  }

  count(def: CollectionDef): number {
    return count(this.ctx, def, this.state);
  }

  getBody(def: CollectionDef, id: Buffer): Document | undefined {
    return getBody(this.ctx, def, id, this.state);
  }

  getSelected(def: CollectionDef, id: Buffer, selection: FieldSelection): Document | undefined {
    return getSelectedBody(this.ctx, def, id, selection, this.state);
  }

  getJson(
    def: CollectionDef,
    id: Buffer,
    projection?: JsonProjection,
    keep?: JsonKeep,
  ): string | undefined {
    return getJson(this.ctx, def, id, projection, keep, this.state);
  }

  /** A document's body with its tag (see records.getTagged), or undefined. */
  getTagged(def: CollectionDef, id: Buffer): { body: Document; tag: string } | undefined {
    return getTagged(this.ctx, def, id, this.state);
  }

  scan(def: CollectionDef, afterId?: Buffer): Iterable<StoredDocument> {
    return this.scans.scan(def, afterId, this.state);
  }

  scanSelected(
    def: CollectionDef,
    selection: FieldSelection,
    keep: ((part: Document) => boolean) | undefined,
    whole: boolean,
  ): Iterable<StoredDocument> {
    return this.scans.scanSelected(def, selection, keep, whole, this.state);
  }

  indexIds(index: IndexDef, start: Buffer, end: Buffer): Iterable<Buffer> {
    return indexIds(this.ctx, index, start, end, this.state);
  }

  indexIdsForKey(index: IndexDef, key: Buffer): Iterable<Buffer> {
    return indexIdsForKey(this.ctx, index, key, this.state);
  }

  indexIdForUniqueKey(index: IndexDef, key: Buffer): Buffer | undefined {
    return indexIdForUniqueKey(this.ctx, index, key, this.state);
  }
}

/**
 * A collection handle of the embedded API. It validates input, prepares documents outside
 * the write path (encoding is the costly part) and hands writes to the store's group commit.
 * Handles are cheap; a handle to a collection that does not exist yet creates it on the
 * first insert.
 */

import { DbError, dbError } from '../errors/index.js';
import {
  type BulkResult,
  type CheckedDocument,
  type CollectionDef,
  checkDocument,
  checkIndexSpec,
  type Document,
  type IndexDef,
  type IndexSpec,
  type PreparedDocument,
  type RangeBounds,
  type Store,
  type StoreWriter,
  type WriteTxn,
  withId,
} from '../storage/index.js';
import { type QueryLimits, StatementBudget } from '../sql/index.js';
import type { IndexInfo, JsonText, WriteCondition } from '../types/index.js';
import {
  BULK_DOCUMENTS_MAX,
  formatId,
  jsonText,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  parseId,
} from '../util/index.js';
import { type FindOptions, type FindResult, findByValues, findWithin, runFindAny } from './find.js';

/** Options of insertMany. */
export interface InsertManyOptions {
  /** All-or-nothing: any failing item leaves nothing written. */
  atomic?: boolean;
  /** Cold load: skip index maintenance and mark the collection's indexes stale. */
  skipIndexes?: boolean;
}

export type { IndexInfo, WriteCondition };

/** Options of createIndex: the paths, plus an optional name and the unique flag. */
export interface CreateIndexOptions extends IndexSpec {}

function requireId(id: unknown): Buffer {
  const bytes = parseId(id);
  if (!bytes) {
    throw dbError(
      'ERR_DOCUMENT_ID_INVALID',
      'notUuidId',
      { id: JSON.stringify(id) },
      {
        _id: id,
      },
    );
  }
  return bytes;
}

/**
 * A checked document's stored form, made in the write job from the object as it is then: its
 * bytes and its index entries come from the same state even when the caller changes its object
 * after asking for the write (a write not awaited, its object reused). A document that cannot
 * be stored comes back as its error.
 */
function prepareIn(txn: WriteTxn, doc: CheckedDocument | DbError): PreparedDocument | DbError {
  if (doc instanceof DbError) return doc;
  try {
    return txn.prepareDocument(doc.body, doc.id);
  } catch (error) {
    if (error instanceof DbError) return error;
    throw error;
  }
}

/** Checks a document now (its shape and `_id`), or gives its error. */
function checked(doc: unknown): CheckedDocument | DbError {
  try {
    return checkDocument(doc);
  } catch (error) {
    if (error instanceof DbError) return error;
    throw error;
  }
}

function indexInfo(index: IndexDef): IndexInfo {
  return {
    name: index.name,
    paths: index.paths,
    unique: index.unique,
    multikey: index.multikey,
    state: index.state,
  };
}

export class Collection {
  /** The canonical (lowercase) name. */
  readonly name: string;

  constructor(
    private readonly store: Store,
    /** Where its writes go: through the database's write gate. */
    private readonly writer: StoreWriter,
    name: string,
    private readonly notFound: (name: string) => DbError,
  ) {
    this.name = name;
  }

  private def(): CollectionDef | undefined {
    return this.store.getCollection(this.name);
  }

  private requireDef(): CollectionDef {
    const def = this.def();
    if (!def) throw this.notFound(this.name);
    return def;
  }

  /** True once the collection exists in the data file. */
  exists(): boolean {
    return this.def() !== undefined;
  }

  /** Inserts one document; resolves with its `_id` once the write is durable. */
  async insert(doc: unknown): Promise<string> {
    const { body, id } = checkDocument(doc);
    const result = await this.writer.write((txn) =>
      txn.insertDocuments(this.name, [txn.prepareDocument(body, id)], { throwFirst: true }),
    );
    return result.ids[0] as string;
  }

  /**
   * Inserts many documents in one durable commit. Returns the id of every inserted document
   * and an error per failed one (by position); with `atomic`, any failure inserts nothing.
   */
  async insertMany(docs: unknown[], options: InsertManyOptions = {}): Promise<BulkResult> {
    if (!Array.isArray(docs)) {
      throw dbError('ERR_BAD_ARGUMENT', 'insertManyArray');
    }
    if (docs.length > BULK_DOCUMENTS_MAX) {
      throw dbError('ERR_BULK_TOO_LARGE', 'tooMany', {
        limit: BULK_DOCUMENTS_MAX,
        count: docs.length,
      });
    }
    const checkedDocs = docs.map(checked);
    return this.writer.write((txn) =>
      txn.insertDocuments(
        this.name,
        checkedDocs.map((doc) => prepareIn(txn, doc)),
        options,
      ),
    );
  }

  /** The document with this `_id`, or undefined. */
  async get(id: string): Promise<Document | undefined> {
    const bytes = requireId(id);
    const def = this.def();
    if (!def) return undefined;
    const body = this.store.getBody(def, bytes);
    return body && withId(bytes, body);
  }

  /**
   * The document with this `_id` and its tag, or undefined. The tag changes with every write
   * to the document; pass it as `ifMatch` to make a replace or delete conditional on it.
   */
  async getTagged(id: string): Promise<{ doc: Document; tag: string } | undefined> {
    const bytes = requireId(id);
    const def = this.def();
    if (!def) return undefined;
    const found = this.store.getTagged(def, bytes);
    return found && { doc: withId(bytes, found.body), tag: found.tag };
  }

  /**
   * `getTagged` with the document as its JSON text, written from the stored bytes without
   * decoding them (what a server answers as it is).
   */
  async getTaggedJson(id: string): Promise<{ doc: JsonText; tag: string } | undefined> {
    const bytes = requireId(id);
    const def = this.def();
    if (!def) return undefined;
    const found = this.store.getTaggedJson(def, bytes);
    return found && { doc: jsonText(found.json), tag: found.tag };
  }

  /**
   * Replaces the document with this `_id`, keeping the id. Rejects when it does not exist, and
   * with `ifMatch` when its tag is no longer that one.
   */
  async replace(id: string, doc: unknown, condition: WriteCondition = {}): Promise<void> {
    const bytes = requireId(id);
    const { body, id: given } = checkDocument(doc);
    if (given && !given.equals(bytes)) {
      throw dbError('ERR_DOCUMENT_ID_INVALID', 'idChanged', {
        given: formatId(given),
        id: formatId(bytes),
      });
    }
    const replaced = await this.writer.write(
      (txn) =>
        this.holds(txn, bytes, condition) &&
        txn.replaceDocument(this.name, bytes, txn.prepareDocument(body, bytes)),
    );
    if (!replaced) {
      throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', {
        id: formatId(bytes),
        collection: this.name,
      });
    }
  }

  /**
   * Deletes the document with this `_id`; resolves false when there was none. With `ifMatch`,
   * rejects (and deletes nothing) when its tag is no longer that one.
   */
  async delete(id: string, condition: WriteCondition = {}): Promise<boolean> {
    const bytes = requireId(id);
    return this.writer.write(
      (txn) => this.holds(txn, bytes, condition) && txn.deleteDocument(this.name, bytes),
    );
  }

  /**
   * Inside the write: false when the document is missing, throws when `ifMatch` names another
   * version than the current one; true otherwise. Checked in the write's own transaction, so
   * nothing can change the document between the check and the write.
   */
  private holds(txn: WriteTxn, id: Buffer, condition: WriteCondition): boolean {
    if (condition.ifMatch === undefined) return true;
    const def = txn.getCollection(this.name);
    const current = def && txn.getTagged(def, id);
    if (!current) return false;
    if (current.tag !== condition.ifMatch) {
      throw dbError(
        'ERR_DOCUMENT_CHANGED',
        'changed',
        { id: formatId(id), collection: this.name, ifMatch: condition.ifMatch, tag: current.tag },
        { tag: current.tag },
      );
    }
    return true;
  }

  /**
   * Deletes the documents with these `_id`s in one atomic write; resolves with how many
   * existed. Ids that are not in the collection are skipped.
   */
  async deleteMany(ids: string[]): Promise<number> {
    const keys = ids.map(requireId);
    return this.writer.write(
      (txn) => keys.filter((key) => txn.deleteDocument(this.name, key)).length,
    );
  }

  /** Up to `limit` documents (default 100) in `_id` order, after the `after` id when given. */
  list(options: { limit?: number; after?: string } = {}): Document[] {
    const limit = options.limit ?? LIST_LIMIT_DEFAULT;
    if (!Number.isInteger(limit) || limit < 0 || limit > LIST_LIMIT_MAX) {
      throw dbError('ERR_BAD_ARGUMENT', 'listLimit', {
        max: LIST_LIMIT_MAX,
        limit,
      });
    }
    const def = this.def();
    if (!def || limit === 0) return [];
    const after = options.after === undefined ? undefined : requireId(options.after);
    const out: Document[] = [];
    // A page holds every document it lists: the heap is watched as for a SELECT.
    const budget = new StatementBudget();
    for (const { id, body } of this.store.scan(def, after)) {
      budget.tick();
      out.push(withId(id, body));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Every document, in `_id` order, one at a time. */
  *scan(): Generator<Document> {
    const def = this.def();
    if (!def) return;
    for (const { id, body } of this.store.scan(def)) yield withId(id, body);
  }

  /** Number of documents. */
  count(): number {
    const def = this.def();
    return def ? this.store.count(def) : 0;
  }

  /**
   * Documents whose value at `path` equals `value` (null matches null and missing; a `[*]`
   * path matches when any element does), through the ready index on exactly that path when
   * there is one. Planned and run as a SELECT (`find.ts`).
   */
  findBy(path: string, value: unknown, options?: FindOptions): FindResult {
    const def = this.def();
    return def ? findByValues(this.store, def, [path], [value], options) : empty();
  }

  /** Documents whose values at `paths` equal `values` (a composite index on them serves it). */
  findByTuple(paths: string[], values: unknown[], options?: FindOptions): FindResult {
    if (paths.length !== values.length || paths.length === 0) {
      throw dbError('ERR_BAD_ARGUMENT', 'tupleLength');
    }
    const def = this.def();
    return def ? findByValues(this.store, def, paths, values, options) : empty();
  }

  /** Documents with a value at `path` inside the bounds (`gt`, `gte`, `lt`, `lte`). */
  findRange(path: string, bounds: RangeBounds, options?: FindOptions): FindResult {
    const def = this.def();
    return def ? findWithin(this.store, def, path, bounds, options) : empty();
  }

  /**
   * Documents whose value at `path` matches any of `values`, each once, in `_id` order, and
   * the plan string of what ran: a REST by-key lookup. Unlike `findBy` it is planned over
   * every ready index, as SQL is, so an index on `a[*].b` serves `a[0].b`. `limits` bound it
   * as a SELECT (a node's query timeout).
   */
  findAny(
    path: string,
    values: unknown[],
    limits?: QueryLimits,
  ): { documents: Document[]; plan: string } {
    return runFindAny(this.store, this.requireDef(), path, values, limits);
  }

  /** Creates an index and builds it from existing documents; resolves once durable. */
  async createIndex(options: CreateIndexOptions): Promise<IndexInfo> {
    const spec = checkIndexSpec(this.name, options);
    return indexInfo(await this.writer.write((txn) => txn.createIndex(this.name, spec)));
  }

  /** Drops an index by name (case-insensitive). */
  async dropIndex(name: string): Promise<IndexInfo> {
    this.requireDef();
    return indexInfo(await this.writer.write((txn) => txn.dropIndex(this.name, name)));
  }

  /** The collection's indexes. */
  listIndexes(): IndexInfo[] {
    return this.requireDef().indexes.map(indexInfo);
  }

  /** Rebuilds every index from the documents and marks them ready. */
  async rebuildIndexes(): Promise<IndexInfo[]> {
    this.requireDef();
    return (await this.writer.write((txn) => txn.rebuildIndexes(this.name))).map(indexInfo);
  }

  /** Rebuilds one index by name. */
  async rebuildIndex(name: string): Promise<IndexInfo> {
    this.requireDef();
    const [index] = await this.writer.write((txn) => txn.rebuildIndexes(this.name, [name]));
    return indexInfo(index as IndexDef);
  }

  /** Drops the collection with its indexes; resolves false when it did not exist. */
  async drop(): Promise<boolean> {
    return this.writer.write((txn) => txn.dropCollection(this.name));
  }
}

function empty(): FindResult {
  return { documents: [], index: undefined };
}

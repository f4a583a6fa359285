/**
 * The Store: one LMDB data file with its catalog, collections, indexes and change log.
 * It owns every invariant of stored data (index entries match documents, unique indexes hold,
 * the change log records every write) and every write's durability. It knows nothing of SQL
 * or HTTP; the engine calls it.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { DbError } from '../errors/index.js';
import {
  CHANGE_LOG_RETAIN_BYTES,
  CHANGE_LOG_RETAIN_ENTRIES,
  COLLECTIONS_MAX,
  DOCUMENT_BYTES_MAX,
  formatId,
  ID_BYTES,
  INDEXES_PER_COLLECTION_MAX,
  newId,
  SELECTION_CACHE_DOCS_MAX,
  valueAt,
} from '../util/index.js';
import {
  type CheckedIndexSpec,
  type CollectionDef,
  FORMAT_VERSION,
  findIndex,
  type IndexDef,
  type NodeMeta,
} from './catalog.js';
import { type ChangeEntry, type ChangeOp, seqKey, seqOfKey } from './change-log.js';
import {
  compareBytes,
  DocumentCodec,
  decodeValue,
  encodeValue,
  type FieldSelection,
  type Structure,
} from './codec/index.js';
import type { Document } from './document-check.js';
import {
  type IndexValue,
  indexTuples,
  indexValues,
  type LiveIndex,
  liveIndex,
  sameValueKey,
} from './index-keys.js';
import {
  type Env,
  envStats,
  openEnv,
  openScanDb,
  openSubDb,
  pinSnapshot,
  refreshSnapshot,
  type ScanDb,
  type SubDb,
  treeStats,
} from './lmdb-env.js';
import type { StoreReader } from './reader.js';
import { RollbackWith, WriteQueue } from './write-queue.js';
import { acquireWriterLock, type WriterLock } from './writer-lock.js';

/** The file name of the data file inside a data directory. */
export const DATA_FILE_NAME = 'data.docdb';

const META_KEY = Buffer.from('meta');
const STRUCTURES_KEY = Buffer.from('structures');
const COLLECTION_PREFIX = 'c/';
/** Lowest possible id key; keys below it (none today) are reserved. */
const ID_MIN = Buffer.alloc(ID_BYTES, 0);
/** The change log's size is checked every this many entries (or sixteenths of its bound). */
const CHANGE_LOG_SIZE_CHECK_EVERY = 16;

/** Selections whose last scan is remembered (to tell a repeated scan); then it starts over. */
const SCANNED_SELECTIONS_MAX = 1000;

/** What a scan's visitor returns for a document the scan leaves out. */
const SKIPPED = Symbol('skipped');

/** The selected parts of every document of a collection, as one write generation left them. */
interface CachedSelection {
  generation: number;
  /** The ids, 16 bytes each, in the order of `parts`. */
  ids: Buffer;
  parts: Document[];
}

/** Collects a scan's selected parts; gives up when a selected value is not a scalar. */
class SelectionRecorder {
  private readonly parts: Document[] = [];
  /** The ids copied end to end (holding each key's own Buffer would cost far more). */
  private ids: Buffer;
  private idCount = 0;
  private usable = true;

  /** `expected`: the collection's document count, to size the id buffer. */
  constructor(
    private readonly selection: FieldSelection,
    expected: number,
  ) {
    this.ids = Buffer.allocUnsafe(Math.max(1, expected) * ID_BYTES);
  }

  add(part: Document): void {
    if (!this.usable) return;
    for (const path of this.selection.paths) {
      const value = valueAt(part, path);
      if (value !== null && typeof value === 'object') {
        this.usable = false;
        this.parts.length = 0;
        return;
      }
    }
    this.parts.push(part);
  }

  addId(id: Buffer): void {
    if (!this.usable) return;
    if ((this.idCount + 1) * ID_BYTES > this.ids.length) {
      const grown = Buffer.allocUnsafe(this.ids.length * 2);
      this.ids.copy(grown);
      this.ids = grown;
    }
    id.copy(this.ids, this.idCount * ID_BYTES);
    this.idCount++;
  }

  /** The cache entry, when the scan ran to its end with every value a scalar. */
  complete(generation: number): CachedSelection | undefined {
    if (!this.usable || this.idCount !== this.parts.length) return undefined;
    return { generation, ids: this.ids.subarray(0, this.idCount * ID_BYTES), parts: this.parts };
  }
}

/** Greater than every 16-byte id: the start of a reverse scan. */
const ID_PAST_MAX = Buffer.alloc(ID_BYTES + 1, 0xff);

/** Options of Store.open. */
export interface StoreOptions {
  /** Open without the writer lock; every write is refused. */
  readOnly?: boolean;
  /** Bytes the change log may hold before writes trim it (default CHANGE_LOG_RETAIN_BYTES). */
  changeLogRetainBytes?: number;
}

/** A document ready to store: validated body, its encoding, and the id it should keep. */
export interface PreparedDocument {
  body: Document;
  encoded: Buffer;
  id: Buffer | undefined;
}

/** Per-item outcome of a bulk insert. */
export interface BulkResult {
  ids: string[];
  errors: Array<{ index: number; error: string; code: string }>;
}

/** Resolves a data directory or a `.docdb` file to the data file's path. */
export function resolveDataFile(target: string): { file: string; dir: string } {
  const resolved = path.resolve(target);
  if (resolved.endsWith('.docdb')) return { file: resolved, dir: path.dirname(resolved) };
  return { file: path.join(resolved, DATA_FILE_NAME), dir: resolved };
}

function storageFailed(error: unknown): DbError {
  const reason = error instanceof Error ? error.message : String(error);
  return new DbError('ERR_STORAGE_FAILED', `the write was not committed: ${reason}`);
}

/** Attaches `_id` in front of a stored body, as callers see documents. */
export function withId(id: Buffer, body: Document): Document {
  return { _id: formatId(id), ...body };
}

/** State a batch has changed in memory, applied to the store only once the batch commits. */
interface Staged {
  defs: Map<string, CollectionDef | null>;
  openedDbs: Map<string, SubDb>;
  droppedDbs: Set<string>;
  meta: NodeMeta;
  lastSeq: number;
  /** Shared document structures when the batch began (restored if it fails). */
  structures: number;
}

export class Store implements StoreReader {
  readonly file: string;
  readonly readOnly: boolean;
  private readonly env: Env;
  private readonly catalogDb: SubDb;
  private readonly changesDb: SubDb;
  private readonly lock: WriterLock | undefined;
  private readonly queue: WriteQueue;
  private readonly dbs = new Map<string, SubDb>();
  private readonly scanDbs = new Map<string, ScanDb>();
  /** Selections of whole scans, by collection sub-database and selection signature. */
  private readonly selections = new Map<string, CachedSelection>();
  /** The write generation at which each selection was last scanned from the file. */
  private readonly scannedAt = new Map<string, number>();
  /** Moves on with every write batch: a cached selection of an older one is stale. */
  private dataGeneration = 0;
  /** LMDB's page size, read once. */
  private pageBytes: number | undefined;
  private changeLogRetainBytes = CHANGE_LOG_RETAIN_BYTES;
  /** Bytes appended to the change log since its size was last checked. */
  private changeBytesUnchecked = 0;
  private readonly live = new Map<string, LiveIndex>();
  private defs = new Map<string, CollectionDef>();
  private meta!: NodeMeta;
  private lastSeq = 0;
  private staged: Staged | undefined;
  private catalogVersionCounter = 0;
  private readonly docs: DocumentCodec;
  private closed = false;

  private constructor(file: string, readOnly: boolean, lock: WriterLock | undefined) {
    this.file = file;
    this.readOnly = readOnly;
    this.lock = lock;
    this.env = openEnv(file, readOnly);
    this.catalogDb = openSubDb(this.env, 'catalog', !readOnly);
    this.changesDb = openSubDb(this.env, 'changes', !readOnly);
    this.docs = new DocumentCodec([], (structures) => this.persistStructures(structures));
    this.queue = new WriteQueue({
      runOuter: (body) => {
        try {
          this.env.transactionSync(body);
        } catch (error) {
          // The commit itself failed (disk full, I/O error): nothing of the batch is stored.
          throw storageFailed(error);
        }
      },
      runChild: (job) => this.env.transactionSync(job),
      beginJob: () => this.beginJob(),
      afterBatch: (error) => this.afterBatch(error),
    });
  }

  /** Opens (or creates, unless read-only) the data file of a directory or `.docdb` path. */
  static open(target: string, options: StoreOptions = {}): Store {
    const { file, dir } = resolveDataFile(target);
    const readOnly = options.readOnly === true;
    if (readOnly && !fs.existsSync(file)) {
      throw new DbError('ERR_STORAGE_NOT_FOUND', `no docdb data file at ${file}`, { file });
    }
    if (!readOnly) fs.mkdirSync(dir, { recursive: true });
    const lock = readOnly ? undefined : acquireWriterLock(file);
    try {
      const store = new Store(file, readOnly, lock);
      store.changeLogRetainBytes = options.changeLogRetainBytes ?? CHANGE_LOG_RETAIN_BYTES;
      store.loadCatalog();
      return store;
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  // ---- catalog -------------------------------------------------------------------------

  private loadCatalog(): void {
    const rawMeta = this.catalogDb.get(META_KEY);
    if (rawMeta) {
      this.meta = decodeValue<NodeMeta>(rawMeta);
      if (this.meta.format !== FORMAT_VERSION) {
        throw new DbError(
          'ERR_STORAGE_FORMAT',
          `${this.file} has data format ${this.meta.format}; this docdb reads format ${FORMAT_VERSION}`,
        );
      }
    } else if (this.readOnly) {
      this.meta = emptyMeta();
    } else {
      this.meta = emptyMeta();
      this.env.transactionSync(() => this.catalogDb.putSync(META_KEY, encodeValue(this.meta)));
    }
    const defs = new Map<string, CollectionDef>();
    const start = Buffer.from(COLLECTION_PREFIX);
    const end = Buffer.from('c0');
    for (const { value } of this.catalogDb.getRange({ start, end })) {
      const def = decodeValue<CollectionDef>(value);
      defs.set(def.name, def);
    }
    this.defs = defs;
    this.live.clear();
    this.catalogVersionCounter++;
    const structures = this.catalogDb.get(STRUCTURES_KEY);
    this.docs.reset(structures ? decodeValue<Structure[]>(structures) : []);
    this.lastSeq = Math.max(this.meta.seqFloor, this.lastChangeSeq());
  }

  private lastChangeSeq(): number {
    for (const key of this.changesDb.getKeys({ start: ID_PAST_MAX, reverse: true, limit: 1 })) {
      return seqOfKey(key);
    }
    return 0;
  }

  /**
   * For read-only stores: picks up what a writing process committed since the last look.
   * Cheap when the catalog did not change: a fresh snapshot and one read of `meta`.
   */
  refresh(): void {
    // The writing process sees its own commits at once; only readers need a new snapshot.
    if (!this.readOnly) return;
    refreshSnapshot(this.env);
    const raw = this.catalogDb.get(META_KEY);
    const generation = raw ? (decodeValue<NodeMeta>(raw).catalogGeneration ?? 0) : 0;
    if (generation === (this.meta.catalogGeneration ?? 0)) return;
    this.dbs.clear();
    this.scanDbs.clear();
    this.loadCatalog();
  }

  /**
   * A number that changes whenever a collection or index definition changes: plans cached
   * under one version are still right while it holds.
   */
  get catalogVersion(): number {
    return this.catalogVersionCounter;
  }

  /** Canonical names of every collection, sorted. */
  collectionNames(): string[] {
    return [...this.currentDefs().keys()].sort();
  }

  /** The definition of a collection (canonical name), if it exists. */
  getCollection(name: string): CollectionDef | undefined {
    const staged = this.staged?.defs.get(name);
    if (staged !== undefined) return staged ?? undefined;
    return this.defs.get(name);
  }

  private currentDefs(): Map<string, CollectionDef> {
    if (!this.staged) return this.defs;
    const merged = new Map(this.defs);
    for (const [name, def] of this.staged.defs) {
      if (def) merged.set(name, def);
      else merged.delete(name);
    }
    return merged;
  }

  /** The node's replication term and the seq of the newest change-log entry. */
  nodeState(): { term: number; lastSeq: number; seqFloor: number } {
    return { term: this.meta.term, lastSeq: this.lastSeq, seqFloor: this.meta.seqFloor };
  }

  // ---- documents in their stored form ---------------------------------------------------

  /** Encodes a validated body for storage; enforces the document size limit. */
  prepareDocument(body: Document, id: Buffer | undefined): PreparedDocument {
    if (this.closed) throw new DbError('ERR_STORAGE_CLOSED', 'the database is closed');
    const encoded = this.docs.encode(body);
    if (encoded.length > DOCUMENT_BYTES_MAX) {
      throw new DbError(
        'ERR_DOCUMENT_TOO_LARGE',
        `the document takes ${encoded.length} bytes stored; the limit is ${DOCUMENT_BYTES_MAX}`,
        { bytes: encoded.length, limit: DOCUMENT_BYTES_MAX },
      );
    }
    return { body, encoded, id };
  }

  /** Decodes a stored document body. */
  decodeDocument(bytes: Uint8Array): Document {
    return this.docs.decode<Document>(bytes);
  }

  /**
   * Stores the shared structures after encoding added one: inside a write job, in its
   * transaction (a rollback also drops the structure from the encoder); otherwise in a
   * commit of its own, durable before the document that needs it is written.
   */
  private persistStructures(structures: Structure[]): void {
    if (this.readOnly) {
      throw new DbError('ERR_STORAGE_READ_ONLY', `${this.file} is open read-only`);
    }
    const bytes = encodeValue(structures);
    if (this.staged) {
      this.catalogDb.putSync(STRUCTURES_KEY, bytes);
      this.bumpCatalog();
      return;
    }
    const meta = { ...this.meta, catalogGeneration: (this.meta.catalogGeneration ?? 0) + 1 };
    this.env.transactionSync(() => {
      this.catalogDb.putSync(STRUCTURES_KEY, bytes);
      this.catalogDb.putSync(META_KEY, encodeValue(meta));
    });
    this.meta = meta;
  }

  // ---- the write machinery -------------------------------------------------------------

  private beginJob(): () => void {
    this.dataGeneration++;
    const staged = this.staged ?? this.newStaged();
    this.staged = staged;
    const snapshot = {
      defs: new Map(staged.defs),
      opened: new Map(staged.openedDbs),
      dropped: new Set(staged.droppedDbs),
      meta: staged.meta,
      lastSeq: staged.lastSeq,
      structures: this.docs.structureCount,
    };
    return () => {
      this.docs.truncate(snapshot.structures);
      staged.defs = snapshot.defs;
      staged.openedDbs = snapshot.opened;
      staged.droppedDbs = snapshot.dropped;
      staged.meta = snapshot.meta;
      staged.lastSeq = snapshot.lastSeq;
    };
  }

  private newStaged(): Staged {
    return {
      defs: new Map(),
      openedDbs: new Map(),
      droppedDbs: new Set(),
      meta: this.meta,
      lastSeq: this.lastSeq,
      structures: this.docs.structureCount,
    };
  }

  private afterBatch(error: unknown): void {
    this.dataGeneration++;
    const staged = this.staged;
    this.staged = undefined;
    if (error !== undefined || !staged) {
      // Nothing of the batch reached the disk: forget what it staged, re-read the truth.
      if (error !== undefined) this.loadCatalog();
      return;
    }
    for (const [name, def] of staged.defs) {
      if (def) this.defs.set(name, def);
      else this.defs.delete(name);
      this.live.delete(name);
    }
    if (staged.defs.size > 0) this.catalogVersionCounter++;
    for (const [name, db] of staged.openedDbs) this.dbs.set(name, db);
    for (const name of staged.droppedDbs) {
      this.dbs.delete(name);
      this.scanDbs.delete(name);
    }
    this.meta = staged.meta;
    this.lastSeq = staged.lastSeq;
  }

  /** Runs `job` as one atomic write in the next group commit; resolves once durable. */
  write<T>(job: () => T): Promise<T> {
    if (this.closed) {
      return Promise.reject(new DbError('ERR_STORAGE_CLOSED', 'the database is closed'));
    }
    if (this.readOnly) {
      return Promise.reject(
        new DbError(
          'ERR_STORAGE_READ_ONLY',
          `${this.file} is open read-only; writes go through the process that holds it`,
        ),
      );
    }
    return this.queue.enqueue(job);
  }

  private stagedState(): Staged {
    if (!this.staged) throw new Error('storage write outside a write job');
    return this.staged;
  }

  private subDb(name: string): SubDb {
    const opened = this.staged?.openedDbs.get(name) ?? this.dbs.get(name);
    if (opened) return opened;
    const db = openSubDb(this.env, name, false, name.startsWith('i'));
    // A handle opened inside a write job belongs to its transaction: LMDB discards it when
    // the job rolls back, so it joins the shared cache only once the batch commits.
    if (this.staged) this.staged.openedDbs.set(name, db);
    else this.dbs.set(name, db);
    return db;
  }

  private allocateDb(prefix: 'c' | 'i'): { name: string; db: SubDb } {
    const staged = this.stagedState();
    const name = `${prefix}${staged.meta.nextDbId}`;
    staged.meta = { ...staged.meta, nextDbId: staged.meta.nextDbId + 1 };
    this.catalogDb.putSync(META_KEY, encodeValue(staged.meta));
    const db = openSubDb(this.env, name, true, prefix === 'i');
    staged.openedDbs.set(name, db);
    return { name, db };
  }

  private dropDb(name: string): void {
    this.subDb(name).dropSync();
    this.stagedState().droppedDbs.add(name);
  }

  private saveCollection(def: CollectionDef): void {
    this.catalogDb.putSync(Buffer.from(COLLECTION_PREFIX + def.name), encodeValue(def));
    this.stagedState().defs.set(def.name, def);
    this.bumpCatalog();
  }

  /** Marks a catalog change for readers in other processes (see NodeMeta.catalogGeneration). */
  private bumpCatalog(): void {
    const staged = this.stagedState();
    staged.meta = { ...staged.meta, catalogGeneration: (staged.meta.catalogGeneration ?? 0) + 1 };
    this.catalogDb.putSync(META_KEY, encodeValue(staged.meta));
  }

  private appendChange(change: ChangeOp): number {
    const staged = this.stagedState();
    const seq = staged.lastSeq + 1;
    const entry: ChangeEntry = { ...change, seq, term: staged.meta.term, atMs: Date.now() };
    const bytes = encodeValue(entry);
    this.changesDb.putSync(seqKey(seq), bytes, { append: true });
    staged.lastSeq = seq;
    // Checked every few entries, or sooner when large ones come: the log overshoots its bound
    // by at most a sixteenth of it and one entry.
    this.changeBytesUnchecked += bytes.length;
    if (
      seq % CHANGE_LOG_SIZE_CHECK_EVERY === 0 ||
      this.changeBytesUnchecked * CHANGE_LOG_SIZE_CHECK_EVERY >= this.changeLogRetainBytes
    ) {
      this.changeBytesUnchecked = 0;
      this.trimChangesToSize();
    }
    return seq;
  }

  /**
   * Keeps the change log within its byte bound (`changeLogRetainBytes`): past it, the oldest entries go
   * (about a tenth more than the excess, so trims come in steps), always keeping the newest.
   * Their size is measured from the log's pages, so no entry is read.
   */
  private trimChangesToSize(): void {
    const { entries, pages } = treeStats(this.changesDb);
    this.pageBytes ??= envStats(this.env).pageSize;
    const bytes = pages * this.pageBytes;
    if (bytes <= this.changeLogRetainBytes || entries < 2) return;
    const keep = (this.changeLogRetainBytes * 0.9) / bytes;
    const staged = this.stagedState();
    const drop = Math.ceil(entries * (1 - keep));
    this.trimChangesTo(Math.min(staged.lastSeq - 1, staged.meta.seqFloor + drop));
  }

  /** Removes the change-log entries with a seq at or below `trimTo`; returns how many. */
  private trimChangesTo(trimTo: number): number {
    const staged = this.stagedState();
    if (trimTo <= staged.meta.seqFloor) return 0;
    const doomed = [...this.changesDb.getKeys({ start: seqKey(0), end: seqKey(trimTo + 1) })];
    for (const key of doomed) this.changesDb.removeSync(key);
    staged.meta = { ...staged.meta, seqFloor: trimTo };
    this.catalogDb.putSync(META_KEY, encodeValue(staged.meta));
    return doomed.length;
  }

  /** The collection's definition inside a write job, created on first use when `create`. */
  private collectionForWrite(name: string, create: boolean): CollectionDef | undefined {
    const existing = this.getCollection(name);
    if (existing || !create) return existing;
    if (this.currentDefs().size >= COLLECTIONS_MAX) {
      throw new DbError(
        'ERR_COLLECTION_LIMIT',
        `cannot create collection '${name}': a data file holds at most ${COLLECTIONS_MAX} collections`,
      );
    }
    const { name: dbName } = this.allocateDb('c');
    const def: CollectionDef = { name, dbName, createdAt: new Date().toISOString(), indexes: [] };
    this.saveCollection(def);
    return def;
  }

  private liveIndexes(def: CollectionDef): LiveIndex[] {
    return def.indexes.map((index) => {
      const key = `${def.name}\u0000${index.dbName}\u0000${index.state}`;
      let cached = this.live.get(key);
      if (!cached || cached.def !== index) {
        cached = liveIndex(index);
        this.live.set(key, cached);
      }
      return cached;
    });
  }

  // ---- document writes (inside write jobs) ---------------------------------------------

  private idExists(def: CollectionDef, id: Buffer): boolean {
    return this.subDb(def.dbName).getBinaryFast(id) !== undefined;
  }

  /**
   * True when a document other than `self` holds the same complete value in a unique index.
   * One exact get answers it, except for truncated keys, whose holders are rechecked.
   */
  private uniqueTaken(def: CollectionDef, index: LiveIndex, value: IndexValue, self?: Buffer) {
    const db = this.subDb(index.def.dbName);
    if (!value.truncated) {
      const first = db.getBinaryFast(value.bytes);
      if (first === undefined) return false;
      if (!self || !first.equals(self)) return true;
      return db.getValuesCount(value.bytes) > 1;
    }
    const wanted = sameValueKey(value);
    for (const holder of db.getValues(value.bytes)) {
      if (self?.equals(holder)) continue;
      const body = this.getBody(def, holder);
      if (!body) continue;
      for (const tuple of indexTuples(index, body)) {
        if (sameValueKey({ ...value, tuple }) === wanted) return true;
      }
    }
    return false;
  }

  private uniqueViolation(def: CollectionDef, index: LiveIndex, tuple: unknown[]): DbError {
    const paths = index.def.paths.join(', ');
    const shown = tuple.map((v) => JSON.stringify(v)).join(', ');
    return new DbError(
      'ERR_UNIQUE_VIOLATION',
      `unique index '${index.def.name}' on ${def.name} (${paths}) already holds ${shown}; ` +
        'nothing of this write was stored',
      { index: index.def.name, collection: def.name, paths: index.def.paths, value: tuple },
    );
  }

  /**
   * Inserts prepared documents. Each item is checked (id, unique values against stored data
   * and earlier items) before anything is written; failing items are reported and skipped,
   * or with `atomic` the whole call rolls back. Index entries are written per index in key
   * order, and documents with `append` when their ids extend the collection.
   */
  insertDocuments(
    collection: string,
    docs: Array<PreparedDocument | DbError>,
    options: { atomic?: boolean; skipIndexes?: boolean; throwFirst?: boolean } = {},
  ): BulkResult {
    const def = this.collectionForWrite(collection, true) as CollectionDef;
    const indexes = options.skipIndexes
      ? []
      : this.liveIndexes(def).filter((i) => i.def.state === 'ready');
    const result: BulkResult = { ids: [], errors: [] };
    const accepted: AcceptedDocument[] = [];
    const entries: IndexEntry[][] = indexes.map(() => []);
    const batchUnique = indexes.map(() => new Set<string>());
    const claims: IdClaims = { highest: this.lastId(def), given: [], seen: undefined };
    const storedLast = claims.highest;
    docs.forEach((doc, position) => {
      try {
        if (doc instanceof DbError) throw doc;
        const id = this.claimId(def, doc.id, claims);
        this.checkIndexKeys(def, indexes, doc, id, batchUnique, entries);
        const text = formatId(id);
        accepted.push({ id, text, doc });
        result.ids.push(text);
      } catch (error) {
        if (!(error instanceof DbError) || options.throwFirst) throw error;
        result.errors.push({ index: position, error: error.message, code: error.code });
      }
    });
    if (options.atomic && result.errors.length > 0) {
      throw new RollbackWith<BulkResult>({ ids: [], errors: result.errors });
    }
    this.writeAccepted(def, indexes, accepted, entries, storedLast);
    if (options.skipIndexes && def.indexes.some((i) => i.state === 'ready') && accepted.length) {
      this.saveCollection({
        ...def,
        indexes: def.indexes.map((i) => ({ ...i, state: 'stale' as const })),
      });
    }
    return result;
  }

  /** The greatest id stored in a collection, or undefined when it is empty. */
  private lastId(def: CollectionDef): Buffer | undefined {
    const db = this.subDb(def.dbName);
    for (const key of db.getKeys({ start: ID_PAST_MAX, reverse: true, limit: 1 })) return key;
    return undefined;
  }

  /**
   * Claims a given id for a new document (or makes one). A given id above every id stored or
   * claimed so far needs no lookup: ids from newId and most loads arrive in increasing order.
   */
  private claimId(def: CollectionDef, given: Buffer | undefined, claims: IdClaims): Buffer {
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
    if (claims.seen.has(text) || this.idExists(def, given)) {
      throw new DbError(
        'ERR_DOCUMENT_ID_EXISTS',
        `_id ${formatId(given)} already exists in ${def.name}; use replace to change it`,
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
  private checkIndexKeys(
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
          if (seen.has(text) || this.uniqueTaken(def, index, value)) {
            throw this.uniqueViolation(def, index, value.tuple);
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
      for (const value of found[i] as IndexValue[]) list.push({ key: value.bytes, id });
    }
  }

  /**
   * Writes accepted documents, their index entries and one change-log entry. Documents go in
   * id order, with `append` when they extend the collection (`storedLast` is its greatest id).
   */
  private writeAccepted(
    def: CollectionDef,
    indexes: LiveIndex[],
    accepted: AcceptedDocument[],
    entries: IndexEntry[][],
    storedLast: Buffer | undefined,
  ): void {
    if (accepted.length === 0) return;
    const db = this.subDb(def.dbName);
    const ascending = idsAscending(accepted);
    const ordered = ascending ? accepted : [...accepted].sort((a, b) => a.id.compare(b.id));
    const first = (ordered[0] as AcceptedDocument).id;
    const putOptions = { append: !storedLast || first.compare(storedLast) > 0 };
    for (const item of ordered) db.putSync(item.id, item.doc.encoded, putOptions);
    indexes.forEach((index, i) => {
      putEntries(this.subDb(index.def.dbName), entries[i] as IndexEntry[], ascending);
    });
    this.appendChange({
      op: 'insert',
      collection: def.name,
      documents: accepted.map((item) => ({ id: item.text, doc: item.doc.encoded })),
    });
  }

  /** The stored document with `id` inside a write job, with its collection and tree. */
  private stored(
    collection: string,
    id: Buffer,
  ): { def: CollectionDef; db: SubDb; old: Document } | undefined {
    const def = this.collectionForWrite(collection, false);
    if (!def) return undefined;
    const db = this.subDb(def.dbName);
    const bytes = db.getBinaryFast(id);
    return bytes === undefined ? undefined : { def, db, old: this.decodeDocument(bytes) };
  }

  /** Replaces the document with `id`, keeping the id. Returns false when it does not exist. */
  replaceDocument(collection: string, id: Buffer, doc: PreparedDocument): boolean {
    const found = this.stored(collection, id);
    if (!found) return false;
    const { def, db, old } = found;
    for (const index of this.liveIndexes(def)) {
      if (index.def.state !== 'ready') continue;
      const before = indexValues(index, old);
      const after = indexValues(index, doc.body);
      // Entries are keyed by (possibly truncated) bytes; uniqueness is about whole values.
      const beforeBytes = new Set(before.map((v) => v.bytes.toString('latin1')));
      const afterBytes = new Set(after.map((v) => v.bytes.toString('latin1')));
      const beforeValues = new Set(before.map(sameValueKey));
      const idb = this.subDb(index.def.dbName);
      for (const value of after) {
        const isNew = !beforeValues.has(sameValueKey(value));
        if (
          isNew &&
          index.def.unique &&
          !value.hasNull &&
          this.uniqueTaken(def, index, value, id)
        ) {
          throw this.uniqueViolation(def, index, value.tuple);
        }
        if (!beforeBytes.has(value.bytes.toString('latin1'))) idb.putSync(value.bytes, id);
      }
      for (const value of before) {
        if (!afterBytes.has(value.bytes.toString('latin1'))) idb.removeSync(value.bytes, id);
      }
    }
    db.putSync(id, doc.encoded);
    this.appendChange({ op: 'replace', collection: def.name, id: formatId(id), doc: doc.encoded });
    return true;
  }

  /** Deletes the document with `id`. Returns false when it does not exist. */
  deleteDocument(collection: string, id: Buffer): boolean {
    const found = this.stored(collection, id);
    if (!found) return false;
    const { def, db, old } = found;
    for (const index of this.liveIndexes(def)) {
      if (index.def.state !== 'ready') continue;
      const idb = this.subDb(index.def.dbName);
      for (const value of indexValues(index, old)) idb.removeSync(value.bytes, id);
    }
    db.removeSync(id);
    this.appendChange({ op: 'delete', collection: def.name, id: formatId(id) });
    return true;
  }

  /** Drops a collection with its indexes. Returns false when it does not exist. */
  dropCollection(collection: string): boolean {
    const def = this.collectionForWrite(collection, false);
    if (!def) return false;
    for (const index of def.indexes) this.dropDb(index.dbName);
    this.dropDb(def.dbName);
    this.catalogDb.removeSync(Buffer.from(COLLECTION_PREFIX + def.name));
    this.bumpCatalog();
    this.stagedState().defs.set(def.name, null);
    this.appendChange({ op: 'dropCollection', collection: def.name });
    return true;
  }

  // ---- indexes (inside write jobs) -----------------------------------------------------

  /** Creates an index and builds it from the collection's documents (created if missing). */
  createIndex(collection: string, spec: CheckedIndexSpec): IndexDef {
    const def = this.collectionForWrite(collection, true) as CollectionDef;
    if (findIndex(def, spec.name)) {
      throw new DbError(
        'ERR_INDEX_EXISTS',
        `collection ${def.name} already has an index named '${spec.name}'`,
        { index: spec.name },
      );
    }
    if (def.indexes.length >= INDEXES_PER_COLLECTION_MAX) {
      throw new DbError(
        'ERR_INDEX_LIMIT',
        `collection ${def.name} already has ${def.indexes.length} indexes, the most allowed`,
      );
    }
    const { name: dbName } = this.allocateDb('i');
    const index: IndexDef = {
      name: spec.name,
      paths: spec.paths.map((p) => p.text),
      unique: spec.unique,
      multikey: spec.multikey,
      state: 'ready',
      dbName,
      createdAt: new Date().toISOString(),
    };
    this.buildIndex(def, liveIndex(index));
    this.saveCollection({ ...def, indexes: [...def.indexes, index] });
    this.appendChange({
      op: 'createIndex',
      collection: def.name,
      index: { name: index.name, paths: index.paths, unique: index.unique },
    });
    return index;
  }

  /** Fills an empty index sub-database from every document, in key order. */
  private buildIndex(def: CollectionDef, index: LiveIndex): number {
    const entries: IndexEntry[] = [];
    const seen = new Set<string>();
    for (const { key, value } of this.subDb(def.dbName).getRange({ start: ID_MIN })) {
      const body = this.decodeDocument(value);
      const id = Buffer.from(key);
      for (const v of indexValues(index, body)) {
        if (index.def.unique && !v.hasNull) {
          const text = sameValueKey(v);
          if (seen.has(text)) throw this.uniqueViolation(def, index, v.tuple);
          seen.add(text);
        }
        entries.push({ key: v.bytes, id });
      }
    }
    // Documents come in id order, and so do the entries made from them.
    putEntries(this.subDb(index.def.dbName), entries, true);
    return entries.length;
  }

  /** Drops an index by name (case-insensitive). Returns the dropped definition. */
  dropIndex(collection: string, name: string): IndexDef {
    const def = this.requireForWrite(collection);
    const index = this.requireIndex(def, name);
    this.dropDb(index.dbName);
    this.saveCollection({ ...def, indexes: def.indexes.filter((i) => i !== index) });
    this.appendChange({ op: 'dropIndex', collection: def.name, name: index.name });
    return index;
  }

  /** Rebuilds the named indexes (all when `names` is undefined) and marks them ready. */
  rebuildIndexes(collection: string, names?: string[]): IndexDef[] {
    const def = this.requireForWrite(collection);
    const chosen = names ? names.map((n) => this.requireIndex(def, n)) : def.indexes;
    const rebuilt = new Map<IndexDef, IndexDef>();
    for (const index of chosen) {
      this.subDb(index.dbName).clearSync();
      const fresh: IndexDef = { ...index, state: 'ready' };
      this.buildIndex(def, liveIndex(fresh));
      rebuilt.set(index, fresh);
    }
    const indexes = def.indexes.map((i) => rebuilt.get(i) ?? i);
    this.saveCollection({ ...def, indexes });
    return [...rebuilt.values()];
  }

  private requireForWrite(collection: string): CollectionDef {
    const def = this.collectionForWrite(collection, false);
    if (!def) throw collectionNotFound(collection, this.collectionNames());
    return def;
  }

  private requireIndex(def: CollectionDef, name: string): IndexDef {
    const index = findIndex(def, name);
    if (!index) {
      const known = def.indexes.map((i) => i.name).join(', ') || 'none';
      throw new DbError(
        'ERR_INDEX_NOT_FOUND',
        `collection ${def.name} has no index named '${name}' (indexes: ${known})`,
        { index: name },
      );
    }
    return index;
  }

  // ---- reads ---------------------------------------------------------------------------

  /** The stored body of a document, or undefined. */
  getBody(def: CollectionDef, id: Buffer): Document | undefined {
    const bytes = this.subDb(def.dbName).getBinaryFast(id);
    return bytes === undefined ? undefined : this.decodeDocument(bytes);
  }

  /**
   * Pins the current committed state for reads that span event-loop turns (a streamed
   * result). Release it when done: a pinned snapshot keeps old pages from reuse.
   */
  openSnapshot(): DocumentSnapshot {
    // LMDB does not let a read transaction use a sub-database first opened after it began:
    // open every collection's handle before pinning (the first request of a fresh process
    // may well be a stream).
    for (const def of this.defs.values()) this.subDb(def.dbName);
    const snapshot = pinSnapshot(this.env);
    return {
      getBody: (def, id) => {
        const bytes = snapshot.get(this.subDb(def.dbName), id);
        return bytes === undefined ? undefined : this.decodeDocument(bytes);
      },
      release: () => snapshot.release(),
    };
  }

  /** Documents in id order, starting after `afterId` when given. */
  scan(def: CollectionDef, afterId?: Buffer): Generator<{ id: Buffer; body: Document }> {
    const start = afterId ? Buffer.concat([afterId, Buffer.from([0])]) : ID_MIN;
    return this.visitDocuments(def, start, (bytes, size) =>
      this.docs.decode<Document>(bytes.subarray(0, size)),
    ) as Generator<{ id: Buffer; body: Document }>;
  }

  /**
   * Documents in id order, decoding from each only what a query reads: the `selection` is
   * decoded for `keep` to test, and a document kept is then decoded whole when `whole`, or
   * yielded as the selection (enough for `valueAt` on every selected path).
   *
   * The writer keeps the selection of a complete scan in memory until its next write when the
   * same selection was scanned before since the last write, and every selected value is a
   * scalar (so nothing a caller receives can alter the cache): further scans and aggregates
   * over the same paths then read no documents at all.
   */
  *scanSelected(
    def: CollectionDef,
    selection: FieldSelection,
    keep: ((part: Document) => boolean) | undefined,
    whole: boolean,
  ): Generator<{ id: Buffer; body: Document }> {
    const cacheKey = `${def.dbName}\n${selection.signature}`;
    const cached = this.selections.get(cacheKey);
    if (cached?.generation === this.dataGeneration) {
      const { ids, parts } = cached;
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i] as Document;
        if (keep && !keep(part)) continue;
        const id = ids.subarray(i * ID_BYTES, (i + 1) * ID_BYTES);
        const body = whole ? this.getBody(def, id) : part;
        if (body) yield { id, body };
      }
      return;
    }
    // Keeping a selection costs about as much as the scan (its objects outlive the young
    // generation), so a scan keeps one only when the same selection was scanned before with
    // no write in between: reads that repeat. Writes in between leave every scan lean.
    const repeated = this.scannedAt.get(cacheKey) === this.dataGeneration;
    if (this.scannedAt.size >= SCANNED_SELECTIONS_MAX) this.scannedAt.clear();
    this.scannedAt.set(cacheKey, this.dataGeneration);
    const documents =
      this.readOnly || this.staged || !repeated ? Number.POSITIVE_INFINITY : this.count(def);
    const record =
      documents <= SELECTION_CACHE_DOCS_MAX
        ? new SelectionRecorder(selection, documents)
        : undefined;
    const generation = this.dataGeneration;
    const found = this.visitDocuments(def, ID_MIN, (bytes, size) => {
      const part = this.docs.decodeSelected<Document>(bytes, size, selection);
      record?.add(part);
      if (keep && !keep(part)) return SKIPPED;
      return whole ? this.docs.decode<Document>(bytes.subarray(0, size)) : part;
    });
    for (const { id, body } of found) {
      record?.addId(id);
      if (body !== SKIPPED) yield { id, body: body as Document };
    }
    const complete = record?.complete(generation);
    if (complete && generation === this.dataGeneration) this.cacheSelection(cacheKey, complete);
  }

  private cacheSelection(key: string, selection: CachedSelection): void {
    this.selections.delete(key);
    this.selections.set(key, selection);
    let docs = 0;
    for (const s of this.selections.values()) docs += s.parts.length;
    // Oldest first, until the cached documents fit the budget again.
    for (const [k, s] of this.selections) {
      if (docs <= SELECTION_CACHE_DOCS_MAX) break;
      this.selections.delete(k);
      docs -= s.parts.length;
    }
  }

  /**
   * Runs `visit` on each stored document from `start`, in place in LMDB's buffer (no copy),
   * and yields its id with what `visit` returns. Inside a write job the plain handle is used:
   * a scan handle opened there would belong to the job's transaction.
   */
  private *visitDocuments(
    def: CollectionDef,
    start: Buffer,
    visit: (bytes: Uint8Array, size: number) => unknown,
  ): Generator<{ id: Buffer; body: unknown }> {
    if (this.staged) {
      for (const { key, value } of this.subDb(def.dbName).getRange({ start })) {
        yield { id: key, body: visit(value, value.length) };
      }
      return;
    }
    let scanDb = this.scanDbs.get(def.dbName);
    if (!scanDb) {
      scanDb = openScanDb(this.env, def.dbName);
      this.scanDbs.set(def.dbName, scanDb);
    }
    const { db, visitor } = scanDb;
    const entries = db.getRange({ start })[Symbol.iterator]();
    try {
      for (;;) {
        // Another scan of the same collection may have stepped in between (a join, a stream).
        visitor.visit = visit;
        const step = entries.next();
        if (step.done) return;
        const { key, value } = step.value as { key: Buffer; value: unknown };
        yield { id: key, body: value };
      }
    } finally {
      entries.return?.();
    }
  }

  /** Number of documents, from LMDB's tree statistics (no scan). */
  count(def: CollectionDef): number {
    return treeStats(this.subDb(def.dbName)).entries;
  }

  /**
   * Ids of index entries whose key lies in [start, end), each once even for multikey
   * indexes. Callers recheck the documents: truncated keys can produce extra candidates.
   */
  *indexIds(index: IndexDef, start: Buffer, end: Buffer): Generator<Buffer> {
    const seen = index.multikey ? new Set<string>() : undefined;
    for (const { value: id } of this.subDb(index.dbName).getRange({ start, end })) {
      if (seen) {
        const text = id.toString('latin1');
        if (seen.has(text)) continue;
        seen.add(text);
      }
      yield id;
    }
  }

  /**
   * Ids listed under exactly one key of an index. Keys are whole encoded tuples (or their
   * truncated form), so equality needs no range scan: one get for a unique index, the key's
   * data items otherwise.
   */
  *indexIdsForKey(index: IndexDef, key: Buffer): Generator<Buffer> {
    if (index.unique) {
      const id = this.indexIdForUniqueKey(index, key);
      if (id !== undefined) yield id;
      return;
    }
    yield* this.subDb(index.dbName).getValues(key);
  }

  /** The id under one key of a unique index. */
  indexIdForUniqueKey(index: IndexDef, key: Buffer): Buffer | undefined {
    return this.subDb(index.dbName).get(key);
  }

  /** Every change-log entry with seq greater than `afterSeq`, in order. */
  *changesAfter(afterSeq: number): Generator<ChangeEntry<Document>> {
    for (const { value } of this.changesDb.getRange({ start: seqKey(afterSeq + 1) })) {
      const entry = decodeValue<ChangeEntry>(value);
      if (entry.op === 'insert') {
        const documents = entry.documents.map((d) => ({
          id: d.id,
          doc: this.decodeDocument(d.doc),
        }));
        yield { ...entry, documents };
      } else if (entry.op === 'replace') {
        yield { ...entry, doc: this.decodeDocument(entry.doc) };
      } else {
        yield entry;
      }
    }
  }

  // ---- maintenance ---------------------------------------------------------------------

  /** Resolves once every queued write is durable. */
  async flush(): Promise<{ lastSeq: number }> {
    await this.queue.whenIdle();
    return { lastSeq: this.lastSeq };
  }

  /**
   * Flushes, then trims the change log to its retention bound (and, once replication
   * exists, to what every follower acknowledged). Returns what was trimmed.
   */
  async checkpoint(
    retainEntries: number = CHANGE_LOG_RETAIN_ENTRIES,
  ): Promise<{ lastSeq: number; trimmedEntries: number; firstSeq: number }> {
    await this.flush();
    return this.write(() => {
      const staged = this.stagedState();
      const trimmed = this.trimChangesTo(staged.lastSeq - retainEntries);
      return {
        lastSeq: staged.lastSeq,
        trimmedEntries: trimmed,
        firstSeq: staged.meta.seqFloor + 1,
      };
    });
  }

  /** Pages held by one collection's documents and indexes. */
  private collectionPages(def: CollectionDef): number {
    let pages = treeStats(this.subDb(def.dbName)).pages;
    for (const index of def.indexes) pages += treeStats(this.subDb(index.dbName)).pages;
    return pages;
  }

  /**
   * Rewrites a collection's documents and index entries into fresh sub-databases and drops
   * the old ones, releasing their pages to LMDB's free list. Reports measured page counts.
   */
  async compact(collection: string): Promise<CompactResult> {
    const before = this.pageUsage();
    const result = await this.write(() => {
      const def = this.requireForWrite(collection);
      const pagesBefore = this.collectionPages(def);
      const { name: dbName, db } = this.allocateDb('c');
      for (const { key, value } of this.subDb(def.dbName).getRange({ start: ID_MIN })) {
        db.putSync(key, value, { append: true });
      }
      const fresh: CollectionDef = { ...def, dbName, indexes: [] };
      for (const index of def.indexes) {
        const copy: IndexDef = { ...index, dbName: this.allocateDb('i').name };
        const olddb = this.subDb(index.dbName);
        const newdb = this.subDb(copy.dbName);
        for (const { key, value } of olddb.getRange({ start: Buffer.alloc(1, 0) })) {
          newdb.putSync(key, value);
        }
        fresh.indexes.push(copy);
      }
      for (const index of def.indexes) this.dropDb(index.dbName);
      this.dropDb(def.dbName);
      this.saveCollection(fresh);
      // Measured inside the job: a drop or compaction queued right behind this one may remove
      // the fresh trees before this promise settles.
      return { def: fresh, pagesBefore, pagesAfter: this.collectionPages(fresh) };
    });
    const { pagesAfter } = result;
    const after = this.pageUsage();
    const pageSize = after.pageSizeBytes;
    return {
      collection: result.def.name,
      pagesBefore: result.pagesBefore,
      pagesAfter,
      pagesCompacted: result.pagesBefore - pagesAfter,
      bytesReclaimed: (result.pagesBefore - pagesAfter) * pageSize,
      freePagesBefore: before.free,
      freePagesAfter: after.free,
      fileSizeBytes: fs.statSync(this.file).size,
    };
  }

  /** Page counts of the whole file, measured from LMDB's tree statistics. */
  pageUsage(): { pageSizeBytes: number; total: number; used: number; free: number } {
    const env = envStats(this.env);
    let used = 2 + env.mainPages + env.freeTreePages;
    used += treeStats(this.catalogDb).pages + treeStats(this.changesDb).pages;
    for (const def of this.currentDefs().values()) used += this.collectionPages(def);
    const total = env.lastPageNumber + 1;
    return { pageSizeBytes: env.pageSize, total, used, free: Math.max(0, total - used) };
  }

  /** File, page and per-collection facts for `inspect` and `/stats`. */
  stats(): StoreStats {
    const usage = this.pageUsage();
    const collections = this.collectionNames().map((name) => {
      const def = this.getCollection(name) as CollectionDef;
      return {
        name,
        count: this.count(def),
        indexes: def.indexes.map((index) => ({
          name: index.name,
          paths: index.paths,
          unique: index.unique,
          multikey: index.multikey,
          state: index.state,
          entries: treeStats(this.subDb(index.dbName)).entries,
        })),
      };
    });
    const changes = treeStats(this.changesDb).entries;
    return {
      file: this.file,
      fileSizeBytes: fs.statSync(this.file).size,
      pageSizeBytes: usage.pageSizeBytes,
      pages: { total: usage.total, used: usage.used, free: usage.free },
      collections,
      changeLog: { entries: changes, lastSeq: this.lastSeq, firstSeq: this.lastSeq - changes + 1 },
      term: this.meta.term,
    };
  }

  /** LMDB's id of the last committed transaction (diagnostics; proves group commit). */
  lastTxnId(): number {
    return envStats(this.env).lastTxnId;
  }

  /** Waits for queued writes, closes the file and releases the writer lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.queue.whenIdle();
    this.closed = true;
    await this.env.close();
    this.lock?.release();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/** Reads of documents as they were when the snapshot was opened. */
export interface DocumentSnapshot {
  getBody(def: CollectionDef, id: Buffer): Document | undefined;
  release(): void;
}

/** What a compaction measured. */
export interface CompactResult {
  collection: string;
  pagesBefore: number;
  pagesAfter: number;
  pagesCompacted: number;
  bytesReclaimed: number;
  freePagesBefore: number;
  freePagesAfter: number;
  fileSizeBytes: number;
}

/** Storage facts of a data file. */
export interface StoreStats {
  file: string;
  fileSizeBytes: number;
  pageSizeBytes: number;
  pages: { total: number; used: number; free: number };
  collections: Array<{
    name: string;
    count: number;
    indexes: Array<{
      name: string;
      paths: string[];
      unique: boolean;
      multikey: boolean;
      state: string;
      entries: number;
    }>;
  }>;
  changeLog: { entries: number; lastSeq: number; firstSeq: number };
  term: number;
}

/** One index entry: the encoded value (the key) and the document id (the data item). */
interface IndexEntry {
  key: Buffer;
  id: Buffer;
}

/** A document of a bulk insert that passed its checks, with its id in both forms. */
interface AcceptedDocument {
  id: Buffer;
  text: string;
  doc: PreparedDocument;
}

/** The ids a bulk insert claimed so far (see Store.claimId). */
interface IdClaims {
  /** The greatest id stored or claimed: a given id above it is new without a lookup. */
  highest: Buffer | undefined;
  /** Every given id claimed, in order. */
  given: Buffer[];
  /** Their hex forms, built when an id first arrives out of order. */
  seen: Set<string> | undefined;
}

function idsAscending(accepted: AcceptedDocument[]): boolean {
  for (let i = 1; i < accepted.length; i++) {
    if (
      compareBytes(
        (accepted[i - 1] as AcceptedDocument).id,
        (accepted[i] as AcceptedDocument).id,
      ) >= 0
    ) {
      return false;
    }
  }
  return true;
}

/**
 * Writes index entries sorted by key, then id: LMDB fills pages in order. When the entries
 * come in increasing id order (`idsAscending`), a stable sort on the key alone keeps it.
 */
function putEntries(db: SubDb, entries: IndexEntry[], idsAscending: boolean): void {
  if (idsAscending) entries.sort((a, b) => compareBytes(a.key, b.key));
  else entries.sort((a, b) => compareBytes(a.key, b.key) || compareBytes(a.id, b.id));
  for (const entry of entries) db.putSync(entry.key, entry.id);
}

function emptyMeta(): NodeMeta {
  return {
    format: FORMAT_VERSION,
    term: 1,
    seqFloor: 0,
    nextDbId: 1,
    createdAt: new Date().toISOString(),
  };
}

/**
 * The unknown-collection error: names the collection, lists known names (first 20, then
 * "+N more"), and suggests the lowercase name when only the letter case differs.
 */
export function collectionNotFound(name: string, known: string[]): DbError {
  const shown = known.slice(0, 20).join(', ');
  const more = known.length > 20 ? ` +${known.length - 20} more` : '';
  const list = known.length === 0 ? 'there are no collections yet' : `known: ${shown}${more}`;
  const folded = name.toLowerCase();
  const hint = folded !== name && known.includes(folded) ? `; did you mean '${folded}'?` : '';
  return new DbError('ERR_COLLECTION_NOT_FOUND', `unknown collection '${name}' (${list})${hint}`, {
    collection: name,
    known: known.slice(0, 20),
  });
}

/**
 * The Database facade: what the CLI, the server and embedding applications call. It owns one
 * Store, its write gate and the statement cache, and hands out collection handles. Every write
 * it offers passes the gate (one GatedWriter); replication reaches the store through its own
 * port (replication/port.ts), which the node wires from `store` and `gate`, never through here.
 */

import { atomicBulkRefused, collectionNotFound, type DbError, dbError } from '../errors/index.js';
import {
  type ChangeEntry,
  type CompactResult,
  type Document,
  type FileSnapshot,
  type LogPosition,
  normalizeCollectionName,
  type Recovery,
  type SelectionCacheStats,
  Store,
  type StoreOptions,
  type StoreStats,
  type VerifyProgress,
  type WriteCounts,
} from '../storage/index.js';
import type * as api from '../types/api.js';
import type {
  BulkResult,
  ChangeFeedOptions,
  ChangeLine,
  HealthBody,
  IndexInfo,
  JsonLines,
  JsonText,
  RowsOption,
  SeedResult,
  VerifyReport,
} from '../types/index.js';
import { formatId, heartbeatFeed, keyTextValues, parseId, seedOrders } from '../util/index.js';
import { VERSION } from '../version.js';
import { type ChangeFeed, type ChangesOptions, openChangeFeed, seqOfText } from './changes.js';
import { Collection } from './collection.js';
import {
  type KeyedRow,
  type QueryLimits,
  type QueryMeta,
  type QueryResult,
  type QueryTarget,
  readsWithoutSelections,
  runQuery,
  StatementCache,
  streamQuery,
} from './query.js';
import { GatedWriter, WriteGate } from './write-gate.js';

/** Options of open(). */
export interface OpenOptions extends StoreOptions {
  /** The name `health()` reports: the node's name when it serves (default `node-1`). */
  name?: string | undefined;
  /**
   * Milliseconds a SELECT may run before it is stopped with ERR_QUERY_TIMEOUT (default: no
   * limit; a node serves with its query timeout). The heap is watched either way.
   */
  queryTimeoutMs?: number | undefined;
}

/** The name a database reports when none was given: the spec's default node name. */
export const DEFAULT_NODE_NAME = 'node-1';

export class Database implements api.NodeApi {
  private readonly statements = new StatementCache();
  /** The node's role, read-only mode and commit barrier: every client write passes it. */
  readonly gate = new WriteGate();
  private readonly openedAtMs = Date.now();
  /** Where every write this database offers goes: the store, through the gate. */
  private readonly writer: GatedWriter;
  /** Where its SQL runs: the store, the writer and the plan cache. */
  private readonly queryTarget: QueryTarget;

  /**
   * `store` is the node's storage, for the node's wiring alone (replication's port, the
   * change-log archive): its own writes pass no gate. Applications use the methods below.
   */
  constructor(
    readonly store: Store,
    /** What `health()` reports as the node (the node's name when it serves). */
    readonly name = DEFAULT_NODE_NAME,
    /** What each SELECT may spend. */
    limits: QueryLimits = {},
  ) {
    this.writer = new GatedWriter(store, this.gate);
    this.queryTarget = { store, writer: this.writer, cache: this.statements, limits };
  }

  /** The data file's path. */
  get file(): string {
    return this.store.file;
  }

  /** True when opened read-only. */
  get readOnly(): boolean {
    return this.store.readOnly;
  }

  /**
   * A handle to a collection. Names are case-insensitive (folded to lowercase); an invalid
   * name throws ERR_COLLECTION_NAME_INVALID. The collection is created on first insert. A
   * handle holds only the name, so none is kept: kept handles of every name a client asked
   * for, existing or not, grew the heap without bound (64 MiB for 300,000 unknown names).
   */
  collection(name: string): Collection {
    const canonical = normalizeCollectionName(name);
    this.store.refresh();
    return new Collection(this.store, this.writer, canonical, (n) => this.unknownCollection(n));
  }

  /** The collection if it exists; otherwise ERR_COLLECTION_NOT_FOUND naming the known ones. */
  requireCollection(name: string): Collection {
    const handle = this.collection(name);
    if (!handle.exists()) throw this.unknownCollection(name);
    return handle;
  }

  private unknownCollection(name: string): DbError {
    return collectionNotFound(name, this.store.collectionNames());
  }

  // ---- the REST surface (NodeApi, types/ts): what a node serves, by collection name ----

  /** Liveness: this database's name, the version, its role and read-only mode, uptime. */
  health(): HealthBody {
    return {
      status: 'ok',
      node: this.name,
      version: VERSION,
      // What a client meets: a follower refuses writes as a read-only leader does.
      readOnly: !this.gate.writable,
      role: this.gate.role,
      uptimeSeconds: Math.floor((Date.now() - this.openedAtMs) / 1000),
    };
  }

  /** Stores one document in `collection` (created on first insert); answers its `_id`. */
  async insert(collection: string, doc: unknown): Promise<api.InsertAnswer> {
    return { id: await this.collection(collection).insert(doc) };
  }

  /**
   * Stores many documents: per-item results. With `atomic`, all or none: any failure stores
   * nothing and throws the first one's code, every failure in its details.
   */
  async bulk(
    collection: string,
    docs: unknown[],
    options: api.BulkOptions = {},
  ): Promise<BulkResult> {
    const result = await this.collection(collection).insertMany(docs, options);
    if (options.atomic && result.errors.length > 0) {
      throw atomicBulkRefused(result.errors, docs.length);
    }
    return result;
  }

  /** A page of an existing collection's documents in `_id` order. */
  list(collection: string, options: api.ListOptions = {}): api.ListAnswer {
    const documents = this.requireCollection(collection).list(options);
    return { documents, count: documents.length };
  }

  /**
   * The documents whose `field` equals `value` or the scalar its text spells (`30` finds 30
   * and "30"), each once, in `_id` order, with the plan that found them.
   */
  getByKey(collection: string, field: string, value: api.KeyValue): api.ByKeyAnswer {
    const { documents, plan } = this.byKey(collection, field, value);
    return { documents, count: documents.length, plan };
  }

  /** Replaces the one document `getByKey` finds, keeping its `_id` (404 none, 409 several). */
  async replaceByKey(
    collection: string,
    field: string,
    value: api.KeyValue,
    doc: unknown,
    condition: api.WriteCondition = {},
  ): Promise<api.ReplaceByKeyAnswer> {
    const { handle, documents } = this.byKey(collection, field, value);
    if (documents.length === 0)
      throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byKey', { collection: handle.name, field, value });
    if (documents.length > 1)
      throw dbError(
        'ERR_AMBIGUOUS_MATCH',
        'byKey',
        { matched: documents.length, collection: handle.name, field, value },
        { matched: documents.length },
      );
    const id = String(documents[0]?._id);
    await handle.replace(id, withoutId(doc, id), condition);
    return { id, matched: 1 };
  }

  /**
   * An existing collection's documents whose `field` equals `value` or the scalar its text
   * spells, each once, in `_id` order, with the plan that found them.
   */
  private byKey(collection: string, field: string, value: api.KeyValue) {
    const handle = this.requireCollection(collection);
    const values = keyTextValues(String(value));
    return { handle, ...handle.findAny(field, values, this.queryTarget.limits) };
  }

  /** Deletes every document `getByKey` finds; answers how many. */
  async deleteByKey(
    collection: string,
    field: string,
    value: api.KeyValue,
  ): Promise<api.DeleteAnswer> {
    const { handle, documents } = this.byKey(collection, field, value);
    return { deleted: await handle.deleteMany(documents.map((d) => String(d._id))) };
  }

  /**
   * The document with this `_id` and its tag, or undefined when none has it; with
   * `rows: 'json'` the document as JsonText, written from its stored bytes.
   */
  getTagged(
    collection: string,
    id: string,
    options: { rows: 'json' },
  ): Promise<api.TaggedDocument<Document | JsonText> | undefined>;
  getTagged(collection: string, id: string): Promise<api.TaggedDocument | undefined>;
  getTagged(
    collection: string,
    id: string,
    options: RowsOption = {},
  ): Promise<api.TaggedDocument<Document | JsonText> | undefined> {
    const handle = this.requireCollection(collection);
    return options.rows === 'json' ? handle.getTaggedJson(id) : handle.getTagged(id);
  }

  /** Replaces the document with this `_id`; a body `_id` must be the same one. */
  async replace(
    collection: string,
    id: string,
    doc: unknown,
    condition: api.WriteCondition = {},
  ): Promise<api.ReplaceAnswer> {
    await this.requireCollection(collection).replace(id, withoutId(doc, id), condition);
    return { id: formatId(parseId(id) as Buffer) };
  }

  /** Deletes the document with this `_id`; ERR_DOCUMENT_NOT_FOUND when none has it. */
  async delete(
    collection: string,
    id: string,
    condition: api.WriteCondition = {},
  ): Promise<api.DeleteAnswer> {
    const handle = this.requireCollection(collection);
    if (!(await handle.delete(id, condition)))
      throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', { id, collection: handle.name });
    return { deleted: 1 };
  }

  /** Drops an existing collection with its indexes. */
  async dropCollection(name: string): Promise<api.DropAnswer> {
    const handle = this.requireCollection(name);
    await handle.drop();
    return { dropped: handle.name };
  }

  /** The indexes of an existing collection. */
  indexes(collection: string): IndexInfo[] {
    return this.requireCollection(collection).listIndexes();
  }

  /** Creates an index on an existing collection and builds it before answering. */
  async createIndex(request: api.IndexRequest): Promise<api.CreatedIndex> {
    const { collection, path, paths, name, unique } = request;
    const handle = this.requireCollection(collection);
    const created = await handle.createIndex({ paths: paths ?? [path as string], name, unique });
    return { collection: handle.name, ...created };
  }

  /** Drops an index of an existing collection by name (any case); its documents stay. */
  async dropIndex(collection: string, name: string): Promise<api.DroppedIndex> {
    const handle = this.requireCollection(collection);
    return { collection: handle.name, dropped: (await handle.dropIndex(name)).name };
  }

  /** Rebuilds every index of an existing collection and marks them ready. */
  async rebuildIndexes(collection: string): Promise<api.RebuildIndexesAnswer> {
    const handle = this.requireCollection(collection);
    return { collection: handle.name, rebuilt: await handle.rebuildIndexes() };
  }

  /** Rebuilds one index by name and marks it ready. */
  async rebuildIndex(collection: string, indexName: string): Promise<api.RebuildIndexAnswer> {
    const handle = this.requireCollection(collection);
    return { collection: handle.name, rebuilt: await handle.rebuildIndex(indexName) };
  }

  /** Loads the demo reservation orders (default 10,000; `seed` picks the PRNG seed). */
  seed(orders?: number, seed?: number): Promise<SeedResult> {
    return seedOrders(this, {
      ...(orders !== undefined && { count: orders }),
      ...(seed !== undefined && { seed }),
    });
  }

  /**
   * Runs one SQL statement; `?` placeholders take `params` in order, so applications never
   * build SQL from strings. Reads give `{ plan, count, executionMs, documents }`; writes add
   * `affected` (and `ids` for INSERT). `options.shard` is a router's ShardPlan for this node's
   * part of a scattered SELECT (ADR 0014): an aggregate's partial groups, or the first `top`
   * rows with their sort keys. `options.rows: 'json'` lets rows come as JsonText where they
   * are read by id (a point lookup, a stream's rows): the server splices their text as is.
   */
  query(
    sql: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'json' | 'ndjson' },
  ): Promise<QueryResult<Document | JsonText>>;
  query(sql: string, params?: readonly unknown[], options?: api.QueryOptions): Promise<QueryResult>;
  query(
    sql: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): Promise<QueryResult<Document | JsonText>> {
    return runQuery(this.queryTarget, sql, params, options.shard, options.rows);
  }

  /**
   * Runs one statement as a stream: the first value is the meta `{ plan, count,
   * executionMs }`, then one document at a time (writes yield only the meta). Memory grows
   * with the number of matching ids, not documents; stop early with `break`. With
   * `options.rows: 'ndjson'` a plain SELECT's rows come as JsonLines, NDJSON chunks of about
   * 64 KiB written from the stored bytes, which the server sends as they are.
   */
  queryStream(
    sql: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'ndjson' },
  ): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines | KeyedRow, void, undefined>;
  queryStream(
    sql: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'json' },
  ): AsyncGenerator<QueryMeta | Document | JsonText | KeyedRow, void, undefined>;
  queryStream(
    sql: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): AsyncGenerator<QueryMeta | Document | KeyedRow, void, undefined>;
  queryStream(
    sql: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines | KeyedRow, void, undefined> {
    return streamQuery(this.queryTarget, sql, params, options.shard, options.rows);
  }

  /**
   * Parses one statement and holds it by handle (at most PREPARED_STATEMENTS_MAX, the least
   * recently used going first). `execute(handle, params)` then finds it by one lookup of the
   * handle; its plan is made again only when the catalog changes (CREATE INDEX and the like).
   */
  prepare(sql: string): api.PreparedStatement {
    const { handle, parsed } = this.statements.prepare(sql);
    return { handle, kind: parsed.statement.kind, paramCount: parsed.paramCount };
  }

  /** Runs a prepared statement as `query` runs its text (ERR_SQL_HANDLE_UNKNOWN if not held). */
  execute(
    handle: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'json' | 'ndjson' },
  ): Promise<QueryResult<Document | JsonText>>;
  execute(
    handle: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): Promise<QueryResult>;
  execute(
    handle: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): Promise<QueryResult<Document | JsonText>> {
    return runQuery(this.queryTarget, { handle }, params, options.shard, options.rows);
  }

  /** Runs a prepared statement as a stream, as `queryStream` runs its text. */
  executeStream(
    handle: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'ndjson' },
  ): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines | KeyedRow, void, undefined>;
  executeStream(
    handle: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'json' },
  ): AsyncGenerator<QueryMeta | Document | JsonText | KeyedRow, void, undefined>;
  executeStream(
    handle: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): AsyncGenerator<QueryMeta | Document | KeyedRow, void, undefined>;
  executeStream(
    handle: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines | KeyedRow, void, undefined> {
    return streamQuery(this.queryTarget, { handle }, params, options.shard, options.rows);
  }

  /**
   * Whether a statement (text or prepared handle) with these params is a SELECT that keeps
   * no selection: read through an index, or the whole of one collection unfiltered and
   * unsorted, joining nothing; found without running it (false for anything else, errors
   * included). A reader process answers those itself (server/reader.ts).
   */
  readsWithoutSelections(
    statement: string | { handle: string },
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): boolean {
    return readsWithoutSelections(this.queryTarget, statement, params, options.shard);
  }

  /**
   * The kind of a statement (`select`, `insert`, …) without running it: parsed through the
   * statement cache, so the length limit applies first and the parse is reused.
   */
  statementKind(sql: string): string {
    return this.statements.get(sql).statement.kind;
  }

  /** Canonical names of every collection, sorted. */
  collections(): string[] {
    this.store.refresh();
    return this.store.collectionNames();
  }

  /** File size, pages, collections with counts, and every index with its state. */
  stats(): StoreStats {
    this.store.refresh();
    return this.store.stats();
  }

  /**
   * Checks the whole file: every document decodes, every index entry agrees with its
   * document both ways, the change log is contiguous, stored counts match. Writes nothing.
   */
  verify(progress?: VerifyProgress): Promise<VerifyReport> {
    return this.store.verify(progress);
  }

  /** Resolves once every write issued so far is durable. */
  async flush(): Promise<api.FlushAnswer> {
    return { flushed: true, ...(await this.store.flush()) };
  }

  /**
   * Trims the change log to its retention bound, then makes the data file durable as a
   * checkpoint (the write-ahead log before it is let go).
   */
  async checkpoint(): Promise<api.CheckpointAnswer> {
    return { checkpointed: true, ...(await this.store.checkpoint()) };
  }

  /**
   * What a writing open found and did after an unclean stop: whether it put the file back at
   * its last checkpoint and how many entries it applied again from the write-ahead log.
   */
  recovery(): Recovery {
    return this.store.recovery();
  }

  /**
   * Writes a consistent copy of the whole data file to `file` (a new path) while writes go
   * on: every write acknowledged before the call is in it. What `takeBackup` builds on.
   */
  copyTo(file: string, compact = false): Promise<void> {
    return this.store.copyTo(file, compact);
  }

  /** Rewrites one collection compactly; reports the pages and bytes reclaimed. */
  compact(name: string): Promise<CompactResult> {
    const canonical = normalizeCollectionName(name);
    if (!this.store.getCollection(canonical)) return Promise.reject(this.unknownCollection(name));
    return this.compactThroughGate(canonical);
  }

  private async compactThroughGate(canonical: string): Promise<CompactResult> {
    const before = this.store.pageUsage();
    const trees = await this.writer.write((txn) => txn.compactCollection(canonical));
    return this.store.compactResult(trees, before);
  }

  /** Change-log entries after `seq` that are still kept, oldest first. */
  changesSince(seq: number): Iterable<ChangeEntry> {
    return this.store.changesAfter(seq);
  }

  /**
   * The change-log entries after `seq`, then each new one as it commits, until `signal`
   * aborts: what a change feed reads. Rejects with ERR_CHANGES_TRIMMED when
   * those entries were trimmed (read `openFileSnapshot()` first, then follow its seq).
   */
  followChanges(seq: number, signal?: AbortSignal): AsyncGenerator<ChangeEntry> {
    return this.store.followChanges(seq, signal);
  }

  /**
   * The change feed: the entries after `since` (default: the last seq now, so only new
   * writes), then each one as it commits, until `signal` aborts; of one collection when given.
   * Bad options and a `since` below the log's floor (ERR_CHANGES_TRIMMED) throw at once.
   * `feed.position` is where a consumer resumes. See docs/changes.md.
   */
  changes(options: ChangesOptions = {}): ChangeFeed {
    return openChangeFeed(this, options);
  }

  /**
   * `GET /changes` (NodeApi): `changes` with `since` as text and heartbeats woven in, each
   * saying the feed's `position` as `lastSeq`. Its refusals throw from the first read.
   */
  changesWithHeartbeats(
    options: ChangeFeedOptions = {},
  ): AsyncGenerator<ChangeLine, void, undefined> {
    const { since, collection, heartbeatMs, signal } = options;
    return heartbeatFeed(
      (stop) => {
        const feed = this.changes({
          ...(since !== undefined && { since: seqOfText(since) }),
          ...(collection !== undefined && { collection }),
          signal: stop,
        });
        return {
          lines: feed,
          heartbeat: () => ({ heartbeat: Date.now(), lastSeq: feed.position }),
        };
      },
      { heartbeatMs, signal },
    );
  }

  /** Every collection, index definition and document at one seq, from one pinned state. */
  openFileSnapshot(): FileSnapshot {
    this.store.refresh();
    return this.store.openFileSnapshot();
  }

  /**
   * Replication term, the change log's newest and trimmed seqs, the term of its newest entry
   * (`lastTerm`: the floor's term when the log holds none, 0 when nothing was written) and
   * that entry's hash-chain link.
   */
  nodeState(): LogPosition {
    return this.store.nodeState();
  }

  /** Documents written through this handle since it opened the file, by operation. */
  writeCounts(): WriteCounts {
    return this.store.writeCounts();
  }

  /** The selections of whole scans this writer keeps in memory, and their documents. */
  selectionCache(): SelectionCacheStats {
    return this.store.selectionCache();
  }

  /** Waits for queued writes, then closes the file and releases its writer lock. */
  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Opens a database: a data directory (its `data.docdb` is created when missing) or a
 * `.docdb` file. A writing open takes the file's writer lock; `readOnly` does not.
 */
export async function open(target: string, options: OpenOptions = {}): Promise<Database> {
  if (options.readOnly !== true) await Store.create(target);
  else await Store.recoverForReading(target);
  return new Database(Store.open(target, options), options.name, {
    timeoutMs: options.queryTimeoutMs,
  });
}

/**
 * A replacement body keeps the stored `_id`: a body `_id` must match it (any case or the
 * undashed form) and is dropped before the replace.
 */
function withoutId(body: unknown, id: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('_id' in body))
    return body;
  const { _id, ...rest } = body as Document;
  const same =
    typeof _id === 'string' &&
    _id.replaceAll('-', '').toLowerCase() === id.replaceAll('-', '').toLowerCase();
  if (!same) {
    throw dbError('ERR_DOCUMENT_ID_INVALID', 'bodyIdDiffers', { given: JSON.stringify(_id), id });
  }
  return rest;
}

/**
 * The REST surface said once (docs/rest.md): `NodeApi`, what a node answers, and the bodies
 * of its answers. The embedded `Database`, the cluster's `Router` and the HTTP `DocdbClient`
 * implement it, and the server's route plugins serve any implementation, so a router answers
 * as a node does and a client cannot tell them apart.
 */

import type { ChangeFeedOptions, ChangeLine } from './changes.js';
import type {
  BulkResult,
  Document,
  JsonLines,
  JsonText,
  RowsOption,
  SeedResult,
} from './documents.js';
import type { HealthBody } from './node.js';
import type { QueryMeta, QueryResult, ShardPlan } from './query.js';
import type { ReplicationStatus } from './replication.js';
import type {
  CheckpointResult,
  CompactResult,
  IndexInfo,
  RouterStats,
  StoreStats,
} from './stats.js';

/** An answer the embedded database may give at once; callers await it either way. */
export type Answer<T> = T | Promise<T>;

/**
 * What a node answers, route by route (docs/rest.md); every method is one REST route. By-key
 * values travel as text and match the text and the scalar it spells (`/by/age/30` finds 30
 * and "30"). Errors are DbErrors with the catalogue's codes, thrown alike by every
 * implementation.
 */
export interface NodeApi {
  /** `GET /health`. */
  health(): Answer<HealthBody>;
  /** `GET /stats`: a node's file and collections, or a router's sum and every shard's. */
  stats(): Answer<NodeStats>;
  /** `GET /collections`: every collection's name. */
  collections(): Answer<string[]>;

  /**
   * `POST /query`: one statement, `?` placeholders filled from `params` in order. With
   * `rows: 'json'` (or `ndjson`) rows may come as JsonText (see RowsOption).
   */
  query(
    sql: string,
    params: readonly unknown[] | undefined,
    options: QueryOptions & { rows: 'json' | 'ndjson' },
  ): Promise<QueryResult<Document | JsonText>>;
  query(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<QueryResult>;
  /**
   * `POST /query` as NDJSON: the meta first, then one document at a time (with `rows:
   * 'ndjson'`, also several at a time as JsonLines).
   */
  queryStream(
    sql: string,
    params: readonly unknown[] | undefined,
    options: QueryOptions & { rows: 'ndjson' },
  ): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines, void, undefined>;
  queryStream(
    sql: string,
    params: readonly unknown[] | undefined,
    options: QueryOptions & { rows: 'json' },
  ): AsyncGenerator<QueryMeta | Document | JsonText, void, undefined>;
  queryStream(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): AsyncGenerator<QueryMeta | Document, void, undefined>;
  /**
   * `POST /query/prepare`: parses one statement and answers the handle to run it by. The
   * handle is derived from the text, so preparing it again answers the same one.
   */
  prepare(sql: string): Answer<PreparedStatement>;
  /**
   * `POST /query` with `{ handle, params }`: runs a prepared statement, found by its handle
   * without reading or parsing the text. ERR_SQL_HANDLE_UNKNOWN (400) when the server does not
   * hold it (restarted, or let it go): prepare the text again. `rows: 'json'` as in `query`.
   */
  execute(
    handle: string,
    params: readonly unknown[] | undefined,
    options: QueryOptions & { rows: 'json' | 'ndjson' },
  ): Promise<QueryResult<Document | JsonText>>;
  execute(
    handle: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult>;
  /** `POST /query` with `{ handle, params }` as NDJSON, as `queryStream` answers. */
  executeStream(
    handle: string,
    params: readonly unknown[] | undefined,
    options: QueryOptions & { rows: 'ndjson' },
  ): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines, void, undefined>;
  executeStream(
    handle: string,
    params: readonly unknown[] | undefined,
    options: QueryOptions & { rows: 'json' },
  ): AsyncGenerator<QueryMeta | Document | JsonText, void, undefined>;
  executeStream(
    handle: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): AsyncGenerator<QueryMeta | Document, void, undefined>;

  /** `POST /collections/{name}`: stores one document, creating the collection. */
  insert(collection: string, doc: unknown): Promise<InsertAnswer>;
  /** `POST /collections/{name}/bulk`: per-item results (`atomic`: all or nothing). */
  bulk(collection: string, docs: unknown[], options?: BulkOptions): Promise<BulkResult>;
  /** `GET /collections/{name}`: a page in `_id` order. */
  list(collection: string, options?: ListOptions): Answer<ListAnswer>;
  /** `GET …/by/{field}/{value}`: every match, and the plan that found them. */
  getByKey(collection: string, field: string, value: KeyValue): Answer<ByKeyAnswer>;
  /** `PUT …/by/{field}/{value}`: replaces the one match (404 none, 409 several). */
  replaceByKey(
    collection: string,
    field: string,
    value: KeyValue,
    doc: unknown,
    condition?: WriteCondition,
  ): Promise<ReplaceByKeyAnswer>;
  /** `DELETE …/by/{field}/{value}`: deletes every match. */
  deleteByKey(collection: string, field: string, value: KeyValue): Promise<DeleteAnswer>;
  /**
   * `GET /collections/{name}/{_id}` with its tag, or undefined when no document has it. With
   * `rows: 'json'` the document may come as JsonText.
   */
  getTagged(
    collection: string,
    id: string,
    options: { rows: 'json' },
  ): Promise<TaggedDocument<Document | JsonText> | undefined>;
  getTagged(collection: string, id: string): Promise<TaggedDocument | undefined>;
  /** `PUT /collections/{name}/{_id}`: replaces it, keeping its `_id`. */
  replace(
    collection: string,
    id: string,
    doc: unknown,
    condition?: WriteCondition,
  ): Promise<ReplaceAnswer>;
  /** `DELETE /collections/{name}/{_id}` (404 when no document has it). */
  delete(collection: string, id: string, condition?: WriteCondition): Promise<DeleteAnswer>;
  /** `DELETE /collections/{name}` (the route asks for `X-Confirm: true` first). */
  dropCollection(name: string): Promise<DropAnswer>;

  /** `GET /indexes/{collection}`. */
  indexes(collection: string): Answer<IndexInfo[]>;
  /** `POST /index`: creates and builds an index on an existing collection. */
  createIndex(request: IndexRequest): Promise<CreatedIndex>;
  /** `DELETE /indexes/{collection}/{name}`: drops the index (404 when there is none). */
  dropIndex(collection: string, name: string): Promise<DroppedIndex>;

  /** `POST /admin/flush`. */
  flush(): Promise<FlushAnswer>;
  /** `POST /admin/checkpoint`. */
  checkpoint(): Promise<CheckpointAnswer>;
  /** `POST /admin/compact/{collection}`. */
  compact(collection: string): Promise<CompactResult>;
  /** `POST /admin/rebuild-indexes/{collection}`. */
  rebuildIndexes(collection: string): Promise<RebuildIndexesAnswer>;
  /** `POST /admin/rebuild-index/{collection}/{indexName}`. */
  rebuildIndex(collection: string, indexName: string): Promise<RebuildIndexAnswer>;
  /** `POST /seed`: the demo orders (default 10,000; `seed` picks the PRNG seed). */
  seed(orders?: number, seed?: number): Promise<SeedResult>;

  /**
   * `GET /changes` (docs/changes.md), line by line as the route sends it: a heartbeat at once
   * (where the feed starts), the entries after `since`, then each commit, and a heartbeat
   * after each silence; every line says where to resume after it. A refusal (a bad `since`
   * or `collection`, 410 ERR_CHANGES_TRIMMED) throws from the first read, so nothing is sent
   * before it. Iterate once; abort `signal` to close it, even mid-read (or `return()` between
   * reads). `changes()` of Database and DocdbClient is this without the heartbeats.
   */
  changesWithHeartbeats(options?: ChangeFeedOptions): AsyncGenerator<ChangeLine, void, undefined>;
}

/** `GET /stats`: a node's, or a router's (which has `shards`). */
export type NodeStats = StoreStats | RouterStats;

/** Options of `query` and `queryStream`. */
export interface QueryOptions extends RowsOption {
  /** A router's plan for a shard's part of a scattered SELECT (ADR 0014). */
  shard?: ShardPlan;
}

/** `POST /query/prepare`: the handle of a statement, and what it is. */
export interface PreparedStatement {
  /** What `POST /query` takes as `handle`: 22 characters, derived from the SQL text. */
  handle: string;
  /** The statement's kind: `select`, `insert`, `update`, `delete`, `createIndex`, `dropIndex`. */
  kind: string;
  /** How many `?` placeholders it has: the length `params` must have. */
  paramCount: number;
}

/** `POST /collections/{name}`: the new document's `_id`. */
export interface InsertAnswer {
  id: string;
}

/** `GET /collections/{name}`: a page of documents in `_id` order. */
export interface ListAnswer {
  documents: Document[];
  count: number;
}

/** `GET /collections/{name}/by/{field}/{value}`: every match, and the plan that found them. */
export interface ByKeyAnswer extends ListAnswer {
  plan: string;
}

/** `PUT /collections/{name}/by/{field}/{value}`: the one document replaced. */
export interface ReplaceByKeyAnswer {
  id: string;
  matched: 1;
}

/** `DELETE` by key (every match) or by `_id` (1). */
export interface DeleteAnswer {
  deleted: number;
}

/** `PUT /collections/{name}/{_id}`. */
export interface ReplaceAnswer {
  id: string;
}

/** `DELETE /collections/{name}`. */
export interface DropAnswer {
  dropped: string;
}

/** `POST /index`: the index, built before the answer. */
export interface CreatedIndex extends IndexInfo {
  collection: string;
}

/** `DELETE /indexes/{collection}/{name}`: the canonical collection and the index's own name. */
export interface DroppedIndex {
  collection: string;
  dropped: string;
}

/** What `createIndex` sends: one path or several (a compound index). */
export type IndexRequest = {
  collection: string;
  name?: string;
  unique?: boolean;
} & ({ path: string; paths?: never } | { paths: string[]; path?: never });

/** `POST /admin/flush`. */
export interface FlushAnswer {
  flushed: true;
  lastSeq: number;
}

/** `POST /admin/checkpoint`. */
export interface CheckpointAnswer extends CheckpointResult {
  checkpointed: true;
}

/** `POST /admin/rebuild-indexes/{collection}`. */
export interface RebuildIndexesAnswer {
  collection: string;
  rebuilt: IndexInfo[];
}

/** `POST /admin/rebuild-index/{collection}/{indexName}`. */
export interface RebuildIndexAnswer {
  collection: string;
  rebuilt: IndexInfo;
}

/** The X-DOCDB-* headers of a `POST /query` answer, and its request id. */
export interface QueryHeaders {
  plan: string;
  count: number;
  /** As the header gives it: three decimals. */
  executionMs: number;
  requestId: string | undefined;
}

/** `POST /query`: the envelope, with the headers beside it. */
export interface QueryAnswer extends QueryResult {
  headers: QueryHeaders;
}

/** Options of `bulk` (`?atomic=true`, `?skipIndexes=true`). */
export interface BulkOptions {
  /** All or nothing: any failure stores nothing and throws the first one's DbError. */
  atomic?: boolean;
  /** A cold load: the collection's indexes turn `stale` until rebuilt. */
  skipIndexes?: boolean;
}

/** A document with its tag (the `ETag` of `GET …/{_id}`). */
export interface TaggedDocument<Doc = Document> {
  doc: Doc;
  /**
   * Changes with every write to the document; meaningful on the node that gave it only.
   * Absent from a router's copy of a replicated document, as each shard's copy has its own.
   */
  tag?: string;
}

/**
 * Makes `replace` or `delete` conditional on the version of the document a reader saw: 412
 * ERR_DOCUMENT_CHANGED when the tag is stale.
 */
export interface WriteCondition {
  /** The tag `getTagged` answered (over REST, the `ETag` of a GET). */
  ifMatch?: string;
}

/** Options of `list`. */
export interface ListOptions {
  /** Default 100, at most 10,000. */
  limit?: number;
  /** Start after this `_id` (the last one of the page before). */
  after?: string;
}

/** What a value in a by-key path may be: it travels as text and matches what it spells. */
export type KeyValue = string | number | boolean | null;

/** The replication transitions answer the status as it is after the change. */
export type TransitionAnswer = ReplicationStatus;

/**
 * DocdbClientBase: one method per route of the node REST API (docs/rest.md), typed with the
 * shapes of src/types/, over any transport. It builds paths and reads answers; the transport
 * owns connections, retries and errors. It never holds a whole query stream in memory, and
 * imports nothing that needs Node: `DocdbClient` puts it over undici in Node (node-client.ts)
 * and over `fetch` in a browser (browser-client.ts; ADR 0024).
 */

import { dbError, isDbError } from '../errors/index.js';
import type * as api from '../types/api.js';
import type {
  BulkResult,
  ChangeLine,
  CompactResult,
  Document,
  FeedEntry,
  HealthBody,
  IndexInfo,
  QueryMeta,
  ReplicationStatus,
  SeedResult,
} from '../types/index.js';
import { type ChangesOptions, followFeed } from './changes.js';
import { ndjsonValues } from './ndjson.js';
import { StatementHandles } from './statement-handles.js';
import type { Call, OpenAnswer, Transport } from './transport.js';

const NDJSON = 'application/x-ndjson';

function ifMatch(condition: api.WriteCondition): Pick<Call, 'headers'> {
  return condition.ifMatch === undefined
    ? {}
    : { headers: { 'if-match': `"${condition.ifMatch}"` } };
}

/** A path segment: any text, encoded (a collection name, a JSON path, a value, an `_id`). */
const seg = (text: string): string => encodeURIComponent(text);

/** The routes of a typed client of one docdb node (or a router, which serves the same API). */
export class DocdbClientBase implements api.NodeApi {
  /** The texts `query` has sent and the handles it prepared for them. */
  private readonly handles = new StatementHandles();

  constructor(protected readonly transport: Transport) {}

  /** The node's address as given, without a trailing slash. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  private async call<T>(call: Call): Promise<T> {
    return (await this.transport.json<T>(call)).body;
  }

  // ---- node ------------------------------------------------------------------------------

  /** `GET /health` (public: needs no API key). */
  health(): Promise<HealthBody> {
    return this.call({ method: 'GET', path: '/health' });
  }

  /** `GET /stats`: the file, its pages, collections with counts and indexes, the change log. */
  stats(): Promise<api.NodeStats> {
    return this.call({ method: 'GET', path: '/stats' });
  }

  /** `GET /collections`: canonical names, sorted. */
  collections(): Promise<string[]> {
    return this.call({ method: 'GET', path: '/collections' });
  }

  /** `GET /metrics`: the Prometheus text. */
  async metrics(): Promise<string> {
    return (await this.transport.text({ method: 'GET', path: '/metrics', accept: 'text/plain' }))
      .body;
  }

  /** `GET /openapi.json`: the API as an OpenAPI 3 document. */
  openApi(): Promise<Record<string, unknown>> {
    return this.call({ method: 'GET', path: '/openapi.json' });
  }

  // ---- SQL -------------------------------------------------------------------------------

  /**
   * `POST /query`: one statement, `?` placeholders filled from `params` in order (never
   * build SQL from strings). Answers the envelope and the X-DOCDB-* headers. A text sent a
   * second time is prepared (`POST /query/prepare`) and from then on sent by its handle; a
   * handle the node no longer holds (ERR_SQL_HANDLE_UNKNOWN: it restarted) is prepared again
   * and the request sent once more, which is safe for a write too, as the node ran nothing.
   * No other failure of a write is retried.
   */
  async query(
    sql: string,
    params?: readonly unknown[],
    options: api.QueryOptions = {},
  ): Promise<api.QueryAnswer> {
    return this.byStatement(sql, (statement) => this.postQuery(statement, params, options));
  }

  /**
   * `POST /query/prepare`: parses one statement on the node and answers its handle (the
   * same for the same text, on any node), its kind and its placeholder count.
   */
  prepare(sql: string): Promise<api.PreparedStatement> {
    return this.call({ method: 'POST', path: '/query/prepare', json: { sql } });
  }

  /**
   * `POST /query` with `{ handle, params }`: runs a statement `prepare` answered for. Throws
   * ERR_SQL_HANDLE_UNKNOWN (400) when the node does not hold it; `query` handles that itself.
   */
  execute(
    handle: string,
    params?: readonly unknown[],
    options: api.QueryOptions = {},
  ): Promise<api.QueryAnswer> {
    return this.postQuery({ handle }, params, options);
  }

  /** `POST /query` with `{ handle, params }` as NDJSON, answered as `queryStream`. */
  executeStream(
    handle: string,
    params?: readonly unknown[],
    options: api.QueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    return this.readQueryStream(() => this.openQueryStream({ handle }, params, options));
  }

  /**
   * Sends `sql` by `send`: by its handle when prepared (preparing it when `handles` says it is
   * due), else by text. A handle the node does not hold is prepared again and sent once more.
   */
  private async byStatement<T>(
    sql: string,
    send: (statement: Statement) => Promise<T>,
  ): Promise<T> {
    const handle = this.handles.handleOf(sql) ?? (await this.prepareIfDue(sql));
    if (handle === undefined) return send({ sql });
    try {
      return await send({ handle });
    } catch (error) {
      if (!isDbError(error) || error.code !== 'ERR_SQL_HANDLE_UNKNOWN') throw error;
      this.handles.forget(sql);
      const again = await this.prepare(sql);
      this.handles.remember(sql, again.handle);
      return send({ handle: again.handle });
    }
  }

  /** Prepares `sql` if this is its second sending; a node without the route gets text. */
  private async prepareIfDue(sql: string): Promise<string | undefined> {
    if (!this.handles.due(sql)) return undefined;
    try {
      const { handle } = await this.prepare(sql);
      this.handles.remember(sql, handle);
      return handle;
    } catch (error) {
      // An older node: no POST /query/prepare. Any other failure (a syntax error) is the
      // statement's own, as the text would have met it.
      if (!isDbError(error) || error.code !== 'ERR_ROUTE_NOT_FOUND') throw error;
      this.handles.disable();
      return undefined;
    }
  }

  private async postQuery(
    statement: Statement,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions,
  ): Promise<api.QueryAnswer> {
    const { body, headers } = await this.transport.json<Omit<api.QueryAnswer, 'headers'>>({
      method: 'POST',
      path: '/query',
      json: queryBody(statement, params, options),
    });
    return {
      ...body,
      headers: {
        plan: String(headers['x-docdb-plan'] ?? ''),
        count: Number(headers['x-docdb-count']),
        executionMs: Number(headers['x-docdb-executionms']),
        requestId: headers['x-request-id'] as string | undefined,
      },
    };
  }

  /**
   * `POST /query` as NDJSON: the first value is the meta `{ plan, count, executionMs }`, then
   * one document at a time as the node sends them; memory holds one line. `break` ends the
   * request and frees its connection. A stream the node cuts short (fewer documents than
   * the meta's count) throws ERR_CLIENT_PROTOCOL at its end. With `shard.sortKeys` (a
   * router's request) each row after the meta is a `KeyedRow` `{ doc, sortKey }`.
   */
  queryStream(
    sql: string,
    params?: readonly unknown[],
    options: api.QueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    return this.readQueryStream(() =>
      this.byStatement(sql, (statement) => this.openQueryStream(statement, params, options)),
    );
  }

  /** Opens `POST /query` as NDJSON: refusals (a bad statement, an unknown handle) throw here. */
  private async openQueryStream(
    statement: Statement,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions,
  ): Promise<{ call: Call; answer: OpenAnswer }> {
    const call: Call = {
      method: 'POST',
      path: '/query',
      json: queryBody(statement, params, options),
      accept: NDJSON,
    };
    return { call, answer: await this.transport.open(call) };
  }

  /** Reads an NDJSON query answer `open` opens: the meta, then the documents. */
  private async *readQueryStream(
    open: () => Promise<{ call: Call; answer: OpenAnswer }>,
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    const { call, answer } = await open();
    const where = this.transport.urlOf(call);
    answer.settle();
    let meta: QueryMeta | undefined;
    let documents = 0;
    try {
      for await (const value of ndjsonValues(answer.body, where)) {
        if (meta === undefined) meta = value as QueryMeta;
        else documents++;
        yield value as QueryMeta | Document;
      }
    } catch (error) {
      throw this.transport.failure(call, error);
    } finally {
      // After a `break` (or a throw) the rest is not wanted: drop the connection.
      answer.body.destroy();
    }
    if (meta === undefined) {
      throw dbError('ERR_CLIENT_PROTOCOL', 'noMetaLine', { where });
    }
    if (documents < meta.count && meta.affected === undefined) {
      throw dbError('ERR_CLIENT_PROTOCOL', 'streamCut', { where, documents, count: meta.count });
    }
  }

  // ---- the change feed -------------------------------------------------------------------

  /**
   * `GET /changes` (docs/changes.md): the entries after `since` (default: from now), then each
   * commit, until `signal` aborts or the node ends the feed; of one collection when given.
   * Heartbeats are hidden (see `changesWithHeartbeats`). A trimmed `since` throws
   * ERR_CHANGES_TRIMMED (410) before the first entry, or while it runs if the node trimmed past
   * it. Each feed holds one of the client's pooled connections while it runs.
   */
  changes(options: ChangesOptions = {}): AsyncGenerator<FeedEntry, void, undefined> {
    return followFeed(this.transport, options, false) as AsyncGenerator<FeedEntry, void, undefined>;
  }

  /**
   * `GET /changes` line by line (NodeApi): `changes` with the heartbeats too. The first value
   * is the heartbeat that says where the feed starts (`lastSeq`, or a router's `cursor`), then
   * one after each of the server's silences, so a consumer can save its resume point even
   * while a filter skips everything.
   */
  changesWithHeartbeats(options: ChangesOptions = {}): AsyncGenerator<ChangeLine, void, undefined> {
    return followFeed(this.transport, options, true);
  }

  // ---- documents -------------------------------------------------------------------------

  /** `POST /collections/{name}`: stores one document (creating the collection); never retried. */
  insert(collection: string, doc: Document): Promise<api.InsertAnswer> {
    return this.call({ method: 'POST', path: `/collections/${seg(collection)}`, json: doc });
  }

  /**
   * `POST /collections/{name}/bulk`: per-item results. With `atomic`, any failure stores
   * nothing and throws the first failure's DbError, whose details hold `ids` and `errors`.
   */
  bulk(collection: string, docs: Document[], options: api.BulkOptions = {}): Promise<BulkResult> {
    const query = new URLSearchParams();
    if (options.atomic) query.set('atomic', 'true');
    if (options.skipIndexes) query.set('skipIndexes', 'true');
    const search = query.size > 0 ? `?${query}` : '';
    return this.call({
      method: 'POST',
      path: `/collections/${seg(collection)}/bulk${search}`,
      json: docs,
    });
  }

  /** `GET /collections/{name}`: a page in `_id` order; pass the last `_id` as `after` for the next. */
  list(collection: string, options: api.ListOptions = {}): Promise<api.ListAnswer> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.after !== undefined) query.set('after', options.after);
    const search = query.size > 0 ? `?${query}` : '';
    return this.call({ method: 'GET', path: `/collections/${seg(collection)}${search}` });
  }

  /** `GET …/by/{path}/{value}`: every document whose `path` holds `value` (or what it spells). */
  getByKey(collection: string, path: string, value: api.KeyValue): Promise<api.ByKeyAnswer> {
    return this.call({ method: 'GET', path: byKey(collection, path, value) });
  }

  /**
   * `PUT …/by/{path}/{value}`: replaces the one match (404 none, 409 several); keeps its `_id`;
   * with `ifMatch` only while the match's tag is that one (else 412 ERR_DOCUMENT_CHANGED).
   */
  replaceByKey(
    collection: string,
    path: string,
    value: api.KeyValue,
    doc: Document,
    condition: api.WriteCondition = {},
  ): Promise<api.ReplaceByKeyAnswer> {
    return this.call({
      method: 'PUT',
      path: byKey(collection, path, value),
      json: doc,
      ...ifMatch(condition),
    });
  }

  /** `DELETE …/by/{path}/{value}`: deletes every match. */
  deleteByKey(collection: string, path: string, value: api.KeyValue): Promise<api.DeleteAnswer> {
    return this.call({ method: 'DELETE', path: byKey(collection, path, value) });
  }

  /** `GET /collections/{name}/{_id}`: the document, or undefined when no document has that `_id`. */
  async get(collection: string, id: string): Promise<Document | undefined> {
    try {
      return await this.require(collection, id);
    } catch (error) {
      if (isDbError(error, 'ERR_DOCUMENT_NOT_FOUND')) return undefined;
      throw error;
    }
  }

  /** `GET /collections/{name}/{_id}`: the document; 404 ERR_DOCUMENT_NOT_FOUND throws. */
  require(collection: string, id: string): Promise<Document> {
    return this.call({ method: 'GET', path: byId(collection, id) });
  }

  /**
   * `GET /collections/{name}/{_id}` with its `ETag`: the document and its tag, or undefined
   * when no document has that `_id`. A router's copy of a replicated document has no tag.
   */
  async getTagged(collection: string, id: string): Promise<api.TaggedDocument | undefined> {
    try {
      const { body, headers } = await this.transport.json<Document>({
        method: 'GET',
        path: byId(collection, id),
      });
      const tag = /"([^"]*)"/.exec(String(headers.etag ?? ''))?.[1];
      return tag === undefined ? { doc: body } : { doc: body, tag };
    } catch (error) {
      if (isDbError(error, 'ERR_DOCUMENT_NOT_FOUND')) return undefined;
      throw error;
    }
  }

  /**
   * `PUT /collections/{name}/{_id}`: replaces the document, keeping its `_id`; with `ifMatch`
   * only while its tag is that one (else 412 ERR_DOCUMENT_CHANGED).
   */
  replace(
    collection: string,
    id: string,
    doc: Document,
    condition: api.WriteCondition = {},
  ): Promise<api.ReplaceAnswer> {
    return this.call({
      method: 'PUT',
      path: byId(collection, id),
      json: doc,
      ...ifMatch(condition),
    });
  }

  /**
   * `DELETE /collections/{name}/{_id}`; with `ifMatch` only while its tag is that one (else
   * 412 ERR_DOCUMENT_CHANGED).
   */
  delete(
    collection: string,
    id: string,
    condition: api.WriteCondition = {},
  ): Promise<api.DeleteAnswer> {
    return this.call({ method: 'DELETE', path: byId(collection, id), ...ifMatch(condition) });
  }

  /** `DELETE /collections/{name}` with `X-Confirm: true`: drops it with its indexes. */
  dropCollection(name: string): Promise<api.DropAnswer> {
    return this.call({
      method: 'DELETE',
      path: `/collections/${seg(name)}`,
      headers: { 'x-confirm': 'true' },
    });
  }

  // ---- indexes ---------------------------------------------------------------------------

  /** `GET /indexes/{collection}`. */
  indexes(collection: string): Promise<IndexInfo[]> {
    return this.call({ method: 'GET', path: `/indexes/${seg(collection)}` });
  }

  /** `POST /index`: creates and builds an index on an existing collection. */
  createIndex(request: api.IndexRequest): Promise<api.CreatedIndex> {
    return this.call({ method: 'POST', path: '/index', json: request });
  }

  /**
   * `DELETE /indexes/{collection}/{name}`: drops the index (its name in any letter case), as
   * SQL `DROP INDEX` does; 404 ERR_INDEX_NOT_FOUND or ERR_COLLECTION_NOT_FOUND throws.
   */
  dropIndex(collection: string, name: string): Promise<api.DroppedIndex> {
    return this.call({ method: 'DELETE', path: `/indexes/${seg(collection)}/${seg(name)}` });
  }

  /** `POST /seed`: loads the demo orders (default 10,000; `seed` picks the PRNG seed). */
  seed(orders?: number, seed?: number): Promise<SeedResult> {
    const json = {
      ...(orders !== undefined && { orders }),
      ...(seed !== undefined && { seed }),
    };
    return this.call({ method: 'POST', path: '/seed', json });
  }

  // ---- admin -----------------------------------------------------------------------------

  /** `POST /admin/flush`: every committed write is on disk. */
  flush(): Promise<api.FlushAnswer> {
    return this.call({ method: 'POST', path: '/admin/flush' });
  }

  /** `POST /admin/checkpoint`: flush, then trim the change log to its retention bound. */
  checkpoint(): Promise<api.CheckpointAnswer> {
    return this.call({ method: 'POST', path: '/admin/checkpoint' });
  }

  /** `POST /admin/compact/{collection}`. */
  compact(collection: string): Promise<CompactResult> {
    return this.call({ method: 'POST', path: `/admin/compact/${seg(collection)}` });
  }

  /** `POST /admin/rebuild-indexes/{collection}`: every index, marked ready. */
  rebuildIndexes(collection: string): Promise<api.RebuildIndexesAnswer> {
    return this.call({ method: 'POST', path: `/admin/rebuild-indexes/${seg(collection)}` });
  }

  /** `POST /admin/rebuild-index/{collection}/{indexName}`. */
  rebuildIndex(collection: string, indexName: string): Promise<api.RebuildIndexAnswer> {
    return this.call({
      method: 'POST',
      path: `/admin/rebuild-index/${seg(collection)}/${seg(indexName)}`,
    });
  }

  // ---- replication (docs/replication.md) -------------------------------------------------

  /** `GET /replication/status`. */
  replicationStatus(): Promise<ReplicationStatus> {
    return this.call({ method: 'GET', path: '/replication/status' });
  }

  /** `POST /replication/start-leader`: a single node starts leading, listening on `port`. */
  startLeader(request: { port: number; sharedSecret?: string }): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/start-leader', json: request });
  }

  /** `POST /replication/start-follower`: follows the leader at `host:port`. */
  startFollower(request: {
    host: string;
    port: number;
    sharedSecret?: string;
  }): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/start-follower', json: request });
  }

  /** `POST /replication/read-only`: answers once every queued write committed. */
  readOnly(): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/read-only' });
  }

  /** `POST /replication/read-write`. */
  readWrite(): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/read-write' });
  }

  /** `POST /replication/promote`: a follower leads in the next term, listening on `port`. */
  promote(request: { port: number }): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/promote', json: request });
  }

  /** `POST /replication/auto-failover/enable`. */
  enableAutoFailover(request: {
    silenceSeconds: number;
    newLeaderPort: number;
  }): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/auto-failover/enable', json: request });
  }

  /** `POST /replication/auto-failover/disable`. */
  disableAutoFailover(): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/auto-failover/disable' });
  }

  /** `POST /replication/forget-follower`: a leader stops waiting for that follower's lease. */
  forgetFollower(request: { name: string }): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/forget-follower', json: request });
  }

  /**
   * `POST /replication/handover`: a coordinated leader hands its lease over to member `to`
   * (default: its most caught-up follower) once that member has every write.
   */
  handover(request: { to?: string } = {}): Promise<api.TransitionAnswer> {
    return this.call({ method: 'POST', path: '/replication/handover', json: request });
  }

  /** Closes the connections once the requests in flight are answered. */
  close(): Promise<void> {
    return this.transport.close();
  }
}

/** How a /query body names its statement: by text or by prepared handle. */
type Statement = { sql: string; handle?: never } | { handle: string; sql?: never };

function queryBody(
  statement: Statement,
  params: readonly unknown[] | undefined,
  options: api.QueryOptions,
) {
  return {
    ...statement,
    ...(params !== undefined && { params }),
    ...(options.shard !== undefined && { shard: options.shard }),
  };
}

function byKey(collection: string, path: string, value: api.KeyValue): string {
  return `/collections/${seg(collection)}/by/${seg(path)}/${seg(String(value))}`;
}

function byId(collection: string, id: string): string {
  return `/collections/${seg(collection)}/${seg(id)}`;
}

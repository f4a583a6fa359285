/**
 * The router (DESIGN §7, ADR 0014): the node's SQL over the shards of a cluster.json, with
 * no transport of its own (server/router-app.ts serves it over HTTP). It parses and targets
 * statements with the pure SQL front end, asks shards through shard-set.ts, and merges their
 * parts; it never answers a partial result as a whole one. The REST document calls are
 * router-documents.ts (`router.documents`).
 */

import type {
  BulkResult,
  ChangeFeedOptions,
  ChangeLine,
  CompactResult,
  DocdbClient,
  Document,
  HealthBody,
  IndexInfo,
  RouterStats,
  SeedResult,
} from '../client/index.js';
import { dbError, isDbError } from '../errors/index.js';
import { type InsertStatement, printStatement, type Statement } from '../sql/ast/index.js';
import { checkParams, type Parsed } from '../sql/parser/index.js';
import { PathResolver } from '../sql/planner/index.js';
import type * as api from '../types/api.js';
import type { JsonText, QueryMeta, QueryResult, RowsOption } from '../types/index.js';
import { heartbeatFeed, normalizeCollectionName, parsePath, seedOrders } from '../util/index.js';
import { VERSION } from '../version.js';
import type { ClusterConfig, ClusterShard, CollectionPlacement } from './config.js';
import {
  concatStreams,
  mergeAggregate,
  mergeRows,
  mergeSortedStreams,
  type ShardPart,
  sharedWarnings,
  windowAsync,
} from './merge.js';
import {
  ownersOf,
  requirePlacement,
  routedPlan,
  routeOf,
  routeSelect,
  type SelectRoute,
} from './route-plan.js';
import { RouterAdmin } from './router-admin.js';
import { openRouterFeed } from './router-changes.js';
import { RouterDocuments } from './router-documents.js';
import { RouterStatements } from './router-statements.js';
import { checkShards } from './router-health.js';
import { type RouterOptions, ShardSet } from './shard-set.js';

export { STATS_MEMBERS_TIMEOUT_MS } from './router-documents.js';
export { ROUTER_HEALTH_TIMEOUT_MS, type ShardsHealth } from './router-health.js';
export type { RouterOptions };

import { deleteIds, isPlainObject, ownerOfDocument, withRouterIds } from './write-plan.js';

/** A shard's query stream after its meta line. */
interface OpenStream {
  shard: ClusterShard;
  meta: QueryMeta;
  rows: AsyncGenerator<unknown, void, undefined>;
}

/**
 * A write's answer over the shards that ran it: `affected` summed, ids concatenated, the
 * warnings every shard gave.
 */
function writeResult(answers: readonly api.QueryAnswer[], plan: string): QueryResult {
  const affected = answers.reduce((n, a) => n + (a.affected ?? 0), 0);
  const ids = answers.flatMap((a) => a.ids ?? []);
  return {
    plan,
    count: affected,
    executionMs: 0,
    ...sharedWarnings(answers),
    affected,
    documents: [],
    ...(answers.some((a) => a.ids) && { ids }),
  };
}

/** UPDATE may not SET the shard key (or a path above it): the document would sit on the wrong shard. */
function checkAssignments(statement: Statement, keyPath: string): void {
  if (statement.kind !== 'update') return;
  const key = parsePath(keyPath).segments;
  for (const a of statement.assignments) {
    const set = parsePath(a.path.text).segments;
    const above =
      set.length <= key.length && set.every((s, k) => JSON.stringify(s) === JSON.stringify(key[k]));
    if (above) {
      throw dbError(
        'ERR_SHARD_KEY_MISSING',
        'updateSetsKey',
        { path: a.path.text, keyPath },
        { path: keyPath },
      );
    }
  }
}

/** What the router sends a shard beside the user's SQL: the plan of its part, if a scatter. */
function shardOptions(route: SelectRoute): api.QueryOptions {
  return route.kind === 'scatter' ? { shard: route.plan } : {};
}

const ROWS_JSON = { rows: 'json' } as const;

/** A router answers whole results: the parts it asks of shards (`shard`) are no query of its own. */
function wholeOnly(options: api.QueryOptions): void {
  if (options.shard === undefined) return;
  throw dbError('ERR_BAD_REQUEST', 'routerShardField');
}

/**
 * A stateless router over one cluster config, answering the node's REST surface (NodeApi):
 * its SQL here, the document, index and stats calls in router-documents.ts, the admin calls
 * in router-admin.ts.
 */
export class Router implements api.NodeApi {
  readonly shards: ShardSet;
  private readonly documents: RouterDocuments;
  private readonly admin: RouterAdmin;
  private readonly startedAtMs = Date.now();

  constructor(
    readonly config: ClusterConfig,
    options: RouterOptions & { name?: string } = {},
    /**
     * Its parsed and prepared statements: a router made for a changed cluster.json is given
     * its predecessor's (reload.ts), so handles outlive the reload.
     */
    readonly statements = new RouterStatements(),
  ) {
    this.shards = new ShardSet(config, options);
    this.documents = new RouterDocuments(config, this.shards);
    this.admin = new RouterAdmin(config, this.shards);
    this.name = options.name ?? 'router';
  }

  /** What `health()` reports as the node. */
  readonly name: string;

  /**
   * `GET /health`: the node's body, its status and readOnly from the shards
   * (router-health.ts): ok, degraded or down, and read-only while a shard refuses writes.
   */
  async health(timeoutMs?: number): Promise<HealthBody> {
    const { status, readOnly, shardsDown, shardsReadOnly } = await checkShards(
      this.shards,
      timeoutMs,
    );
    return {
      status,
      node: this.name,
      version: VERSION,
      readOnly,
      role: 'router',
      shards: this.config.shards.length,
      uptimeSeconds: Math.floor((Date.now() - this.startedAtMs) / 1000),
      shardsDown,
      shardsReadOnly,
    };
  }

  stats(): Promise<RouterStats> {
    return this.documents.stats();
  }

  collections(): Promise<string[]> {
    return this.documents.collections();
  }

  insert(collection: string, doc: unknown): Promise<api.InsertAnswer> {
    return this.documents.insert(collection, doc);
  }

  bulk(collection: string, docs: unknown[], options?: api.BulkOptions): Promise<BulkResult> {
    return this.documents.bulk(collection, docs, options);
  }

  list(collection: string, options?: api.ListOptions): Promise<api.ListAnswer> {
    return this.documents.list(collection, options);
  }

  getByKey(collection: string, field: string, value: api.KeyValue): Promise<api.ByKeyAnswer> {
    return this.documents.getByKey(collection, field, String(value));
  }

  replaceByKey(
    collection: string,
    field: string,
    value: api.KeyValue,
    doc: unknown,
    condition?: api.WriteCondition,
  ): Promise<api.ReplaceByKeyAnswer> {
    return this.documents.replaceByKey(collection, field, String(value), doc, condition);
  }

  deleteByKey(collection: string, field: string, value: api.KeyValue): Promise<api.DeleteAnswer> {
    return this.documents.deleteByKey(collection, field, String(value));
  }

  getTagged(collection: string, id: string): Promise<api.TaggedDocument | undefined> {
    return this.documents.getTagged(collection, id);
  }

  replace(
    collection: string,
    id: string,
    doc: unknown,
    condition?: api.WriteCondition,
  ): Promise<api.ReplaceAnswer> {
    return this.documents.replace(collection, id, doc, condition);
  }

  delete(
    collection: string,
    id: string,
    condition?: api.WriteCondition,
  ): Promise<api.DeleteAnswer> {
    return this.documents.delete(collection, id, condition);
  }

  dropCollection(name: string): Promise<api.DropAnswer> {
    return this.documents.dropCollection(name);
  }

  indexes(collection: string): Promise<IndexInfo[]> {
    return this.documents.indexes(collection);
  }

  createIndex(request: api.IndexRequest): Promise<api.CreatedIndex> {
    return this.documents.createIndex(request);
  }

  dropIndex(collection: string, name: string): Promise<api.DroppedIndex> {
    return this.documents.dropIndex(collection, name);
  }

  flush(): Promise<api.FlushAnswer> {
    return this.admin.flush();
  }

  checkpoint(): Promise<api.CheckpointAnswer> {
    return this.admin.checkpoint();
  }

  compact(collection: string): Promise<CompactResult> {
    return this.admin.compact(collection);
  }

  rebuildIndexes(collection: string): Promise<api.RebuildIndexesAnswer> {
    return this.admin.rebuildIndexes(collection);
  }

  rebuildIndex(collection: string, indexName: string): Promise<api.RebuildIndexAnswer> {
    return this.admin.rebuildIndex(collection, indexName);
  }

  /**
   * `POST /seed`: the node's sample orders, routed by their placement in batches as a bulk
   * load is, then the sample indexes created on every shard (those missing); `orders` must
   * be declared in cluster.json.
   */
  async seed(orders?: number, seed?: number): Promise<SeedResult> {
    requirePlacement(this.config, 'orders');
    return seedOrders(this, {
      ...(orders !== undefined && { count: orders }),
      ...(seed !== undefined && { seed }),
    });
  }

  /**
   * `GET /changes` through the router (NodeApi): every shard's feed merged (router-changes.ts),
   * its heartbeats saying the router cursor. Its refusals throw from the first read.
   */
  changesWithHeartbeats(
    options: ChangeFeedOptions = {},
  ): AsyncGenerator<ChangeLine, void, undefined> {
    const { since, collection, heartbeatMs, signal } = options;
    return heartbeatFeed(
      async (stop) => {
        const feed = await openRouterFeed(this.config, { since, collection, signal: stop });
        return {
          lines: feed.lines,
          heartbeat: () => ({ heartbeat: Date.now(), cursor: feed.cursor() }),
        };
      },
      { heartbeatMs, signal },
    );
  }

  /**
   * `POST /query` through the router: one statement, answered as one node would. With
   * `rows: 'json'` the rows of a SELECT routed to one shard come as JsonText, the shard's
   * text passed on unparsed (the route splices it into the answer).
   */
  query(
    sql: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'json' },
  ): Promise<QueryResult<Document | JsonText>>;
  query(sql: string, params?: readonly unknown[], options?: api.QueryOptions): Promise<QueryResult>;
  async query(
    sql: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): Promise<QueryResult<Document | JsonText>> {
    wholeOnly(options);
    const started = performance.now();
    const parsed = this.statements.parsedOf(sql);
    return this.queryParsed(sql, parsed, params, started, options.rows);
  }

  /**
   * `POST /query/prepare` through the router: parses the statement and holds it by handle
   * here (the same handle a node answers for the text). The shards see its text, which the
   * router's clients prepare on each shard by themselves.
   */
  prepare(sql: string): api.PreparedStatement {
    const { handle, parsed } = this.statements.prepared.add(sql, this.statements.parsedOf(sql));
    return { handle, kind: parsed.statement.kind, paramCount: parsed.paramCount };
  }

  /**
   * `POST /query` with a handle through the router (ERR_SQL_HANDLE_UNKNOWN if not held),
   * found without reading or parsing the text; `rows: 'json'` as in `query`.
   */
  execute(
    handle: string,
    params: readonly unknown[] | undefined,
    options: api.QueryOptions & { rows: 'json' },
  ): Promise<QueryResult<Document | JsonText>>;
  execute(
    handle: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): Promise<QueryResult>;
  async execute(
    handle: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): Promise<QueryResult<Document | JsonText>> {
    wholeOnly(options);
    const started = performance.now();
    const { sql, parsed } = this.statements.prepared.require(handle);
    return this.queryParsed(sql, parsed, params, started, options.rows);
  }

  /** `POST /query` with a handle as NDJSON through the router. */
  async *executeStream(
    handle: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    wholeOnly(options);
    const started = performance.now();
    const { sql, parsed } = this.statements.prepared.require(handle);
    yield* this.streamParsed(sql, parsed, params, started);
  }

  private async queryParsed(
    sql: string,
    parsed: Parsed,
    params: readonly unknown[],
    started: number,
    rows?: RowsOption['rows'],
  ): Promise<QueryResult<Document | JsonText>> {
    checkParams(parsed, params);
    const { statement } = parsed;
    const result =
      statement.kind === 'select'
        ? await this.runSelect(sql, params, routeSelect(this.config, statement, params), rows)
        : await this.runWrite(statement, sql, params);
    return { ...result, executionMs: performance.now() - started };
  }

  /**
   * `POST /query` as NDJSON through the router: the meta first, then rows as the shards'
   * streams deliver them, merged by sort key (one row held per shard) or concatenated, OFFSET
   * and LIMIT applied once. Aggregates and DISTINCT are merged whole first (groups and
   * distinct rows are what they hold anyway); writes answer their meta alone, as on a node.
   */
  async *queryStream(
    sql: string,
    params: readonly unknown[] = [],
    options: api.QueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    wholeOnly(options);
    const started = performance.now();
    yield* this.streamParsed(sql, this.statements.parsedOf(sql), params, started);
  }

  private async *streamParsed(
    sql: string,
    parsed: Parsed,
    params: readonly unknown[],
    started: number,
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    checkParams(parsed, params);
    const { statement } = parsed;
    if (statement.kind !== 'select') {
      const { documents: _, ...meta } = await this.queryParsed(sql, parsed, params, started);
      yield meta;
      return;
    }
    const route = routeSelect(this.config, statement, params);
    if (route.kind === 'scatter' && (route.merge.kind === 'aggregate' || route.merge.distinct)) {
      const { documents, ...meta } = await this.runSelect(sql, params, route);
      yield { ...meta, executionMs: performance.now() - started };
      // Asked without `rows: 'json'`, the rows are objects.
      yield* documents as Document[];
      return;
    }
    const opened = await this.openStreams(sql, params, route);
    try {
      const metas = opened.map((o) => o.meta);
      const first = metas[0] as QueryMeta;
      if (route.kind === 'single' || route.merge.kind !== 'rows') {
        const only = opened[0] as OpenStream;
        yield {
          ...first,
          plan: routedPlan({ kind: 'single', count: 1, shard: only.shard.name }, first.plan),
          executionMs: performance.now() - started,
        };
        yield* concatStreams([only.rows]);
        return;
      }
      const merge = route.merge;
      const total = metas.reduce((n, m) => n + m.count, 0);
      yield {
        plan: routedPlan({ kind: 'scatter', count: opened.length, shard: '' }, first.plan),
        count: Math.min(Math.max(total - merge.offset, 0), merge.limit),
        executionMs: performance.now() - started,
        ...sharedWarnings(metas),
      };
      const rows = opened.map((o) => o.rows);
      const merged = merge.orderBy ? mergeSortedStreams(rows, merge.orderBy) : concatStreams(rows);
      yield* windowAsync(merged, merge.offset, merge.limit);
    } finally {
      // Rows not wanted (LIMIT reached, the caller went away) end their shard requests.
      await Promise.allSettled(opened.map((o) => o.rows.return?.()));
    }
  }

  /** Opens the route's shard streams and reads each meta; any failure closes the others. */
  private async openStreams(
    sql: string,
    params: readonly unknown[],
    route: SelectRoute,
  ): Promise<OpenStream[]> {
    const options = shardOptions(route);
    const open = (shard: ClusterShard) =>
      this.shards.ask(
        shard,
        async (client) => {
          const rows = this.rowsOf(shard, client.queryStream(sql, params, options));
          const first = await rows.next();
          return { shard, meta: first.value as QueryMeta, rows };
        },
        'read',
      );
    if (route.kind === 'single' && route.anyOf) return [await this.openFirst(route.shards, open)];
    const targets = route.kind === 'single' ? route.shards.slice(0, 1) : route.shards;
    const settled = await Promise.allSettled(targets.map(open));
    // As in `parts`: a shard without the collection holds an empty part.
    const missing = (o: PromiseSettledResult<OpenStream>) =>
      o.status === 'rejected' && isDbError(o.reason, 'ERR_COLLECTION_NOT_FOUND');
    const failed = settled.find((o) => o.status === 'rejected' && !missing(o));
    const ok = settled.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    if (failed || ok.length === 0) {
      await Promise.allSettled(ok.map((o) => o.rows.return?.()));
      throw ((failed ?? settled[0]) as PromiseRejectedResult).reason;
    }
    return ok;
  }

  /** The first of `shards` whose stream opens (a replicated read). */
  private async openFirst(
    shards: readonly ClusterShard[],
    open: (shard: ClusterShard) => Promise<OpenStream>,
  ): Promise<OpenStream> {
    let last: unknown;
    for (const shard of shards) {
      try {
        return await open(shard);
      } catch (error) {
        if (!isDbError(error, 'ERR_SHARD_UNAVAILABLE')) throw error;
        last = error;
      }
    }
    throw last;
  }

  /** A shard's stream whose transport failures name the shard, even after its meta. */
  private async *rowsOf(
    shard: ClusterShard,
    stream: AsyncGenerator<QueryMeta | Document>,
  ): AsyncGenerator<unknown, void, undefined> {
    try {
      for (;;) {
        const next = await this.shards.ask(shard, () => stream.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await stream.return(undefined);
    }
  }

  /** INSERT, UPDATE, DELETE and CREATE/DROP INDEX through the router. */
  private async runWrite(
    statement: Exclude<Statement, { kind: 'select' }>,
    sql: string,
    params: readonly unknown[],
  ): Promise<QueryResult> {
    const run = (client: DocdbClient, text = sql, values: readonly unknown[] = params) =>
      client.query(text, values);
    if (statement.kind === 'createIndex' || statement.kind === 'dropIndex') {
      requirePlacement(this.config, statement.collection);
      if (statement.kind === 'createIndex')
        await this.documents.existingEverywhere(statement.collection);
      const answers = await this.shards.partAnswers((c) => run(c));
      return writeResult(
        answers,
        `SCATTER(${answers.length}): ${(answers[0] as api.QueryAnswer).plan}`,
      );
    }
    const placement = requirePlacement(this.config, statement.collection);
    if (statement.kind === 'insert') return this.runInsert(statement, placement, params);
    if (placement.strategy === 'hash') checkAssignments(statement, placement.path);
    if (placement.strategy === 'replicated') {
      const answers = await this.shards.partAnswers((c) => run(c));
      const first = answers[0] as api.QueryAnswer;
      return { ...writeResult([first], `SCATTER(${answers.length}): ${first.plan}`) };
    }
    const resolver = new PathResolver([normalizeCollectionName(statement.collection)]);
    const targets =
      ownersOf(this.config, placement, statement.where, params, resolver) ?? this.config.shards;
    const answers = await this.shards.partAnswers((c) => run(c), targets);
    return writeResult(answers, routedPlan(routeOf(targets), (answers[0] as api.QueryAnswer).plan));
  }

  /** SQL INSERT: each document to its owner (hash) or to every shard under one `_id`. */
  private async runInsert(
    statement: InsertStatement,
    placement: CollectionPlacement,
    params: readonly unknown[],
  ): Promise<QueryResult> {
    await this.shards.ensureEverywhere(statement.collection);
    const docs = statement.documents.flatMap((d) => {
      const value = d.kind === 'literal' ? d.value : params[d.index];
      return Array.isArray(value) ? value : [value];
    });
    // The documents travel as the statement's one parameter, so each shard checks them as a
    // node checks its own (a document that is no object is refused by the shard, not by a
    // re-parse of printed text).
    const sql = printStatement({
      ...statement,
      documents: [{ kind: 'param', index: 0, at: { line: 1, column: 1 } }],
    });
    const insert = (client: DocdbClient, values: unknown[]) => client.query(sql, [values]);
    if (placement.strategy === 'replicated') {
      const { docs: withIds, ids } = withRouterIds(docs);
      const answers = await this.shards.everywhere(
        (c) => insert(c, withIds),
        (c) => deleteIds(c, statement.collection, ids),
      );
      const first = answers[0] as api.QueryAnswer;
      return writeResult([first], `SCATTER(${answers.length}): ${first.plan}`);
    }
    const byOwner = new Map<ClusterShard, number[]>();
    docs.forEach((doc, index) => {
      const owner = isPlainObject(doc)
        ? ownerOfDocument(this.config, placement, doc)
        : (this.config.shards[0] as ClusterShard);
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), index]);
    });
    const groups = [...byOwner.entries()];
    const settled = await Promise.allSettled(
      groups.map(([owner, indexes]) =>
        this.shards.ask(owner, (c) =>
          insert(
            c,
            indexes.map((k) => docs[k]),
          ),
        ),
      ),
    );
    const failed = settled.find((o) => o.status === 'rejected');
    if (failed) {
      // One statement is all or nothing: what the other owners stored is deleted again.
      await Promise.allSettled(
        groups.flatMap(([owner], g) => {
          const o = settled[g] as PromiseSettledResult<api.QueryAnswer>;
          return o.status === 'fulfilled'
            ? [this.shards.ask(owner, (c) => deleteIds(c, statement.collection, o.value.ids ?? []))]
            : [];
        }),
      );
      throw failed.reason;
    }
    const ids: string[] = [];
    groups.forEach(([, indexes], g) => {
      const answer = (settled[g] as PromiseFulfilledResult<api.QueryAnswer>).value;
      indexes.forEach((index, local) => {
        ids[index] = (answer.ids ?? [])[local] as string;
      });
    });
    const answers = settled.map((o) => (o as PromiseFulfilledResult<api.QueryAnswer>).value);
    const owners = groups.map(([owner]) => owner);
    return {
      ...writeResult(answers, routedPlan(routeOf(owners), (answers[0] as api.QueryAnswer).plan)),
      ids,
    };
  }

  /**
   * A routed SELECT, answered whole: one shard's answer, or the parts merged. `rows: 'json'`
   * asks one shard's rows as JsonText; a merge reads values, so a scatter's rows are objects.
   */
  private async runSelect(
    sql: string,
    params: readonly unknown[],
    route: SelectRoute,
    rows?: RowsOption['rows'],
  ): Promise<QueryResult<Document | JsonText>> {
    const options = route.kind === 'single' && rows === 'json' ? ROWS_JSON : shardOptions(route);
    const call = (client: DocdbClient) => client.query(sql, params, options);
    if (route.kind === 'single') {
      const { shard, answer } = route.anyOf
        ? await this.shards.askAny(route.shards, call, 'read')
        : {
            shard: route.shards[0] as ClusterShard,
            answer: await this.shards.ask(route.shards[0] as ClusterShard, call, 'read'),
          };
      const { headers: _, sortKeys: __, ...result } = answer;
      return {
        ...result,
        plan: routedPlan({ kind: 'single', count: 1, shard: shard.name }, answer.plan),
      };
    }
    const answers: api.QueryAnswer[] = await this.shards.partAnswers(call, route.shards, 'read');
    const parts: ShardPart[] = answers;
    const merge = route.merge;
    const documents =
      merge.kind === 'rows' ? mergeRows(parts, merge) : mergeAggregate(parts, merge);
    const plan = routedPlan(
      { kind: 'scatter', count: route.shards.length, shard: '' },
      (answers[0] as api.QueryAnswer).plan,
    );
    return { plan, count: documents.length, executionMs: 0, ...sharedWarnings(answers), documents };
  }

  /** Closes every shard client. */
  close(): Promise<void> {
    return this.shards.close();
  }
}

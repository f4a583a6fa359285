/**
 * The router (DESIGN §7, ADR 0014): the node's query API over the shards of a cluster.json,
 * with no transport of its own (server/router-app.ts serves it over HTTP). It parses and
 * targets statements with the pure SQL front end, asks shards through the typed client only,
 * and merges their parts; it never answers a partial result as a whole one.
 */

import {
  type BulkOptions,
  type BulkResult,
  type ByKeyAnswer,
  type CreatedIndex,
  connect,
  type DeleteAnswer,
  type DocdbClient,
  type Document,
  type DropAnswer,
  type IndexInfo,
  type IndexRequest,
  type InsertAnswer,
  type ListAnswer,
  type ListOptions,
  type QueryAnswer,
  type ReplaceAnswer,
  type ReplaceByKeyAnswer,
  type StoreStats,
} from '../client/index.js';
import { DbError, isDbError } from '../errors/index.js';
import {
  type InsertStatement,
  type JsonValue,
  printStatement,
  type Statement,
} from '../sql/ast/index.js';
import { parse } from '../sql/parser/index.js';
import { PathResolver } from '../sql/planner/index.js';
import type { QueryMeta, QueryResult } from '../types/index.js';
import {
  formatId,
  LIST_LIMIT_DEFAULT,
  newId,
  normalizeCollectionName,
  parsePath,
} from '../util/index.js';
import type { ClusterConfig, ClusterShard, CollectionPlacement } from './config.js';
import { shardFor } from './hash.js';
import {
  concatStreams,
  mergeAggregate,
  mergeRows,
  mergeSortedStreams,
  type ShardPart,
  windowAsync,
} from './merge.js';
import { ownersOf, requirePlacement, routeSelect, type SelectRoute } from './route-plan.js';
import {
  byId,
  deleteIds,
  isPlainObject,
  keepsOwner,
  keyTextValues,
  ownerOfDocument,
} from './write-plan.js';

/** `GET /stats` through a router: documents per collection summed, and every shard's stats. */
export interface RouterStats {
  collections: Array<{ name: string; count: number }>;
  shards: Array<{ name: string; stats: StoreStats }>;
}

/** Codes that mean a shard did not give a docdb answer, as opposed to refusing the request. */
const UNAVAILABLE = ['ERR_CLIENT_UNREACHABLE', 'ERR_CLIENT_TIMEOUT', 'ERR_CLIENT_PROTOCOL'];

/** Options of a Router. */
export interface RouterOptions {
  /** Each shard request's timeout (the client's default when absent). */
  timeoutMs?: number;
}

/** The plan header of a routed statement: `SINGLE_SHARD(s1): …` or `SCATTER(n): …`. */
export function routedPlan(
  route: { kind: 'single' | 'scatter'; count: number; shard: string },
  plan: string,
) {
  return route.kind === 'single'
    ? `SINGLE_SHARD(${route.shard}): ${plan}`
    : `SCATTER(${route.count}): ${plan}`;
}

/** A shard's query stream after its meta line. */
interface OpenStream {
  shard: ClusterShard;
  meta: QueryMeta;
  rows: AsyncGenerator<unknown, void, undefined>;
}

/** The plan-header route of a set of shards. */
function routeOf(shards: readonly ClusterShard[]) {
  return {
    kind: shards.length === 1 ? ('single' as const) : ('scatter' as const),
    count: shards.length,
    shard: (shards[0] as ClusterShard).name,
  };
}

/** A write's answer over the shards that ran it: `affected` summed, ids concatenated. */
function writeResult(answers: readonly QueryAnswer[], plan: string): QueryResult {
  const affected = answers.reduce((n, a) => n + (a.affected ?? 0), 0);
  const ids = answers.flatMap((a) => a.ids ?? []);
  return {
    plan,
    count: affected,
    executionMs: 0,
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
      throw new DbError(
        'ERR_SHARD_KEY_MISSING',
        `UPDATE may not SET ${a.path.text}: it changes the shard key "${keyPath}", which decides the document's shard; delete the document and insert the new one instead`,
        { path: keyPath },
      );
    }
  }
}

/** A stateless router over one cluster config: one pooled client per shard. */
export class Router {
  private readonly clients = new Map<string, DocdbClient>();
  /** Collections known to exist on every shard (see ensureEverywhere). */
  private readonly present = new Set<string>();

  constructor(
    readonly config: ClusterConfig,
    options: RouterOptions = {},
  ) {
    for (const shard of config.shards) {
      this.clients.set(
        shard.name,
        connect(shard.endpoint, {
          ...(shard.apiKey !== undefined && { apiKey: shard.apiKey }),
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
        }),
      );
    }
  }

  /**
   * Runs `fn` against one shard. A shard that does not answer becomes ERR_SHARD_UNAVAILABLE
   * naming it; a shard's own refusal (a SQL error, a 404) passes through as it is.
   */
  async ask<T>(shard: ClusterShard, fn: (client: DocdbClient) => Promise<T>): Promise<T> {
    try {
      return await fn(this.clients.get(shard.name) as DocdbClient);
    } catch (error) {
      if (isDbError(error) && UNAVAILABLE.includes(error.code)) {
        throw new DbError(
          'ERR_SHARD_UNAVAILABLE',
          `shard ${shard.name} (${shard.endpoint}) did not answer: ${error.message}`,
          { shard: shard.name },
        );
      }
      throw error;
    }
  }

  /** Runs `fn` on the first of `shards` that answers (a replicated read). */
  async askAny<T>(
    shards: readonly ClusterShard[],
    fn: (client: DocdbClient) => Promise<T>,
  ): Promise<{ shard: ClusterShard; answer: T }> {
    let last: unknown;
    for (const shard of shards) {
      try {
        return { shard, answer: await this.ask(shard, fn) };
      } catch (error) {
        if (!isDbError(error, 'ERR_SHARD_UNAVAILABLE')) throw error;
        last = error;
      }
    }
    throw last ?? new DbError('ERR_SHARD_UNAVAILABLE', 'the cluster config lists no shards');
  }

  /**
   * Runs `fn` on `shards` at once and keeps the answers of the shards that hold the
   * collection: a hash collection's documents may all live on other shards, and a shard that
   * never received one has no such collection (ERR_COLLECTION_NOT_FOUND), which for a scatter
   * means an empty part. When no shard has it, the first shard's refusal is the answer.
   */
  async parts<T>(
    fn: (client: DocdbClient) => Promise<T>,
    shards: readonly ClusterShard[] = this.config.shards,
  ): Promise<Array<{ shard: ClusterShard; answer: T }>> {
    let missing: unknown;
    const found = await Promise.all(
      shards.map(async (shard) => {
        try {
          return [{ shard, answer: await this.ask(shard, fn) }];
        } catch (error) {
          if (!isDbError(error, 'ERR_COLLECTION_NOT_FOUND')) throw error;
          missing ??= error;
          return [];
        }
      }),
    );
    const parts = found.flat();
    if (parts.length === 0 && missing !== undefined) throw missing;
    return parts;
  }

  /** The answers of `parts`, without their shards. */
  async partAnswers<T>(
    fn: (client: DocdbClient) => Promise<T>,
    shards: readonly ClusterShard[] = this.config.shards,
  ): Promise<T[]> {
    return (await this.parts(fn, shards)).map((p) => p.answer);
  }

  /**
   * Makes sure every shard has the collection before the router writes to it or indexes it,
   * so that reads on any shard and indexes on every shard see it: a shard without it gets a
   * placeholder document inserted and deleted again (a node creates a collection on its first
   * write and has no other way to). Remembered per router; cheap once done.
   */
  private async ensureEverywhere(collection: string): Promise<void> {
    const name = normalizeCollectionName(collection);
    if (this.present.has(name)) return;
    await this.all(async (client) => {
      if ((await client.collections()).includes(name)) return;
      const { id } = await client.insert(name, { _placeholder: 'docdb router' });
      await client.delete(name, id);
    });
    this.present.add(name);
  }

  /** `POST /query` through the router: one statement, answered as one node would. */
  async query(sql: string, params: readonly unknown[] = []): Promise<QueryResult> {
    const started = performance.now();
    const { statement } = parse(sql);
    const result =
      statement.kind === 'select'
        ? await this.runSelect(routeSelect(this.config, statement, sql, params))
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
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    const started = performance.now();
    const { statement } = parse(sql);
    if (statement.kind !== 'select') {
      const { documents: _, ...meta } = await this.query(sql, params);
      yield meta;
      return;
    }
    const route = routeSelect(this.config, statement, sql, params);
    const merge = route.merge;
    if (route.kind === 'scatter' && (merge?.kind === 'aggregate' || merge?.distinct)) {
      const { documents, ...meta } = await this.runSelect(route);
      yield { ...meta, executionMs: performance.now() - started };
      yield* documents;
      return;
    }
    const opened = await this.openStreams(route);
    try {
      const metas = opened.map((o) => o.meta);
      const first = metas[0] as QueryMeta;
      if (route.kind === 'single' || merge === undefined || merge.kind !== 'rows') {
        const only = opened[0] as OpenStream;
        yield {
          ...first,
          plan: routedPlan({ kind: 'single', count: 1, shard: only.shard.name }, first.plan),
          executionMs: performance.now() - started,
        };
        yield* concatStreams([only.rows]);
        return;
      }
      const total = metas.reduce((n, m) => n + m.count, 0);
      yield {
        plan: routedPlan({ kind: 'scatter', count: opened.length, shard: '' }, first.plan),
        count: Math.min(Math.max(total - merge.offset, 0), merge.limit),
        executionMs: performance.now() - started,
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
  private async openStreams(route: SelectRoute): Promise<OpenStream[]> {
    const options = route.shard ? { shard: route.shard } : {};
    const open = (shard: ClusterShard) =>
      this.ask(shard, async (client) => {
        const rows = this.rowsOf(shard, client.queryStream(route.sql, route.params, options));
        const first = await rows.next();
        return { shard, meta: first.value as QueryMeta, rows };
      });
    if (route.anyOf) return [await this.openFirst(route.shards, open)];
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
        const next = await this.ask(shard, () => stream.next());
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
      if (statement.kind === 'createIndex') await this.ensureEverywhere(statement.collection);
      const answers = await this.partAnswers((c) => run(c));
      return writeResult(
        answers,
        `SCATTER(${answers.length}): ${(answers[0] as QueryAnswer).plan}`,
      );
    }
    const placement = requirePlacement(this.config, statement.collection);
    if (statement.kind === 'insert') return this.runInsert(statement, placement, params);
    if (placement.strategy === 'hash') checkAssignments(statement, placement.path);
    if (placement.strategy === 'replicated') {
      const answers = await this.partAnswers((c) => run(c));
      const first = answers[0] as QueryAnswer;
      return { ...writeResult([first], `SCATTER(${answers.length}): ${first.plan}`) };
    }
    const resolver = new PathResolver([normalizeCollectionName(statement.collection)]);
    const targets =
      ownersOf(this.config, placement, statement.where, params, resolver) ?? this.config.shards;
    const answers = await this.partAnswers((c) => run(c), targets);
    return writeResult(answers, routedPlan(routeOf(targets), (answers[0] as QueryAnswer).plan));
  }

  /** SQL INSERT: each document to its owner (hash) or to every shard under one `_id`. */
  private async runInsert(
    statement: InsertStatement,
    placement: CollectionPlacement,
    params: readonly unknown[],
  ): Promise<QueryResult> {
    await this.ensureEverywhere(statement.collection);
    const docs = statement.documents.flatMap((d) => {
      const value = d.kind === 'literal' ? d.value : params[d.index];
      return Array.isArray(value) ? value : [value];
    });
    const insertOf = (values: unknown[]) =>
      printStatement({
        ...statement,
        documents: values.map((v) => ({ kind: 'literal', value: v as JsonValue })),
      });
    if (placement.strategy === 'replicated') {
      const withIds = docs.map((d) =>
        isPlainObject(d) ? { ...d, _id: d._id ?? formatId(newId()) } : d,
      );
      const ids = withIds.flatMap((d) =>
        isPlainObject(d) && typeof d._id === 'string' ? [d._id] : [],
      );
      const answers = await this.everywhere(
        (c) => c.query(insertOf(withIds)),
        (c) => deleteIds(c, statement.collection, ids),
      );
      const first = answers[0] as QueryAnswer;
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
        this.ask(owner, (c) => c.query(insertOf(indexes.map((k) => docs[k])))),
      ),
    );
    const failed = settled.find((o) => o.status === 'rejected');
    if (failed) {
      // One statement is all or nothing: what the other owners stored is deleted again.
      await Promise.allSettled(
        groups.flatMap(([owner], g) => {
          const o = settled[g] as PromiseSettledResult<QueryAnswer>;
          return o.status === 'fulfilled'
            ? [this.ask(owner, (c) => deleteIds(c, statement.collection, o.value.ids ?? []))]
            : [];
        }),
      );
      throw failed.reason;
    }
    const ids: string[] = [];
    groups.forEach(([, indexes], g) => {
      const answer = (settled[g] as PromiseFulfilledResult<QueryAnswer>).value;
      indexes.forEach((index, local) => {
        ids[index] = (answer.ids ?? [])[local] as string;
      });
    });
    const answers = settled.map((o) => (o as PromiseFulfilledResult<QueryAnswer>).value);
    const owners = groups.map(([owner]) => owner);
    return {
      ...writeResult(answers, routedPlan(routeOf(owners), (answers[0] as QueryAnswer).plan)),
      ids,
    };
  }

  private async runSelect(route: SelectRoute): Promise<QueryResult> {
    const call = (client: DocdbClient) =>
      client.query(route.sql, route.params, route.shard ? { shard: route.shard } : {});
    if (route.kind === 'single') {
      const { shard, answer } = route.anyOf
        ? await this.askAny(route.shards, call)
        : {
            shard: route.shards[0] as ClusterShard,
            answer: await this.ask(route.shards[0] as ClusterShard, call),
          };
      const { headers: _, sortKeys: __, ...result } = answer;
      return {
        ...result,
        plan: routedPlan({ kind: 'single', count: 1, shard: shard.name }, answer.plan),
      };
    }
    const answers: QueryAnswer[] = await this.partAnswers(call, route.shards);
    const parts: ShardPart[] = answers;
    const merge = route.merge;
    const documents =
      merge === undefined
        ? parts.flatMap((p) => p.documents)
        : merge.kind === 'rows'
          ? mergeRows(parts, merge)
          : mergeAggregate(parts, merge);
    const plan = routedPlan(
      { kind: 'scatter', count: route.shards.length, shard: '' },
      (answers[0] as QueryAnswer).plan,
    );
    return { plan, count: documents.length, executionMs: 0, documents };
  }

  // ---- writes and documents (REST) -------------------------------------------------------

  /** Every shard, for statements and calls that go to all of them. */
  get shards(): readonly ClusterShard[] {
    return this.config.shards;
  }

  /** Runs `fn` on every shard at once; any shard's failure fails the whole call. */
  all<T>(fn: (client: DocdbClient) => Promise<T>, shards = this.config.shards): Promise<T[]> {
    return Promise.all(shards.map((s) => this.ask(s, fn)));
  }

  /**
   * A write to every shard of a replicated collection under one `_id`: a shard that did not
   * answer is tried once more; if it still fails (or a shard refused the write) the write is
   * undone (`undo`) on every shard that took it or may have (one that timed out may have
   * stored it), and the failure names the shard. All or nothing per request. A refusal is not
   * undone where it was refused: the `_id` there may be another document's.
   */
  async everywhere<T>(
    fn: (client: DocdbClient) => Promise<T>,
    undo: (client: DocdbClient) => Promise<unknown>,
  ): Promise<T[]> {
    const { shards } = this.config;
    const settled = await Promise.allSettled(shards.map((s) => this.ask(s, fn)));
    const answers: T[] = [];
    const maybeStored = new Set<ClusterShard>();
    let failure: unknown;
    for (const [k, outcome] of settled.entries()) {
      const shard = shards[k] as ClusterShard;
      if (outcome.status === 'fulfilled') {
        answers[k] = outcome.value;
        maybeStored.add(shard);
        continue;
      }
      if (!isDbError(outcome.reason, 'ERR_SHARD_UNAVAILABLE')) {
        failure ??= outcome.reason;
        continue;
      }
      maybeStored.add(shard);
      try {
        answers[k] = await this.ask(shard, fn);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure === undefined) return answers;
    await Promise.allSettled([...maybeStored].map((s) => this.ask(s, undo)));
    throw failure;
  }

  /** `POST /collections/{c}`: to the owner of the document's shard key, or every shard. */
  async insert(collection: string, doc: unknown): Promise<InsertAnswer> {
    const placement = requirePlacement(this.config, collection);
    await this.ensureEverywhere(collection);
    if (!isPlainObject(doc))
      return this.ask(this.config.shards[0] as ClusterShard, (c) =>
        c.insert(collection, doc as Document),
      );
    if (placement.strategy === 'replicated') {
      const withId = { ...doc, _id: doc._id ?? formatId(newId()) } as Document;
      const id = String(withId._id);
      const [first] = await this.everywhere(
        (c) => c.insert(collection, withId),
        (c) => c.delete(collection, id),
      );
      return first as InsertAnswer;
    }
    return this.ask(ownerOfDocument(this.config, placement, doc), (c) => c.insert(collection, doc));
  }

  /**
   * `POST /collections/{c}/bulk`: each document to its owner, the per-item results put back
   * in input order. With `atomic`, a shard's refusal undoes what the other shards stored.
   */
  async bulk(collection: string, docs: unknown[], options: BulkOptions = {}): Promise<BulkResult> {
    const placement = requirePlacement(this.config, collection);
    await this.ensureEverywhere(collection);
    if (placement.strategy === 'replicated') {
      const withIds = docs.map(
        (d) => (isPlainObject(d) ? { ...d, _id: d._id ?? formatId(newId()) } : d) as Document,
      );
      const ids = withIds.flatMap((d) =>
        isPlainObject(d) && typeof d._id === 'string' ? [d._id] : [],
      );
      const [first] = await this.everywhere(
        (c) => c.bulk(collection, withIds, options),
        (c) => deleteIds(c, collection, ids),
      );
      return first as BulkResult;
    }
    const errors: BulkResult['errors'] = [];
    const byOwner = new Map<ClusterShard, number[]>();
    docs.forEach((doc, index) => {
      try {
        const owner = isPlainObject(doc)
          ? ownerOfDocument(this.config, placement, doc)
          : (this.config.shards[0] as ClusterShard);
        byOwner.set(owner, [...(byOwner.get(owner) ?? []), index]);
      } catch (error) {
        if (!isDbError(error)) throw error;
        errors.push({ index, error: error.message, code: error.code });
      }
    });
    if (options.atomic && errors.length > 0) {
      const first = errors[0] as BulkResult['errors'][number];
      throw new DbError(first.code as DbError['code'], first.error, { ids: [], errors });
    }
    const groups = [...byOwner.entries()];
    const settled = await Promise.allSettled(
      groups.map(([owner, indexes]) =>
        this.ask(owner, (c) =>
          c.bulk(
            collection,
            indexes.map((k) => docs[k] as Document),
            options,
          ),
        ),
      ),
    );
    const failed = settled.find((o) => o.status === 'rejected');
    if (failed) {
      if (options.atomic) {
        // Each shard was all-or-nothing; what the others stored goes too.
        await Promise.allSettled(
          groups.flatMap(([owner], g) => {
            const o = settled[g] as PromiseSettledResult<BulkResult>;
            return o.status === 'fulfilled'
              ? [this.ask(owner, (c) => deleteIds(c, collection, o.value.ids))]
              : [];
          }),
        );
      }
      throw failed.reason;
    }
    const idOf = new Map<number, string>();
    groups.forEach(([, indexes], g) => {
      const result = (settled[g] as PromiseFulfilledResult<BulkResult>).value;
      const refused = new Set(result.errors.map((e) => e.index));
      for (const e of result.errors) errors.push({ ...e, index: indexes[e.index] as number });
      let next = 0;
      indexes.forEach((index, local) => {
        if (!refused.has(local)) idOf.set(index, result.ids[next++] as string);
      });
    });
    errors.sort((a, b) => a.index - b.index);
    const ids = docs.flatMap((_, index) => (idOf.has(index) ? [idOf.get(index) as string] : []));
    return { ids, errors };
  }

  /** `GET /collections/{c}`: a page in `_id` order, merged from every shard's page. */
  async list(collection: string, options: ListOptions = {}): Promise<ListAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      return (await this.askAny(this.config.shards, (c) => c.list(collection, options))).answer;
    }
    const pages = await this.partAnswers((c) => c.list(collection, options));
    const limit = options.limit ?? LIST_LIMIT_DEFAULT;
    const documents = byId(pages.flatMap((p) => p.documents)).slice(0, limit);
    return { documents, count: documents.length };
  }

  /** The shards a by-key request on `field` = the value `text` spells must ask. */
  private keyTargets(collection: string, field: string, text: string): ClusterShard[] {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') return this.config.shards.slice(0, 1);
    let same = false;
    try {
      same =
        JSON.stringify(parsePath(field).segments) ===
        JSON.stringify(parsePath(placement.path).segments);
    } catch {
      same = false;
    }
    if (!same) return [...this.config.shards];
    const owners = new Set(keyTextValues(text).map((v) => shardFor(v, this.config.shards).name));
    return this.config.shards.filter((s) => owners.has(s.name));
  }

  /** `GET …/by/{field}/{value}`: the owners on the shard key, else every shard. */
  async getByKey(collection: string, field: string, text: string): Promise<ByKeyAnswer> {
    const placement = requirePlacement(this.config, collection);
    const targets = this.keyTargets(collection, field, text);
    if (placement.strategy === 'replicated') {
      const { shard, answer } = await this.askAny(this.config.shards, (c) =>
        c.getByKey(collection, field, text),
      );
      return {
        ...answer,
        plan: routedPlan({ kind: 'single', count: 1, shard: shard.name }, answer.plan),
      };
    }
    const answers = await this.partAnswers((c) => c.getByKey(collection, field, text), targets);
    const documents = byId(answers.flatMap((a) => a.documents));
    const plan = routedPlan(
      {
        kind: targets.length === 1 ? 'single' : 'scatter',
        count: targets.length,
        shard: (targets[0] as ClusterShard).name,
      },
      (answers[0] as ByKeyAnswer).plan,
    );
    return { documents, count: documents.length, plan };
  }

  /** `PUT …/by/{field}/{value}`: replaces the one match wherever it lives (404 none, 409 several). */
  async replaceByKey(
    collection: string,
    field: string,
    text: string,
    doc: unknown,
  ): Promise<ReplaceByKeyAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      const [first] = await this.all((c) =>
        c.replaceByKey(collection, field, text, doc as Document),
      );
      return first as ReplaceByKeyAnswer;
    }
    const targets = this.keyTargets(collection, field, text);
    const found = await this.parts((c) => c.getByKey(collection, field, text), targets);
    const matched = found.reduce((n, f) => n + f.answer.count, 0);
    if (matched === 0) {
      throw new DbError(
        'ERR_DOCUMENT_NOT_FOUND',
        `no document in ${collection} has ${field} = ${text}`,
      );
    }
    if (matched > 1) {
      throw new DbError(
        'ERR_AMBIGUOUS_MATCH',
        `${matched} documents in ${collection} have ${field} = ${text}; replace one by its _id instead`,
        { matched },
      );
    }
    const owner = (found.find((f) => f.answer.count === 1) as { shard: ClusterShard }).shard;
    if (isPlainObject(doc)) keepsOwner(this.config, placement, doc, owner);
    return this.ask(owner, (c) => c.replaceByKey(collection, field, text, doc as Document));
  }

  /** `DELETE …/by/{field}/{value}`: every match on the shards that may hold one. */
  async deleteByKey(collection: string, field: string, text: string): Promise<DeleteAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      const [first] = await this.all((c) => c.deleteByKey(collection, field, text));
      return first as DeleteAnswer;
    }
    const answers = await this.partAnswers(
      (c) => c.deleteByKey(collection, field, text),
      this.keyTargets(collection, field, text),
    );
    return { deleted: answers.reduce((n, a) => n + a.deleted, 0) };
  }

  /** The shard holding the document with this `_id` (the id does not say its owner). */
  private async holderOf(
    collection: string,
    id: string,
  ): Promise<{ shard: ClusterShard; doc: Document }> {
    const found = await this.parts((c) => c.get(collection, id));
    const hit = found.find((f) => f.answer !== undefined);
    if (!hit)
      throw new DbError('ERR_DOCUMENT_NOT_FOUND', `no document with _id ${id} in ${collection}`);
    return { shard: hit.shard, doc: hit.answer as Document };
  }

  /** `GET /collections/{c}/{_id}`: asks every shard (one for a replicated collection). */
  async get(collection: string, id: string): Promise<Document> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      return (await this.askAny(this.config.shards, (c) => c.require(collection, id))).answer;
    }
    return (await this.holderOf(collection, id)).doc;
  }

  /** `PUT /collections/{c}/{_id}`: on the shard that holds it; the shard key may not move it. */
  async replace(collection: string, id: string, doc: unknown): Promise<ReplaceAnswer> {
    const placement = requirePlacement(this.config, collection);
    if (placement.strategy === 'replicated') {
      const [first] = await this.all((c) => c.replace(collection, id, doc as Document));
      return first as ReplaceAnswer;
    }
    const { shard } = await this.holderOf(collection, id);
    if (isPlainObject(doc)) keepsOwner(this.config, placement, doc, shard);
    return this.ask(shard, (c) => c.replace(collection, id, doc as Document));
  }

  /** `DELETE /collections/{c}/{_id}`: every shard; 404 when none held it. */
  async delete(collection: string, id: string): Promise<DeleteAnswer> {
    requirePlacement(this.config, collection);
    const answers = await this.partAnswers(async (c) => {
      const doc = await c.get(collection, id);
      return doc === undefined ? 0 : (await c.delete(collection, id)).deleted;
    });
    const deleted = answers.reduce((n, d) => n + d, 0);
    if (deleted === 0)
      throw new DbError('ERR_DOCUMENT_NOT_FOUND', `no document with _id ${id} in ${collection}`);
    return { deleted: Math.min(deleted, 1) };
  }

  /** `DELETE /collections/{c}` (confirmed by the caller): on every shard. */
  async dropCollection(collection: string): Promise<DropAnswer> {
    requirePlacement(this.config, collection);
    const [first] = await this.partAnswers((c) => c.dropCollection(collection));
    this.present.delete(normalizeCollectionName(collection));
    return first as DropAnswer;
  }

  // ---- indexes, stats, collections -------------------------------------------------------

  /** `GET /indexes/{c}`: one shard's list (every shard has the same indexes). */
  async indexes(collection: string): Promise<IndexInfo[]> {
    requirePlacement(this.config, collection);
    return (await this.partAnswers((c) => c.indexes(collection))).at(0) ?? [];
  }

  /** `POST /index`: on every shard. */
  async createIndex(request: IndexRequest): Promise<CreatedIndex> {
    requirePlacement(this.config, request.collection);
    await this.ensureEverywhere(request.collection);
    const [first] = await this.all((c) => c.createIndex(request));
    return first as CreatedIndex;
  }

  /** `GET /stats`: counts summed per collection, and each shard's own stats. */
  async stats(): Promise<RouterStats> {
    const all = await this.all((c) => c.stats());
    const counts = new Map<string, number>();
    for (const stats of all) {
      for (const c of stats.collections) counts.set(c.name, (counts.get(c.name) ?? 0) + c.count);
    }
    return {
      collections: [...counts.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, count]) => ({ name, count })),
      shards: all.map((stats, k) => ({
        name: (this.config.shards[k] as ClusterShard).name,
        stats,
      })),
    };
  }

  /** `GET /collections`: the union of every shard's names, sorted. */
  async collections(): Promise<string[]> {
    const all = await this.all((c) => c.collections());
    return [...new Set(all.flat())].sort();
  }

  /** Closes every shard client. */
  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }
}

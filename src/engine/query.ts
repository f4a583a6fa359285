/**
 * `db.query(sql, params)`: parse (cached by SQL text, or found by a prepared handle), resolve
 * collections, plan, execute.
 * Reads answer `{ plan, count, executionMs, documents }`; writes add `affected` (and `ids` for
 * INSERT) with empty `documents`. The unknown-collection error names the known collections.
 */

import { collectionNotFound, dbError } from '../errors/index.js';
import {
  bindPlan,
  checkParams,
  type Parsed,
  type PreparedEntry,
  PreparedStatements,
  parse,
  type QueryLimits,
  planNodes,
  plainShape,
  planSelect,
  quotedFieldWarnings,
  runCreateIndex,
  runDelete,
  runDropIndex,
  runInsert,
  runSelect,
  runUpdate,
  type SelectPlan,
  type SelectStatement,
  type Statement,
  streamSelect,
  viewOf,
  type WriteOutcome,
} from '../sql/index.js';
import {
  type Document,
  normalizeCollectionName,
  type Store,
  type StoreWriter,
} from '../storage/index.js';
import type {
  JsonLines,
  JsonText,
  KeyedRow,
  QueryMeta,
  QueryResult,
  RowsOption,
  ShardPlan,
} from '../types/index.js';
import {
  ClockCache,
  SQL_CHARS_MAX,
  STATEMENT_CACHE_ENTRIES,
  STATEMENT_CACHED_CHARS_MAX,
} from '../util/index.js';
import { refuseShardPlan, type ShardSelect, shardSelect } from './shard-plan.js';

export type { KeyedRow, QueryLimits, QueryMeta, QueryResult, ShardPlan };

/** A SELECT plan made under one catalog version, for one ShardSelect `planKey`. */
interface HeldPlan {
  planKey: string;
  catalogVersion: number;
  select: SelectPlan;
}

/** A parsed statement and, for SELECT, its plan under one catalog version. */
export interface CachedStatement extends Parsed {
  plan?: HeldPlan;
  /**
   * The plan of the last part a router asked of this text (its ShardPlan), cached the same
   * way; one slot, so a LIMIT that varies from call to call cannot grow an entry.
   */
  shardPlan?: HeldPlan;
}

/** A statement as a caller gives it: its SQL text, or the handle `prepare` answered for it. */
export type StatementRef = string | { handle: string };

/**
 * Parsed statements and SELECT plans, keyed by the SQL text (a cold one goes when full:
 * ClockCache, so a hit writes no Map), and the prepared ones by handle. A plan is reused while the catalog version it was
 * made under holds, so a handle outlives CREATE INDEX and the like: its next run plans again,
 * as PostgreSQL re-plans a prepared statement after DDL.
 */
export class StatementCache {
  private readonly entries = new ClockCache<CachedStatement>(STATEMENT_CACHE_ENTRIES);
  private readonly prepared = new PreparedStatements<CachedStatement>();

  /** Parses `sql` (through the cache) and holds it by handle. */
  prepare(sql: string): PreparedEntry<CachedStatement> {
    return this.prepared.add(sql, this.get(sql));
  }

  /** The statement of `ref`: by text, or by handle (ERR_SQL_HANDLE_UNKNOWN when not held). */
  of(ref: StatementRef): CachedStatement {
    return typeof ref === 'string' ? this.get(ref) : this.prepared.require(ref.handle).parsed;
  }

  get(sql: string): CachedStatement {
    if (typeof sql !== 'string') {
      throw dbError('ERR_SQL_SYNTAX', 'notString');
    }
    if (sql.length > SQL_CHARS_MAX) {
      throw dbError('ERR_SQL_TOO_LONG', 'tooLong', { length: sql.length, limit: SQL_CHARS_MAX });
    }
    if (sql.length > STATEMENT_CACHED_CHARS_MAX) return parse(sql);
    let parsed: CachedStatement | undefined = this.entries.get(sql);
    if (parsed === undefined) {
      parsed = parse(sql);
      this.entries.set(sql, parsed);
    }
    return parsed;
  }
}

/** The SELECT plan of a cached statement, made again only when the catalog changed. */
function selectPlanOf(store: Store, cached: CachedStatement, select: ShardSelect): SelectPlan {
  const { statement, phase, planKey } = select;
  const slot = planKey === '' ? 'plan' : 'shardPlan';
  const held = cached[slot];
  const catalogVersion = store.catalogVersion;
  if (held?.catalogVersion === catalogVersion && held.planKey === planKey) return held.select;
  const plan = planSelect(statement, views(store, statement), { phase });
  cached[slot] = { planKey, catalogVersion, select: plan };
  return plan;
}

function views(store: Store, statement: SelectStatement) {
  const names = [statement.from, ...statement.joins.map((j) => j.collection)];
  return names.map((raw) => {
    const name = normalizeCollectionName(raw);
    const def = store.getCollection(name);
    if (!def) throw collectionNotFound(raw, store.collectionNames());
    return viewOf(def);
  });
}

async function runWrite(
  store: Store,
  writer: StoreWriter,
  statement: Exclude<Statement, SelectStatement>,
  params: readonly unknown[],
): Promise<WriteOutcome> {
  switch (statement.kind) {
    case 'insert':
      return runInsert(writer, statement, params);
    case 'update':
      return runUpdate(store, writer, statement, params);
    case 'delete':
      return runDelete(store, writer, statement, params);
    case 'createIndex':
      return runCreateIndex(store, writer, statement);
    case 'dropIndex':
      return runDropIndex(store, writer, statement);
  }
}

/** Where a statement runs: the store, the writer its writes go through, its plan cache. */
export interface QueryTarget {
  store: Store;
  /** The write gate's writer. */
  writer: StoreWriter;
  cache: StatementCache;
  /** What each SELECT may spend (sql/executor's budget.ts). */
  limits: QueryLimits;
}

/** A statement parsed (from the cache), its params checked, the store's view made current. */
function prepare(
  target: QueryTarget,
  sql: StatementRef,
  params: readonly unknown[],
  shard?: ShardPlan,
) {
  const parsed = target.cache.of(sql);
  checkParams(parsed, params);
  target.store.refresh();
  refuseShardPlan(parsed.statement, shard);
  return { parsed, statement: parsed.statement };
}

/**
 * Whether the statement is a SELECT that keeps no selection (issue 25): bound to `params`,
 * its plan reads through an index (a lookup or a range), or reads the whole of one collection
 * unfiltered and unsorted (one cursor: a stream's chunks come straight from it), and joins
 * nothing. Any process reads those as fast as the writer does, so a node's reader process
 * answers them itself. A filtered or sorted scan (the writer keeps its selections current
 * from its own writes), a join (it scans the joined collection), a write, or a statement
 * that fails to parse, find its handle, take its params or plan answers false, without an
 * error: the caller passes it on and the first process answers it. Plans through the
 * statement cache, so running it after costs no second plan; the store's view is made
 * current first, so a new index is seen.
 */
export function readsWithoutSelections(
  target: QueryTarget,
  sql: StatementRef,
  params: readonly unknown[],
  shard?: ShardPlan,
): boolean {
  try {
    const { parsed, statement } = prepare(target, sql, params, shard);
    if (statement.kind !== 'select') return false;
    const plan = selectPlanOf(target.store, parsed, shardSelect(statement, shard));
    const bound = bindPlan(plan, params);
    if (bound.access.kind !== 'scan') {
      return !planNodes(bound.root).some((node) => node.kind === 'hashJoin');
    }
    // [LIMIT] → project → scan: the stream's cursor path (sql/executor/stream.ts).
    const shape = plainShape(bound.root);
    return shape !== undefined && !shape.sort && shape.rows.kind === 'scan';
  } catch {
    return false;
  }
}

/**
 * Runs one statement against the store; a write goes through the target's writer. With
 * `rows: 'json'` (or `ndjson`) rows may come as JsonText (sql/executor's SelectOptions).
 */
export async function runQuery(
  target: QueryTarget,
  sql: StatementRef,
  params: readonly unknown[] = [],
  shard?: ShardPlan,
  rows: RowsOption['rows'] = 'objects',
): Promise<QueryResult<Document | JsonText>> {
  const started = performance.now();
  const { store, writer } = target;
  const { parsed, statement } = prepare(target, sql, params, shard);
  if (statement.kind === 'select') {
    const select = shardSelect(statement, shard);
    const plan = selectPlanOf(store, parsed, select);
    const result = runSelect(store, plan, params, {
      limits: target.limits,
      sortKeys: select.sortKeys,
      // A whole answer has no chunks: lines are a stream's.
      rows: rows === 'ndjson' ? 'json' : rows,
    });
    const executionMs = performance.now() - started;
    const { documents } = result;
    return {
      plan: result.plan,
      count: documents.length,
      executionMs,
      ...warningsOf(store, parsed),
      documents,
      ...(result.sortKeys && { sortKeys: result.sortKeys as unknown[][] }),
    };
  }
  // Looked up before the write, in the documents the write's WHERE was matched against.
  const warned = warningsOf(store, parsed);
  const outcome = await runWrite(store, writer, statement, params);
  return {
    plan: outcome.plan,
    count: outcome.affected,
    executionMs: performance.now() - started,
    ...warned,
    affected: outcome.affected,
    documents: [],
    ...(outcome.ids && { ids: outcome.ids }),
  };
}

/** `{ warnings }` when a double-quoted path names no field of any document, else nothing. */
function warningsOf(store: Store, parsed: Parsed): { warnings?: string[] } {
  const warnings = quotedFieldWarnings(store, parsed.statement, parsed.quotedPaths);
  return warnings.length > 0 ? { warnings } : {};
}

/**
 * Runs one statement and yields its meta first, then its documents one at a time, or with
 * `rows: 'ndjson'` several at a time as JsonLines where the plan allows (a write yields only
 * its meta). Documents come from one snapshot, so they match the count even when writes land
 * while the consumer reads slowly.
 */
export async function* streamQuery(
  target: QueryTarget,
  sql: StatementRef,
  params: readonly unknown[] = [],
  shard?: ShardPlan,
  rows: RowsOption['rows'] = 'objects',
): AsyncGenerator<QueryMeta | Document | JsonText | JsonLines | KeyedRow, void, undefined> {
  const started = performance.now();
  const { store } = target;
  const { parsed, statement } = prepare(target, sql, params, shard);
  if (statement.kind !== 'select') {
    const { documents: _, ...meta } = await runQuery(target, sql, params);
    yield meta;
    return;
  }
  const snapshot = store.openSnapshot();
  try {
    const select = shardSelect(statement, shard);
    const plan = selectPlanOf(store, parsed, select);
    const streamed = streamSelect(store, plan, params, snapshot, {
      limits: target.limits,
      sortKeys: select.sortKeys,
      rows,
    });
    yield {
      plan: streamed.plan,
      count: streamed.count,
      executionMs: performance.now() - started,
      ...warningsOf(store, parsed),
    };
    const keys = streamed.sortKeys;
    let k = 0;
    for (const document of streamed.documents) {
      // Sort keys travel beside each row only when the router asked and the plan sorts.
      yield keys ? { doc: document, sortKey: keys[k++] as unknown[] } : document;
    }
  } finally {
    snapshot.release();
  }
}

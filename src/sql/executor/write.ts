/**
 * Runs write statements. Each statement is one atomic job in the store's group commit: an
 * UPDATE or DELETE finds its rows (through an index when the plan has one) inside the write
 * transaction, collects their ids first (so changing an index never disturbs the scan that
 * reads it), then writes; any failure rolls the whole statement back.
 */

import { collectionNotFound, DbError, dbError, relayedError } from '../../errors/index.js';
import {
  type BulkResult,
  type CollectionDef,
  checkDocument,
  checkFieldValue,
  checkIndexSpec,
  NOTHING_STORED,
  normalizeCollectionName,
  type StoredDocument,
  type StoreReader,
  type StoreWriter,
} from '../../storage/index.js';
import { BULK_DOCUMENTS_MAX, type PathSegment, parsePath } from '../../util/index.js';
import type {
  CreateIndexStatement,
  DeleteStatement,
  DropIndexStatement,
  InsertStatement,
  PathRef,
  UpdateStatement,
} from '../ast/index.js';
import { bindPlan, planWhere, type WherePlan } from '../planner/index.js';
import { resolveValue } from '../semantics/index.js';
import { accessDocuments, accessRow, documentTest } from './access.js';
import { StatementBudget } from './budget.js';
import type { ExecContext } from './context.js';
import { viewOf } from './view.js';

/** What a write statement reports. */
export interface WriteOutcome {
  plan: string;
  affected: number;
  ids?: string[];
}

function requireDef(store: StoreReader, name: string): CollectionDef {
  const def = store.getCollection(name);
  if (!def) throw collectionNotFound(name, store.collectionNames());
  return def;
}

/** `message` without its closing "nothing … stored", which the relayed message says once. */
function withoutNothingStored(message: string): string {
  const closing = `; ${NOTHING_STORED}`;
  return message.endsWith(closing) ? message.slice(0, -closing.length) : message;
}

/** INSERT: one document, a JSON array of documents, or `?` holding either; all or nothing. */
export async function runInsert(
  writer: StoreWriter,
  statement: InsertStatement,
  params: readonly unknown[],
): Promise<WriteOutcome> {
  const collection = normalizeCollectionName(statement.collection);
  const docs: unknown[] = [];
  for (const item of statement.documents) {
    const value = resolveValue(item, params);
    // A loop, not a spread: 150k documents in one `?` passed the stack's argument room.
    if (Array.isArray(value)) for (const doc of value) docs.push(doc);
    else docs.push(value);
    // One transaction, as a bulk insert is: the same bound (a 3.6 MB text stored 1.2M).
    if (docs.length > BULK_DOCUMENTS_MAX) {
      throw dbError('ERR_BULK_TOO_LARGE', 'insertTooMany', { limit: BULK_DOCUMENTS_MAX });
    }
  }
  const numbered = <T>(i: number, step: () => T): T => {
    try {
      return step();
    } catch (error) {
      if (error instanceof DbError && docs.length > 1) {
        const values = { position: i + 1, count: docs.length, message: error.message };
        throw relayedError(error.code, 'bulkItem', values, error.details);
      }
      throw error;
    }
  };
  const checked = docs.map((doc, i) => numbered(i, () => checkDocument(doc)));
  // Encoded in the write, from the objects as they are then (see engine/collection.ts).
  const result: BulkResult = await writer.write((txn) =>
    txn.insertDocuments(
      collection,
      checked.map(({ body, id }, i) => numbered(i, () => txn.prepareDocument(body, id))),
      { atomic: true },
    ),
  );
  const failure = result.errors[0];
  if (failure) {
    // An INSERT is all or nothing: the message says once that nothing was stored.
    const code = failure.code as DbError['code'];
    const message = withoutNothingStored(failure.error);
    throw docs.length > 1
      ? relayedError(code, 'bulkItemNothingStored', {
          position: failure.index + 1,
          count: docs.length,
          message,
        })
      : relayedError(code, 'nothingStored', { message });
  }
  return { plan: 'INSERT', affected: result.ids.length, ids: result.ids };
}

/**
 * The WHERE plans of UPDATE and DELETE statements (the parsed statements the statement cache
 * holds), each with the collection definition it was made for. A definition is replaced, never
 * changed, when its collection's indexes change, so a plan is made again exactly then.
 */
const wherePlans = new WeakMap<
  UpdateStatement | DeleteStatement,
  { def: CollectionDef; where: WherePlan }
>();

function wherePlanOf(statement: UpdateStatement | DeleteStatement, def: CollectionDef): WherePlan {
  const held = wherePlans.get(statement);
  if (held?.def === def) return held.where;
  const where = planWhere(statement.where, viewOf(def));
  wherePlans.set(statement, { def, where });
  return where;
}

/**
 * The rows a WHERE selects, read inside the current write job through the same planner and
 * access operators as SELECT, with the plan bound to the parameters.
 */
function matchingIds(
  store: StoreReader,
  def: CollectionDef,
  statement: UpdateStatement | DeleteStatement,
  params: readonly unknown[],
): { plan: string; rows: StoredDocument[] } {
  const where = wherePlanOf(statement, def);
  const bound = bindPlan(where, params);
  const { access } = bound;
  // A write is not timed (its job is atomic: stopped late, all its work is lost), but it holds
  // every document it matched, so the heap is watched.
  const ctx: ExecContext = {
    reader: store,
    params,
    resolver: where.resolver,
    sparse: false,
    budget: new StatementBudget(),
  };
  const passes = documentTest(access, statement.where, ctx);
  const rows: StoredDocument[] = [];
  for (const found of accessDocuments(access, ctx)) {
    ctx.budget.tick();
    if (accessRow(access, found, passes)) rows.push(found);
  }
  return { plan: bound.plan, rows };
}

/**
 * Sets `value` at `path` inside `doc`, creating the objects of missing fields along the way.
 * A step that holds a value other than an object (null included: it is a value, not a
 * missing field, as MongoDB's `$set` treats it) is an error, and so is a position past the
 * end of an array (docs/sql.md).
 */
function assign(doc: Record<string, unknown>, ref: PathRef, value: unknown): void {
  const path = parsePath(ref.text);
  const first = path.segments[0];
  if (first?.kind === 'field' && first.name === '_id') {
    throw dbError('ERR_SQL_INVALID', 'updateId');
  }
  let current: unknown = doc;
  path.segments.forEach((segment, i) => {
    const last = i === path.segments.length - 1;
    const next = path.segments[i + 1];
    if (segment.kind === 'field') {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) {
        throw cannotSet(ref, path.segments, i, current);
      }
      const target = current as Record<string, unknown>;
      // A name Object.prototype defines (`constructor`) is missing unless the document holds
      // it. (`__proto__`, which would set the prototype, is no path: json-path.ts.)
      if (last) target[segment.name] = value;
      else {
        if (!Object.hasOwn(target, segment.name) || target[segment.name] === undefined) {
          target[segment.name] = next?.kind === 'index' ? [] : {};
        }
        current = target[segment.name];
      }
    } else if (segment.kind === 'index') {
      if (!Array.isArray(current) || segment.index > current.length) {
        throw cannotSet(ref, path.segments, i, current);
      }
      if (last) current[segment.index] = value;
      else {
        if (current[segment.index] === undefined) {
          current[segment.index] = next?.kind === 'index' ? [] : {};
        }
        current = current[segment.index];
      }
    }
  });
}

/** What a SET step found, in words: `null`, `a number`, `an array of 2 elements`. */
function described(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    return `an array of ${value.length} element${value.length === 1 ? '' : 's'}`;
  }
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The text of the first `count` segments of a path: `a.b[2]`. */
function prefixText(segments: readonly PathSegment[], count: number): string {
  return segments
    .slice(0, count)
    .map((s, k) =>
      s.kind === 'field'
        ? `${k === 0 ? '' : '.'}${s.name}`
        : s.kind === 'index'
          ? `[${s.index}]`
          : '[*]',
    )
    .join('');
}

/** Step `step` of a SET path cannot go into `found`: names the step, what it holds and the way out. */
function cannotSet(
  ref: PathRef,
  segments: readonly PathSegment[],
  step: number,
  found: unknown,
): DbError {
  const segment = segments[step] as PathSegment;
  const holder = prefixText(segments, step);
  const at = { line: ref.at.line, column: ref.at.column };
  if (segment.kind === 'index' && Array.isArray(found)) {
    const count = found.length;
    const elements = count === 1 ? 'element' : 'elements';
    return dbError(
      'ERR_SQL_INVALID',
      'setPastEnd',
      { path: ref.text, holder, count, elements },
      at,
    );
  }
  const [wanted, empty] = segment.kind === 'index' ? ['an array', '[]'] : ['an object', '{}'];
  const values = { path: ref.text, holder, found: described(found), wanted, empty };
  return dbError('ERR_SQL_INVALID', 'setThroughValue', values, at);
}

/** UPDATE … SET path = value [, …] [WHERE …]: every matching document, atomically. */
export async function runUpdate(
  store: StoreReader,
  writer: StoreWriter,
  statement: UpdateStatement,
  params: readonly unknown[],
): Promise<WriteOutcome> {
  const name = normalizeCollectionName(statement.collection);
  const values = statement.assignments.map((a) => {
    const value = resolveValue(a.value, params);
    checkFieldValue(a.path.text, parsePath(a.path.text).segments.length, value);
    return value;
  });
  requireDef(store, name);
  return writer.write((txn) => {
    const def = requireDef(txn, name);
    const { plan, rows } = matchingIds(txn, def, statement, params);
    for (const row of rows) {
      // Each row's body is its own, decoded for this job (no cache hands it out), so it is
      // changed in place; each assigned value is copied, since rows share them.
      const body = row.body;
      statement.assignments.forEach((a, k) => {
        const value = values[k];
        assign(body, a.path, typeof value === 'object' ? structuredClone(value) : value);
      });
      const checked = checkDocument(body);
      txn.replaceDocument(name, row.id, txn.prepareDocument(checked.body, row.id));
    }
    return { plan, affected: rows.length };
  });
}

/** DELETE FROM … [WHERE …]: every matching document (all of them without WHERE). */
export async function runDelete(
  store: StoreReader,
  writer: StoreWriter,
  statement: DeleteStatement,
  params: readonly unknown[],
): Promise<WriteOutcome> {
  const name = normalizeCollectionName(statement.collection);
  requireDef(store, name);
  return writer.write((txn) => {
    const def = requireDef(txn, name);
    const { plan, rows } = matchingIds(txn, def, statement, params);
    for (const row of rows) txn.deleteDocument(name, row.id);
    return { plan, affected: rows.length };
  });
}

/** CREATE [UNIQUE] INDEX name ON collection (paths). The collection must exist. */
export async function runCreateIndex(
  store: StoreReader,
  writer: StoreWriter,
  statement: CreateIndexStatement,
): Promise<WriteOutcome> {
  const name = normalizeCollectionName(statement.collection);
  requireDef(store, name);
  const spec = checkIndexSpec(name, {
    paths: statement.paths,
    name: statement.name,
    unique: statement.unique,
  });
  await writer.write((txn) => txn.createIndex(name, spec));
  return { plan: 'CREATE INDEX', affected: 0 };
}

/** DROP INDEX name ON collection. */
export async function runDropIndex(
  store: StoreReader,
  writer: StoreWriter,
  statement: DropIndexStatement,
): Promise<WriteOutcome> {
  const name = normalizeCollectionName(statement.collection);
  requireDef(store, name);
  await writer.write((txn) => txn.dropIndex(name, statement.name));
  return { plan: 'DROP INDEX', affected: 0 };
}

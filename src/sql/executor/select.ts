/**
 * Runs SELECT plans over storage, pulling rows through iterators: candidates from the access
 * path, hash joins, the WHERE filter, then either an early stop at LIMIT (rule 5) or
 * materialisation for ORDER BY, GROUP BY, aggregates and DISTINCT.
 */

import { DbError } from '../../errors/index.js';
import {
  type CollectionDef,
  type Document,
  FieldSelection,
  findIndex,
  idForUniqueKey,
  idsForKeys,
  idsForRange,
  type StoreReader,
  withId,
} from '../../storage/index.js';
import { compareValues, isScalar, valueAt } from '../../util/index.js';
import type { OrderItem, SelectItem, SelectStatement, Value } from '../ast/index.js';
import {
  type Access,
  checkSelectList,
  chooseAccess,
  conditionPaths,
  type CollectionView,
  isAggregate,
  limitPushesDown,
  PathResolver,
  selectPlanString,
} from '../planner/index.js';
import { evaluate, type Row, resolveValue } from './evaluate.js';

/** A collection resolved for execution: its definition and what the planner sees of it. */
export interface Source {
  def: CollectionDef;
  view: CollectionView;
}

/** The prepared form of a SELECT: plan chosen, ready to run with parameters. */
export interface SelectPlan {
  statement: SelectStatement;
  sources: Source[];
  resolver: PathResolver;
  access: Access;
  plan: string;
  /** WHERE names `_id`, so rows need it before they are filtered. */
  whereUsesId: boolean;
  /**
   * What a scan of a single collection decodes of each document: every path the statement
   * reads. Undefined when rows need more (a join, or `_id` read).
   */
  selection: FieldSelection | undefined;
  /** The result holds whole documents (`SELECT *`): decode those WHERE keeps in full. */
  readsWhole: boolean;
}

/** A view of a collection for the planner. */
export function viewOf(def: CollectionDef): CollectionView {
  return {
    name: def.name,
    indexes: def.indexes.map((i) => ({
      name: i.name,
      paths: i.paths,
      unique: i.unique,
      multikey: i.multikey,
      state: i.state,
    })),
  };
}

/** Plans a SELECT over resolved sources (FROM first, then each JOIN). */
/**
 * ORDER BY may name a select-list alias. In a plain SELECT it is replaced by the aliased path;
 * in an aggregate SELECT output rows are sorted by their keys, which are the aliases already.
 */
function withAliasesResolved(statement: SelectStatement): SelectStatement {
  if (statement.items === '*' || isAggregate(statement) || statement.orderBy.length === 0) {
    return statement;
  }
  const aliased = new Map<string, SelectItem & { kind: 'column' }>();
  for (const item of statement.items) {
    if (item.kind === 'column' && item.name !== item.path.text) aliased.set(item.name, item);
  }
  if (aliased.size === 0) return statement;
  const orderBy = statement.orderBy.map((o) => {
    const item = aliased.get(o.path.text);
    return item ? { ...o, path: item.path } : o;
  });
  return { ...statement, orderBy };
}

export function planSelect(statement: SelectStatement, sources: Source[]): SelectPlan {
  checkSelectList(statement);
  const resolver = new PathResolver(sources.map((s) => s.def.name));
  const ordered = withAliasesResolved(statement);
  // Resolve every path now, so a bad join prefix fails before any work, rows or not.
  const items = statement.items === '*' ? [] : statement.items;
  const paths = [
    ...statement.joins.flatMap((j) => [j.left, j.right]),
    ...items.flatMap((i) => (i.kind === 'column' ? [i.path] : i.arg === '*' ? [] : [i.arg])),
    ...conditionPaths(statement.where),
    ...statement.groupBy,
    ...(isAggregate(statement) ? [] : ordered.orderBy.map((o) => o.path)),
  ];
  const resolved = paths.map((path) => resolver.resolve(path).path);
  statement = ordered;
  const access = chooseAccess(statement.where, (sources[0] as Source).view, resolver);
  const plan = selectPlanString(
    statement,
    access,
    sources.slice(1).map((s) => s.def.name),
  );
  const whereUsesId = conditionPaths(statement.where).some((p) => {
    const first = resolver.resolve(p).path.segments[0];
    return first?.kind === 'field' && first.name === '_id';
  });
  const readsId = resolved.some((p) => {
    const first = p.segments[0];
    return first?.kind === 'field' && first.name === '_id';
  });
  const selection =
    statement.joins.length === 0 && !readsId ? new FieldSelection(resolved) : undefined;
  const readsWhole = statement.items === '*';
  return { statement, sources, resolver, access, plan, whereUsesId, selection, readsWhole };
}

export function limitOf(
  value: Value | undefined,
  params: readonly unknown[],
  clause: string,
): number {
  if (value === undefined) return clause === 'LIMIT' ? Number.POSITIVE_INFINITY : 0;
  const n = resolveValue(value, params);
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw new DbError(
      'ERR_SQL_PARAM',
      `${clause} must be a non-negative integer; got ${JSON.stringify(n)}`,
    );
  }
  return n;
}

/** A stored document before `_id` is attached to its body. */
export interface Candidate {
  id: Buffer;
  body: Document;
}

/**
 * Candidate documents of the access path, not yet filtered. `scan` reads the collection when
 * the access path is (or falls back to) a scan.
 */
export function* candidates(
  store: StoreReader,
  def: CollectionDef,
  access: Access,
  params: readonly unknown[],
  scan: () => Iterable<Candidate> = () => store.scan(def),
): Generator<Candidate> {
  const index = access.kind === 'scan' ? undefined : findIndex(def, access.index.name);
  const tuples =
    access.kind === 'index'
      ? access.keys.map((tuple) => tuple.map((v) => resolveValue(v, params)))
      : [];
  // Indexes list scalars only: a parameter holding an array or object is answered by a scan.
  const scalarKeys = tuples.every((tuple) => tuple.every((v) => v === null || isScalar(v)));
  if (access.kind === 'scan' || !index || index.state !== 'ready' || !scalarKeys) {
    yield* scan();
    return;
  }
  const ids =
    access.kind === 'index'
      ? idsForKeys(store, index, tuples)
      : idsForRange(store, index, {
          ...(access.lower && {
            [access.lower.inclusive ? 'gte' : 'gt']: resolveValue(access.lower.value, params),
          }),
          ...(access.upper && {
            [access.upper.inclusive ? 'lte' : 'lt']: resolveValue(access.upper.value, params),
          }),
        });
  for (const id of ids) {
    const body = store.getBody(def, id);
    if (body) yield { id, body };
  }
}

/**
 * The candidate of an equality on every path of a ready unique index (a point lookup), read
 * without the iterator chain: null when no document has the key, undefined when the plan is
 * anything else (the general path answers it).
 */
function pointCandidate(
  store: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
): Candidate | null | undefined {
  const { access } = plan;
  if (access.kind !== 'index' || access.keys.length !== 1 || plan.statement.joins.length > 0) {
    return undefined;
  }
  const def = (plan.sources[0] as Source).def;
  const index = findIndex(def, access.index.name);
  if (!index?.unique || index.state !== 'ready') return undefined;
  const tuple = (access.keys[0] as Value[]).map((v) => resolveValue(v, params));
  if (tuple.some((v) => v === null || !isScalar(v))) return undefined;
  const id = idForUniqueKey(store, index, tuple);
  const body = id && store.getBody(def, id);
  return id && body ? { id, body } : null;
}

/** A typed key for hash joins and grouping: 1 and "1" differ, 1 and 1.0 do not. */
function typedKey(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return JSON.stringify(value);
}

function* joined(store: StoreReader, plan: SelectPlan, left: Iterable<Row>): Generator<Row> {
  let rows: Iterable<Row> = left;
  plan.statement.joins.forEach((join, j) => {
    const source = j + 1;
    const a = plan.resolver.resolve(join.left);
    const b = plan.resolver.resolve(join.right);
    const [mine, theirs] = a.source === source ? [a, b] : [b, a];
    if (mine.source !== source || theirs.source >= source) {
      throw new DbError(
        'ERR_SQL_INVALID',
        `JOIN ${join.collection} ON must compare a path of ${join.collection} with a path of a collection before it`,
      );
    }
    const table = new Map<string, Document[]>();
    for (const { id, body } of store.scan((plan.sources[source] as Source).def)) {
      const doc = withId(id, body);
      const key = typedKey(valueAt(doc, mine.path));
      if (key === undefined) continue;
      const bucket = table.get(key);
      if (bucket) bucket.push(doc);
      else table.set(key, [doc]);
    }
    const previous = rows;
    rows = (function* () {
      for (const row of previous) {
        const key = typedKey(valueAt(row[theirs.source], theirs.path));
        if (key === undefined) continue;
        for (const match of table.get(key) ?? []) yield [...row, match];
      }
    })();
  });
  yield* rows;
}

/**
 * Every row that satisfies WHERE, in access order. With `whole` false a scanned row may hold
 * only `_id` and the paths the statement reads (a stream that reads bodies later).
 */
export function* matchingRows(
  store: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  whole = plan.readsWhole,
): Generator<Row> {
  const first = plan.sources[0] as Source;
  const where = plan.statement.where;
  const { selection } = plan;
  if (selection) {
    // A scan decodes only the paths the statement reads and tests WHERE on those, so the
    // documents WHERE rejects are never built; a kept one is decoded whole for `SELECT *`.
    // Attaching `_id` (a copy) waits until a row has passed.
    const passes = (body: Document) =>
      !where || evaluate(where, [body], plan.resolver, params) === true;
    let tested = false;
    const found = candidates(store, first.def, plan.access, params, () => {
      tested = true;
      return store.scanSelected(first.def, selection, where && passes, whole);
    });
    const aggregate = isAggregate(plan.statement);
    for (const { id, body } of found) {
      if (tested || passes(body)) yield [aggregate ? body : withId(id, body)];
    }
    return;
  }
  const found = candidates(store, first.def, plan.access, params);
  if (plan.statement.joins.length === 0 && !plan.whereUsesId) {
    for (const { id, body } of found) {
      if (!where || evaluate(where, [body], plan.resolver, params) === true) {
        yield [withId(id, body)];
      }
    }
    return;
  }
  const left = (function* () {
    for (const { id, body } of found) yield [withId(id, body)] as Row;
  })();
  const rows = plan.statement.joins.length > 0 ? joined(store, plan, left) : left;
  for (const row of rows) {
    if (!where || evaluate(where, row, plan.resolver, params) === true) yield row;
  }
}

function rowDocument(plan: SelectPlan, row: Row): Document {
  if (row.length === 1) return row[0] as Document;
  const out: Document = {};
  plan.sources.forEach((s, i) => {
    out[s.def.name] = row[i];
  });
  return out;
}

/** The result document of a row: the whole row for `*`, else `_id` plus the listed paths. */
export function project(plan: SelectPlan, row: Row): Document {
  const items = plan.statement.items;
  if (items === '*') return rowDocument(plan, row);
  const out: Document = {};
  if (!plan.statement.distinct && row.length === 1) out._id = (row[0] as Document)._id;
  for (const item of items as SelectItem[]) {
    if (item.kind !== 'column') continue;
    const resolved = plan.resolver.resolve(item.path);
    const value = valueAt(row[resolved.source], resolved.path);
    out[item.name] = value === undefined ? null : value;
  }
  return out;
}

function compareRows(plan: SelectPlan, order: OrderItem[], a: Row, b: Row): number {
  for (const item of order) {
    const resolved = plan.resolver.resolve(item.path);
    const c = compareValues(
      valueAt(a[resolved.source], resolved.path),
      valueAt(b[resolved.source], resolved.path),
    );
    if (c !== 0) return item.descending ? -c : c;
  }
  // Ties break by _id, source by source, so results are deterministic.
  for (let i = 0; i < a.length; i++) {
    const c = compareValues((a[i] as Document)._id, (b[i] as Document)._id);
    if (c !== 0) return c;
  }
  return 0;
}

function dedupe(documents: Document[]): Document[] {
  const seen = new Set<string>();
  return documents.filter((d) => {
    const key = JSON.stringify(d);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

interface Accumulator {
  count: number;
  sum: number;
  best: unknown;
}

function accumulate(
  acc: Accumulator,
  item: SelectItem & { kind: 'aggregate' },
  value: unknown,
): void {
  if (item.arg === '*') {
    acc.count++;
    return;
  }
  if (value === undefined || value === null) return;
  if (item.fn === 'SUM' || item.fn === 'AVG') {
    if (typeof value !== 'number') return;
    acc.sum += value;
    acc.count++;
    return;
  }
  acc.count++;
  if (acc.best === undefined) acc.best = value;
  else {
    const c = compareValues(value, acc.best);
    if ((item.fn === 'MIN' && c < 0) || (item.fn === 'MAX' && c > 0)) acc.best = value;
  }
}

function finish(acc: Accumulator, item: SelectItem & { kind: 'aggregate' }): unknown {
  switch (item.fn) {
    case 'COUNT':
      return acc.count;
    case 'SUM':
      return acc.count === 0 ? null : acc.sum;
    case 'AVG':
      return acc.count === 0 ? null : acc.sum / acc.count;
    default:
      return acc.best === undefined ? null : acc.best;
  }
}

/**
 * `SELECT COUNT(*) [, COUNT(*) AS n…] FROM c` with nothing else: LMDB keeps the entry count of
 * every tree, so the answer needs no scan.
 */
function countOnly(store: StoreReader, plan: SelectPlan): Document[] | undefined {
  const { statement } = plan;
  if (statement.where || statement.joins.length > 0 || statement.groupBy.length > 0)
    return undefined;
  if (
    statement.items === '*' ||
    statement.items.some((i) => i.kind !== 'aggregate' || i.arg !== '*')
  ) {
    return undefined;
  }
  const count = store.count((plan.sources[0] as Source).def);
  return [Object.fromEntries(statement.items.map((i) => [i.name, count]))];
}

function aggregateRows(plan: SelectPlan, rows: Iterable<Row>): Document[] {
  const statement = plan.statement;
  const items = statement.items === '*' ? [] : statement.items;
  const aggregates = items.filter(
    (i): i is SelectItem & { kind: 'aggregate' } => i.kind === 'aggregate',
  );
  const groupPaths = statement.groupBy.map((g) => plan.resolver.resolve(g));
  const aggPaths = aggregates.map((a) =>
    a.arg === '*' ? undefined : plan.resolver.resolve(a.arg),
  );
  const groups = new Map<unknown, { values: unknown[]; accs: Accumulator[] }>();
  const single = groupPaths.length === 1;
  const textKeys = new Map<string, object>();
  const textKey = (values: unknown[]): object => {
    const text = JSON.stringify(values);
    let key = textKeys.get(text);
    if (!key) {
      key = { text };
      textKeys.set(text, key);
    }
    return key;
  };
  for (const row of rows) {
    const values: unknown[] = [];
    for (const g of groupPaths) {
      const v = valueAt(row[g.source], g.path);
      values.push(v === undefined ? null : v);
    }
    // One grouping value that is a scalar is its own key: a Map tells 1 from "1" and sees
    // 1 and 1.0 as one, as the JSON text of the values does. Other keys are one object per
    // JSON text, so that no text can collide with a string value.
    const first = values[0];
    const key = single && (first === null || typeof first !== 'object') ? first : textKey(values);
    let group = groups.get(key);
    if (!group) {
      group = { values, accs: aggregates.map(() => ({ count: 0, sum: 0, best: undefined })) };
      groups.set(key, group);
    }
    for (let k = 0; k < aggregates.length; k++) {
      const p = aggPaths[k];
      accumulate(
        group.accs[k] as Accumulator,
        aggregates[k] as SelectItem & { kind: 'aggregate' },
        p ? valueAt(row[p.source], p.path) : undefined,
      );
    }
  }
  if (groups.size === 0 && groupPaths.length === 0) {
    groups.set('', {
      values: [],
      accs: aggregates.map(() => ({ count: 0, sum: 0, best: undefined })),
    });
  }
  const aliasOf = new Map(
    items
      .filter((i) => i.kind === 'column')
      .map((i) => [(i as { path: { text: string } }).path.text, i.name]),
  );
  return [...groups.values()].map((group) => {
    const out: Document = {};
    statement.groupBy.forEach((g, k) => {
      out[aliasOf.get(g.text) ?? g.text] = group.values[k];
    });
    aggregates.forEach((item, k) => {
      out[item.name] = finish(group.accs[k] as Accumulator, item);
    });
    return out;
  });
}

function sortOutput(documents: Document[], order: OrderItem[], items: SelectItem[]): void {
  if (order.length === 0) return;
  // A grouping column listed with an alias sits under the alias in the output row.
  const keyOf = (text: string) =>
    items.find((i) => i.kind === 'column' && i.path.text === text)?.name ?? text;
  const keys = order.map((o) => keyOf(o.path.text));
  const value = (doc: Document, key: string) => (key in doc ? doc[key] : undefined);
  documents.sort((a, b) => {
    for (let k = 0; k < order.length; k++) {
      const item = order[k] as OrderItem;
      const c = compareValues(value(a, keys[k] as string), value(b, keys[k] as string));
      if (c !== 0) return item.descending ? -c : c;
    }
    return 0;
  });
}

/** The result documents of a SELECT, and whether LIMIT stopped the scan early. */
export function runSelect(
  store: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
): Document[] {
  const { statement } = plan;
  const limit = limitOf(statement.limit, params, 'LIMIT');
  const offset = limitOf(statement.offset, params, 'OFFSET');
  if (limitPushesDown(statement)) {
    const out: Document[] = [];
    if (limit === 0) return out;
    const point = pointCandidate(store, plan, params);
    if (point !== undefined) {
      const where = statement.where;
      if (point === null || offset > 0) return out;
      const row = [withId(point.id, point.body)];
      if (where && evaluate(where, row, plan.resolver, params) !== true) return out;
      out.push(project(plan, row));
      return out;
    }
    let skipped = 0;
    for (const row of matchingRows(store, plan, params)) {
      if (skipped < offset) {
        skipped++;
        continue;
      }
      out.push(project(plan, row));
      if (out.length >= limit) break;
    }
    return out;
  }
  let documents: Document[];
  if (isAggregate(statement)) {
    documents = countOnly(store, plan) ?? aggregateRows(plan, matchingRows(store, plan, params));
    sortOutput(documents, statement.orderBy, statement.items === '*' ? [] : statement.items);
    if (statement.distinct) documents = dedupe(documents);
  } else {
    const rows = [...matchingRows(store, plan, params)];
    if (statement.orderBy.length > 0)
      rows.sort((a, b) => compareRows(plan, statement.orderBy, a, b));
    documents = rows.map((row) => project(plan, row));
    if (statement.distinct) documents = dedupe(documents);
  }
  return documents.slice(offset, limit === Number.POSITIVE_INFINITY ? undefined : offset + limit);
}

/**
 * The planner: a resolved statement and the collections' index definitions in, a physical
 * plan and its plan string out (spec §4 plan table, DESIGN §4). It never reads data and
 * never imports storage; values stay as literals or `?` references so a plan can be cached
 * by SQL text and reused with other parameters.
 */

import { DbError } from '../../errors/index.js';
import { type JsonPath, parsePath } from '../../util/index.js';
import {
  assertNever,
  type CompareOp,
  type Condition,
  type PathRef,
  type SelectItem,
  type SelectStatement,
  type Value,
} from '../ast/index.js';

/** What the planner needs to know about an index. */
export interface IndexView {
  name: string;
  paths: string[];
  unique: boolean;
  multikey: boolean;
  state: 'ready' | 'stale';
}

/** What the planner needs to know about a collection. */
export interface CollectionView {
  name: string;
  indexes: IndexView[];
}

/** A path resolved to the collection it reads (joins prefix paths with collection names). */
export interface ResolvedPath {
  text: string;
  /** Index into the plan's sources: 0 is FROM, 1… the JOINs in order. */
  source: number;
  /** The path inside that collection's documents. */
  path: JsonPath;
}

/** How candidate documents are found. */
export type Access =
  | { kind: 'scan' }
  | {
      kind: 'index';
      label: 'INDEX_SCAN' | 'INDEX_SCAN_MULTI' | 'INDEX_SCAN_COMPOSITE';
      index: IndexView;
      /** One tuple of values per lookup key. */
      keys: Value[][];
    }
  | {
      kind: 'range';
      index: IndexView;
      lower: { value: Value; inclusive: boolean } | undefined;
      upper: { value: Value; inclusive: boolean } | undefined;
    };

/** The plan string of an access path. */
export function accessLabel(access: Access): string {
  switch (access.kind) {
    case 'scan':
      return 'COLLECTION_SCAN';
    case 'index':
      return access.label === 'INDEX_SCAN_MULTI'
        ? `INDEX_SCAN_MULTI(${access.index.name}, ${access.keys.length} keys)`
        : `${access.label}(${access.index.name})`;
    case 'range':
      return `INDEX_RANGE_SCAN(${access.index.name})`;
    default:
      return assertNever(access);
  }
}

/** Resolves statement paths against the FROM collection and the JOINed ones. */
export class PathResolver {
  private readonly cache = new Map<string, ResolvedPath>();

  /** `sources` are canonical collection names: FROM first, then each JOIN. */
  constructor(private readonly sources: string[]) {}

  get joined(): boolean {
    return this.sources.length > 1;
  }

  resolve(ref: PathRef): ResolvedPath {
    let resolved = this.cache.get(ref.text);
    if (resolved) return resolved;
    resolved = this.joined
      ? this.resolveJoined(ref)
      : { text: ref.text, source: 0, path: parsePath(ref.text) };
    this.cache.set(ref.text, resolved);
    return resolved;
  }

  private resolveJoined(ref: PathRef): ResolvedPath {
    const lower = ref.text.toLowerCase();
    // Longest collection name first, so `a.b` wins over `a` for `a.b.x`.
    const order = this.sources
      .map((name, source) => ({ name, source }))
      .sort((x, y) => y.name.length - x.name.length);
    for (const { name, source } of order) {
      if (lower.startsWith(`${name}.`) || lower.startsWith(`${name}[`)) {
        const rest = ref.text.slice(name.length).replace(/^\./, '');
        if (rest.length > 0) return { text: ref.text, source, path: parsePath(rest) };
      }
    }
    throw new DbError(
      'ERR_SQL_INVALID',
      `path '${ref.text}' at ${ref.at.line}:${ref.at.column} must start with one of the joined collections (${this.sources.join(', ')})`,
      { line: ref.at.line, column: ref.at.column },
    );
  }
}

interface Candidate {
  path: string;
  op: CompareOp;
  value: Value;
}

function flip(op: CompareOp): CompareOp {
  switch (op) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
    default:
      return op;
  }
}

function conjuncts(condition: Condition | undefined): Condition[] {
  if (!condition) return [];
  if (condition.kind === 'and') return condition.conditions.flatMap(conjuncts);
  return [condition];
}

/** A comparison of a path of `source` with a value, normalised to `path op value`. */
function comparison(
  condition: Condition,
  resolver: PathResolver,
  source: number,
): Candidate | undefined {
  if (condition.kind !== 'compare' || condition.op === '!=') return undefined;
  const { left, right } = condition;
  let pathRef: PathRef;
  let value: Value;
  let op: CompareOp = condition.op;
  if (left.kind === 'path' && right.kind !== 'path') {
    pathRef = left;
    value = right;
  } else if (right.kind === 'path' && left.kind !== 'path') {
    pathRef = right;
    value = left;
    op = flip(op);
  } else {
    return undefined;
  }
  // `= null` is never true (three-valued logic): nothing for an index to look up.
  if (value.kind === 'literal' && (value.value === null || typeof value.value === 'object')) {
    return undefined;
  }
  const resolved = resolver.resolve(pathRef);
  if (resolved.source !== source) return undefined;
  return { path: canonicalText(resolved.path), op, value };
}

function canonicalText(path: JsonPath): string {
  return path.segments
    .map((s, i) =>
      s.kind === 'field'
        ? i === 0
          ? s.name
          : `.${s.name}`
        : s.kind === 'index'
          ? `[${s.index}]`
          : '[*]',
    )
    .join('');
}

/** An OR tree of equalities on one path: the keys of INDEX_SCAN_MULTI. */
function equalityUnion(
  condition: Condition,
  resolver: PathResolver,
  source: number,
): { path: string; values: Value[] } | undefined {
  if (condition.kind === 'or') {
    const values: Value[] = [];
    let path: string | undefined;
    for (const part of condition.conditions) {
      const union = equalityUnion(part, resolver, source);
      if (!union || (path !== undefined && union.path !== path)) return undefined;
      path = union.path;
      values.push(...union.values);
    }
    return path === undefined ? undefined : { path, values };
  }
  const c = comparison(condition, resolver, source);
  return c && c.op === '=' ? { path: c.path, values: [c.value] } : undefined;
}

/**
 * True when an index on `indexPath` can give candidates for a predicate on `queryPath`:
 * the same path, or a multikey path whose `[*]` stands where the query names a position
 * (the index returns a superset; the filter keeps exact rows).
 */
function covers(indexPath: string, queryPath: string): boolean {
  if (indexPath === queryPath) return true;
  if (!indexPath.includes('[*]')) return false;
  return queryPath.replace(/\[\d+\]/g, '[*]') === indexPath;
}

function sameValue(a: Value, b: Value): boolean {
  if (a.kind === 'param' && b.kind === 'param') return a.index === b.index;
  if (a.kind === 'literal' && b.kind === 'literal') {
    return JSON.stringify(a.value) === JSON.stringify(b.value);
  }
  return false;
}

/**
 * Picks the access path for the conjuncts of WHERE on one source: a composite index with
 * equality on every path, then equality through a single-path index (unique first), then an
 * OR of equalities on one indexed path, then a range, else a collection scan. The whole
 * WHERE is always evaluated on the candidates, so the choice affects speed only.
 */
export function chooseAccess(
  where: Condition | undefined,
  collection: CollectionView,
  resolver: PathResolver,
  source = 0,
): Access {
  const parts = conjuncts(where);
  const ready = collection.indexes.filter((i) => i.state === 'ready');
  const equalities: Candidate[] = [];
  const ranges: Candidate[] = [];
  const unions: Array<{ path: string; values: Value[] }> = [];
  for (const part of parts) {
    const c = comparison(part, resolver, source);
    if (c?.op === '=') equalities.push(c);
    else if (c) ranges.push(c);
    else if (part.kind === 'or') {
      const union = equalityUnion(part, resolver, source);
      if (union) unions.push(union);
    }
  }
  const composite = ready
    .filter((i) => i.paths.length > 1)
    .sort((a, b) => b.paths.length - a.paths.length)
    .find((i) => i.paths.every((p) => equalities.some((e) => covers(p, e.path))));
  if (composite) {
    const tuple = composite.paths.map(
      (p) => (equalities.find((e) => covers(p, e.path)) as Candidate).value,
    );
    return { kind: 'index', label: 'INDEX_SCAN_COMPOSITE', index: composite, keys: [tuple] };
  }
  const single = ready.filter((i) => i.paths.length === 1);
  const byPreference = [...single].sort((a, b) => Number(b.unique) - Number(a.unique));
  for (const index of byPreference) {
    const eq = equalities.find((e) => covers(index.paths[0] as string, e.path));
    if (eq) return { kind: 'index', label: 'INDEX_SCAN', index, keys: [[eq.value]] };
  }
  for (const union of unions) {
    const index = byPreference.find((i) => covers(i.paths[0] as string, union.path));
    if (!index) continue;
    const keys: Value[] = [];
    for (const v of union.values) if (!keys.some((k) => sameValue(k, v))) keys.push(v);
    const label = keys.length === 1 ? 'INDEX_SCAN' : 'INDEX_SCAN_MULTI';
    return { kind: 'index', label, index, keys: keys.map((k) => [k]) };
  }
  for (const index of byPreference) {
    const covered = ranges.filter((r) => covers(index.paths[0] as string, r.path));
    if (covered.length === 0) continue;
    // Both bounds must come from one path: on a multikey index `tags[0] < x AND tags[1] > y`
    // are two different elements, and one key range over both would miss rows.
    const first = (covered[0] as Candidate).path;
    const onPath = covered.filter((r) => r.path === first);
    const lower = onPath.find((r) => r.op === '>' || r.op === '>=');
    const upper = onPath.find((r) => r.op === '<' || r.op === '<=');
    return {
      kind: 'range',
      index,
      lower: lower && { value: lower.value, inclusive: lower.op === '>=' },
      upper: upper && { value: upper.value, inclusive: upper.op === '<=' },
    };
  }
  return { kind: 'scan' };
}

/** Every path a condition mentions, in order. */
export function conditionPaths(condition: Condition | undefined): PathRef[] {
  if (!condition) return [];
  switch (condition.kind) {
    case 'compare':
      return [condition.left, condition.right].filter((o): o is PathRef => o.kind === 'path');
    case 'like':
    case 'isNull':
      return [condition.path];
    case 'and':
    case 'or':
      return condition.conditions.flatMap(conditionPaths);
    case 'not':
      return conditionPaths(condition.condition);
    default:
      return assertNever(condition);
  }
}

/** True when the SELECT aggregates (aggregate items or GROUP BY). */
export function isAggregate(statement: SelectStatement): boolean {
  return (
    statement.groupBy.length > 0 ||
    (statement.items !== '*' && statement.items.some((i) => i.kind === 'aggregate'))
  );
}

/** Checks the select list against GROUP BY: plain columns must be grouping columns. */
export function checkSelectList(statement: SelectStatement): void {
  if (!isAggregate(statement) || statement.items === '*') {
    if (statement.items === '*' && statement.groupBy.length > 0) {
      throw new DbError(
        'ERR_SQL_INVALID',
        'SELECT * cannot be combined with GROUP BY; list the grouping columns and aggregates',
      );
    }
    return;
  }
  const grouped = new Set(statement.groupBy.map((g) => g.text));
  for (const item of statement.items as SelectItem[]) {
    if (item.kind === 'column' && !grouped.has(item.path.text)) {
      throw new DbError(
        'ERR_SQL_INVALID',
        `column '${item.path.text}' must appear in GROUP BY or inside an aggregate such as COUNT(${item.path.text})`,
        { line: item.path.at.line, column: item.path.at.column },
      );
    }
  }
}

/** True when LIMIT/OFFSET can stop the scan early (rule 5 and DESIGN §4). */
export function limitPushesDown(statement: SelectStatement): boolean {
  return (
    statement.orderBy.length === 0 &&
    !statement.distinct &&
    statement.joins.length === 0 &&
    !isAggregate(statement)
  );
}

/** The plan string of a SELECT: access path plus the HASH_JOIN, AGGREGATE, DISTINCT suffixes. */
export function selectPlanString(
  statement: SelectStatement,
  access: Access,
  joins: string[],
): string {
  let plan = accessLabel(access);
  for (const name of joins) plan += ` + HASH_JOIN(${name})`;
  if (isAggregate(statement)) plan += ' + AGGREGATE';
  if (statement.distinct) plan += ' + DISTINCT';
  return plan;
}

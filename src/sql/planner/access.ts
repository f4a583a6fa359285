/**
 * Index choice, the one rule every query path uses (SQL, UPDATE and DELETE, the embedded
 * finds, REST by-key lookups): a composite index with equality on every path, then equality
 * through a single-path index (unique first), then an OR of equalities on one indexed path,
 * then a range, else a collection scan. The whole condition is evaluated on the candidates
 * (unless the index read proves it, `executor/proven.ts`), so the choice affects speed only.
 * Pure.
 */

import type { JsonPath } from '../../util/index.js';
import type { CompareOp, Condition, PathRef, RangeOp, Value } from '../ast/index.js';
import type { CollectionView, IndexView, KeyPart } from './plan.js';
import type { PathResolver } from './resolve.js';

/** The access path chosen, without the row-building fields of its plan node. */
export type AccessChoice =
  | { kind: 'scan' }
  | {
      kind: 'indexLookup';
      label: 'INDEX_SCAN' | 'INDEX_SCAN_MULTI' | 'INDEX_SCAN_COMPOSITE';
      index: IndexView;
      keys: KeyPart[][];
    }
  | { kind: 'indexRange'; index: IndexView; bounds: Array<{ op: RangeOp; value: Value }> };

/** A conjunct normalised to `path op value` on the source being planned. */
interface Candidate {
  path: string;
  op: CompareOp;
  key: KeyPart;
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

/** The canonical text of a path: what index definitions hold. */
export function canonicalText(path: JsonPath): string {
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

function onSource(ref: PathRef, resolver: PathResolver, source: number): string | undefined {
  const resolved = resolver.resolve(ref);
  return resolved.source === source ? canonicalText(resolved.path) : undefined;
}

/**
 * The index candidates of one condition: a comparison of a path with a value (never `!=`,
 * never with a null or JSON literal: nothing for an index to look up), a find's `match`
 * (any value: null looks up null entries, an array or object finds nothing), or the bounds of
 * a find's `within`.
 */
function candidatesOf(condition: Condition, resolver: PathResolver, source: number): Candidate[] {
  if (condition.kind === 'match') {
    const path = onSource(condition.path, resolver, source);
    return path === undefined
      ? []
      : [{ path, op: '=', key: { value: condition.value, nullMatches: true } }];
  }
  if (condition.kind === 'within') {
    const path = onSource(condition.path, resolver, source);
    if (path === undefined) return [];
    return condition.bounds.map((b) => ({
      path,
      op: b.op,
      key: { value: b.value, nullMatches: false },
    }));
  }
  if (condition.kind !== 'compare' || condition.op === '!=') return [];
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
    return [];
  }
  if (value.kind === 'literal' && (value.value === null || typeof value.value === 'object')) {
    return [];
  }
  const path = onSource(pathRef, resolver, source);
  return path === undefined ? [] : [{ path, op, key: { value, nullMatches: false } }];
}

/** An OR tree of equalities on one path: the keys of INDEX_SCAN_MULTI. */
function equalityUnion(
  condition: Condition,
  resolver: PathResolver,
  source: number,
): { path: string; keys: KeyPart[] } | undefined {
  if (condition.kind === 'or') {
    const keys: KeyPart[] = [];
    let path: string | undefined;
    for (const part of condition.conditions) {
      const union = equalityUnion(part, resolver, source);
      if (!union || (path !== undefined && union.path !== path)) return undefined;
      path = union.path;
      for (const key of union.keys) keys.push(key);
    }
    return path === undefined ? undefined : { path, keys };
  }
  const found = candidatesOf(condition, resolver, source);
  const only = found.length === 1 ? found[0] : undefined;
  return only?.op === '=' ? { path: only.path, keys: [only.key] } : undefined;
}

/**
 * True when a null key can be null for some execution: a find's null, or its `?`.
 * SQL equality keys never look null up.
 */
function mayLookUpNull(key: KeyPart): boolean {
  if (!key.nullMatches) return false;
  return key.value.kind === 'param' || key.value.value === null;
}

/**
 * True when an index on `indexPath` can give candidates for a key on `queryPath`: the same
 * path, or a multikey path whose `[*]` stands where the query names a position (the index
 * returns a superset; the filter keeps exact rows). A null key needs the same path: an index
 * over `[*]` does not list a document whose array is missing, though its `a[0]` IS NULL.
 */
function covers(indexPath: string, queryPath: string, key: KeyPart): boolean {
  if (indexPath === queryPath) return true;
  if (!indexPath.includes('[*]') || mayLookUpNull(key)) return false;
  return queryPath.replace(/\[\d+\]/g, '[*]') === indexPath;
}

/**
 * What makes two keys one lookup: the same literal, or the same `?` (two placeholders stay
 * two keys whatever they are bound to). Keyed, so a list of n keys is deduplicated in n steps.
 */
function keyIdentity(key: KeyPart): string {
  const { value } = key;
  const which = value.kind === 'param' ? `?${value.index}` : JSON.stringify(value.value);
  return `${key.nullMatches ? 'n' : 's'}${which}`;
}

/** Picks the access path for the conjuncts of `where` on one source (see the file comment). */
export function chooseAccess(
  where: Condition | undefined,
  collection: CollectionView,
  resolver: PathResolver,
  source = 0,
): AccessChoice {
  const ready = collection.indexes.filter((i) => i.state === 'ready');
  if (ready.length === 0) return { kind: 'scan' };
  const equalities: Candidate[] = [];
  const ranges: Candidate[] = [];
  const unions: Array<{ path: string; keys: KeyPart[] }> = [];
  for (const part of conjuncts(where)) {
    const found = candidatesOf(part, resolver, source);
    for (const c of found) (c.op === '=' ? equalities : ranges).push(c);
    if (found.length === 0 && part.kind === 'or') {
      const union = equalityUnion(part, resolver, source);
      if (union) unions.push(union);
    }
  }
  const coveredBy = (indexPath: string) => equalities.find((e) => covers(indexPath, e.path, e.key));
  const composite = ready
    .filter((i) => i.paths.length > 1)
    .sort((a, b) => b.paths.length - a.paths.length)
    .find((i) => i.paths.every((p) => coveredBy(p) !== undefined));
  if (composite) {
    const tuple = composite.paths.map((p) => (coveredBy(p) as Candidate).key);
    return { kind: 'indexLookup', label: 'INDEX_SCAN_COMPOSITE', index: composite, keys: [tuple] };
  }
  const single = ready.filter((i) => i.paths.length === 1);
  const byPreference = [...single].sort((a, b) => Number(b.unique) - Number(a.unique));
  for (const index of byPreference) {
    const eq = coveredBy(index.paths[0] as string);
    if (eq) return { kind: 'indexLookup', label: 'INDEX_SCAN', index, keys: [[eq.key]] };
  }
  for (const union of unions) {
    const index = byPreference.find((i) =>
      union.keys.every((k) => covers(i.paths[0] as string, union.path, k)),
    );
    if (!index) continue;
    const keys = [...new Map(union.keys.map((k) => [keyIdentity(k), k])).values()];
    const label = keys.length === 1 ? 'INDEX_SCAN' : 'INDEX_SCAN_MULTI';
    return { kind: 'indexLookup', label, index, keys: keys.map((k) => [k]) };
  }
  for (const index of byPreference) {
    const covered = ranges.filter((r) => covers(index.paths[0] as string, r.path, r.key));
    if (covered.length === 0) continue;
    // Both bounds must come from one path: on a multikey index `tags[0] < x AND tags[1] > y`
    // are two different elements, and one key range over both would miss rows.
    const first = (covered[0] as Candidate).path;
    const onPath = covered.filter((r) => r.path === first);
    const lower = onPath.find((r) => r.op === '>' || r.op === '>=');
    const upper = onPath.find((r) => r.op === '<' || r.op === '<=');
    const bounds = [lower, upper]
      .filter((b): b is Candidate => b !== undefined)
      .map((b) => ({ op: b.op as RangeOp, value: b.key.value }));
    return { kind: 'indexRange', index, bounds };
  }
  return { kind: 'scan' };
}

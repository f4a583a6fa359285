/**
 * The WHERE comparison of DESIGN §4, in one place for scans, index rechecks, joins and router
 * merges: SQL three-valued logic (a null or missing operand makes a comparison unknown),
 * type families (values of different types are never equal and never ordered), LIKE and
 * ILIKE, and the find predicates of the embedded API and REST by-key lookups. Pure.
 */

import { compareValues, isScalar, typeFamily } from '../../util/index.js';
import type { CompareOp, RangeOp } from '../ast/index.js';

/** true, false, or null for unknown. */
export type Truth = boolean | null;

/** `a op b` under three-valued logic and type families. */
export function compare(op: CompareOp, a: unknown, b: unknown): Truth {
  if (a === undefined || a === null || b === undefined || b === null) return null;
  const sameType = typeFamily(a) === typeFamily(b);
  if (op === '=') return sameType && compareValues(a, b) === 0;
  if (op === '!=') return !sameType || compareValues(a, b) !== 0;
  // Ordering exists only between scalars of one type.
  if (!sameType || typeFamily(a) >= 5) return false;
  const c = compareValues(a, b);
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

const likeCache = new Map<string, RegExp>();
/** Compiled LIKE patterns kept at once; past it the cache starts over. */
const LIKE_CACHE_ENTRIES_MAX = 1000;

/** The regular expression of a LIKE pattern: `%` any run, `_` one character. */
export function likeRegex(pattern: string, caseInsensitive: boolean): RegExp {
  const key = `${caseInsensitive ? 'i' : 's'}${pattern}`;
  let regex = likeCache.get(key);
  if (!regex) {
    let source = '';
    for (const ch of pattern) {
      if (ch === '%') source += '.*';
      else if (ch === '_') source += '.';
      else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
    regex = new RegExp(`^${source}$`, caseInsensitive ? 'isu' : 'su');
    if (likeCache.size > LIKE_CACHE_ENTRIES_MAX) likeCache.clear();
    likeCache.set(key, regex);
  }
  return regex;
}

/**
 * `value [NOT] [I]LIKE pattern`: unknown when either is null or missing. A non-string never
 * matches, so `x NOT LIKE p` is true for it, as `NOT (x LIKE p)` is.
 */
export function like(
  value: unknown,
  pattern: unknown,
  caseInsensitive: boolean,
  negated: boolean,
): Truth {
  if (value === undefined || value === null || pattern === null || pattern === undefined) {
    return null;
  }
  const match =
    typeof value === 'string' &&
    typeof pattern === 'string' &&
    likeRegex(pattern, caseInsensitive).test(value);
  return negated ? !match : match;
}

/** `value IS [NOT] NULL`: true for null and missing; never unknown. */
export function isNull(value: unknown, negated: boolean): boolean {
  const missing = value === undefined || value === null;
  return negated ? !missing : missing;
}

/**
 * The find equality (embedded finds, REST by-key): some candidate is a scalar equal to
 * `value`, where null (or undefined) matches null, so a missing single value (given as null)
 * matches too. An array or object value matches nothing: indexes list scalars only.
 */
export function matchesValue(candidates: readonly unknown[], value: unknown): boolean {
  const target = value === undefined ? null : value;
  if (!isScalar(target)) return false;
  for (const c of candidates) {
    if (isScalar(c) && compareValues(c, target) === 0) return true;
  }
  return false;
}

/** One bound of a find range: the candidate must be `op` the value. */
export interface RangeBound {
  op: RangeOp;
  value: unknown;
}

function withinAll(candidate: unknown, bounds: readonly RangeBound[]): boolean {
  if (candidate === null || !isScalar(candidate)) return false;
  for (const bound of bounds) {
    if (bound.value === undefined) continue;
    if (typeFamily(bound.value) !== typeFamily(candidate)) return false;
    const c = compareValues(candidate, bound.value);
    const holds =
      bound.op === '<' ? c < 0 : bound.op === '<=' ? c <= 0 : bound.op === '>' ? c > 0 : c >= 0;
    if (!holds) return false;
  }
  return true;
}

/**
 * The find range: some one candidate satisfies every bound, each bound a value of the
 * candidate's type. Null never lies in a range; an array or object bound admits nothing.
 */
export function withinBounds(
  candidates: readonly unknown[],
  bounds: readonly RangeBound[],
): boolean {
  return candidates.some((c) => withinAll(c, bounds));
}

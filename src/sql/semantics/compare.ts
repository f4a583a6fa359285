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

/** A compiled LIKE pattern: true when the whole string matches. */
type LikeMatcher = (value: string) => boolean;

const likeCache = new Map<string, LikeMatcher>();
/** Compiled LIKE patterns kept at once; past it the cache starts over. */
const LIKE_CACHE_ENTRIES_MAX = 1000;

/** A run of a LIKE pattern between `%`s as a regular expression source: `_` is one character. */
function runSource(run: string): string {
  let source = '';
  for (const ch of run) source += ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return source;
}

/**
 * Compiles a LIKE pattern: `%` any run, `_` one character (a code point). Not one regular
 * expression: `^.*a.*a.*a.*b$` backtracks through every way to place its runs, so a pattern
 * of a few `%a` against a 200-character string ran for minutes and held the node. Instead the
 * runs between `%`s are found in order, each at its leftmost place after the one before (the
 * first anchored at the start, the last at the end), which is the classic wildcard match:
 * taking each run as early as possible leaves the most room for the rest. Each run is a
 * regular expression of literals and `.` only, so finding one never backtracks.
 */
function compileLike(pattern: string, caseInsensitive: boolean): LikeMatcher {
  const flags = caseInsensitive ? 'isu' : 'su';
  const runs = pattern.split('%').map(runSource);
  if (runs.length === 1) {
    const whole = new RegExp(`^${runs[0]}$`, flags);
    return (value) => whole.test(value);
  }
  const first = runs[0] === '' ? undefined : new RegExp(runs[0] as string, `${flags}y`);
  const middle = runs
    .slice(1, -1)
    .filter((run) => run !== '')
    .map((run) => new RegExp(run, `${flags}g`));
  const lastRun = runs[runs.length - 1] as string;
  const last = lastRun === '' ? undefined : new RegExp(`${lastRun}$`, `${flags}g`);
  return (value) => {
    let at = 0;
    if (first) {
      first.lastIndex = 0;
      if (!first.test(value)) return false;
      at = first.lastIndex;
    }
    for (const run of middle) {
      run.lastIndex = at;
      if (!run.test(value)) return false;
      at = run.lastIndex;
    }
    if (!last) return true;
    last.lastIndex = at;
    return last.test(value);
  };
}

/** The compiled form of a LIKE pattern, cached. */
export function likeMatcher(pattern: string, caseInsensitive: boolean): LikeMatcher {
  const key = `${caseInsensitive ? 'i' : 's'}${pattern}`;
  let matcher = likeCache.get(key);
  if (!matcher) {
    matcher = compileLike(pattern, caseInsensitive);
    if (likeCache.size > LIKE_CACHE_ENTRIES_MAX) likeCache.clear();
    likeCache.set(key, matcher);
  }
  return matcher;
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
    likeMatcher(pattern, caseInsensitive)(value);
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

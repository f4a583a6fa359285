/**
 * Evaluates WHERE conditions on rows with SQL three-valued logic (DESIGN §4): a comparison
 * with a null or missing operand is unknown (null here); values of different types are never
 * equal and never ordered; `IS NULL` is true for null and missing; LIKE and ILIKE take `%`
 * and `_`. WHERE keeps a row only when its condition is true.
 */

import { DbError } from '../../errors/index.js';
import { compareValues, typeRank, valueAt } from '../../util/index.js';
import { assertNever, type Condition, type Operand, type Value } from '../ast/index.js';
import type { PathResolver } from '../planner/index.js';

/** Documents of one result row: index 0 is the FROM collection, then each JOIN. */
export type Row = readonly Record<string, unknown>[];

/** true, false, or null for unknown. */
export type Truth = boolean | null;

/** Resolves a Value against the statement's parameters. */
export function resolveValue(value: Value, params: readonly unknown[]): unknown {
  if (value.kind === 'literal') return value.value;
  if (value.index >= params.length) {
    throw new DbError(
      'ERR_SQL_PARAM',
      `placeholder ${value.index + 1} at ${value.at.line}:${value.at.column} has no value; pass ${value.index + 1} or more parameters`,
    );
  }
  return params[value.index];
}

function family(value: unknown): number {
  const rank = typeRank(value);
  return rank === 1 || rank === 2 ? 1 : rank;
}

function compare(op: string, a: unknown, b: unknown): Truth {
  if (a === undefined || a === null || b === undefined || b === null) return null;
  const sameType = family(a) === family(b);
  if (op === '=') return sameType && compareValues(a, b) === 0;
  if (op === '!=') return !sameType || compareValues(a, b) !== 0;
  // Ordering exists only between scalars of one type.
  if (!sameType || family(a) >= 5) return false;
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
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(key, regex);
  }
  return regex;
}

/** Evaluates a condition on a row. */
export function evaluate(
  condition: Condition,
  row: Row,
  resolver: PathResolver,
  params: readonly unknown[],
): Truth {
  const operand = (o: Operand): unknown => {
    if (o.kind !== 'path') return resolveValue(o, params);
    const resolved = resolver.resolve(o);
    return valueAt(row[resolved.source], resolved.path);
  };
  switch (condition.kind) {
    case 'compare':
      return compare(condition.op, operand(condition.left), operand(condition.right));
    case 'like': {
      const value = operand(condition.path);
      const pattern = resolveValue(condition.pattern, params);
      if (value === undefined || value === null || pattern === null || pattern === undefined) {
        return null;
      }
      // A non-string never matches, so `x NOT LIKE p` is true for it, as NOT (x LIKE p) is.
      const match =
        typeof value === 'string' &&
        typeof pattern === 'string' &&
        likeRegex(pattern, condition.caseInsensitive).test(value);
      return condition.negated ? !match : match;
    }
    case 'isNull': {
      const value = operand(condition.path);
      const isNull = value === undefined || value === null;
      return condition.negated ? !isNull : isNull;
    }
    case 'and': {
      // false wins, then unknown; true only when every part is true.
      let unknown = false;
      for (const part of condition.conditions) {
        const truth = evaluate(part, row, resolver, params);
        if (truth === false) return false;
        if (truth === null) unknown = true;
      }
      return unknown ? null : true;
    }
    case 'or': {
      let unknown = false;
      for (const part of condition.conditions) {
        const truth = evaluate(part, row, resolver, params);
        if (truth === true) return true;
        if (truth === null) unknown = true;
      }
      return unknown ? null : false;
    }
    case 'not': {
      const inner = evaluate(condition.condition, row, resolver, params);
      return inner === null ? null : !inner;
    }
    default:
      return assertNever(condition);
  }
}

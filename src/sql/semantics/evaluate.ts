/**
 * Evaluates a WHERE or ON condition on one row with the comparisons of `compare.ts`: AND is
 * false when any part is false, else unknown when any is unknown; OR the mirror; NOT keeps
 * unknown. WHERE keeps a row only when its condition is true. Pure: the row is read through
 * `RowValues`, which the executor implements over its documents.
 */

import { dbError } from '../../errors/index.js';
import { assertNever, type Condition, type Operand, type Value } from '../ast/index.js';
import { compare, isNull, like, matchesValue, type Truth, withinBounds } from './compare.js';

/** How a condition reads the row it is evaluated on. */
export interface RowValues {
  /** The value at a path (undefined when missing). */
  value(path: Operand & { kind: 'path' }): unknown;
  /**
   * The values a find tests at a path: every value a `[*]` path reaches, else the one value
   * (a missing one as null).
   */
  candidates(path: Operand & { kind: 'path' }): unknown[];
}

/** The value of a literal or of a `?` placeholder among the statement's parameters. */
export function resolveValue(value: Value, params: readonly unknown[]): unknown {
  if (value.kind === 'literal') return value.value;
  if (value.index >= params.length) {
    throw dbError('ERR_SQL_PARAM', 'noValue', {
      position: value.index + 1,
      line: value.at.line,
      column: value.at.column,
    });
  }
  return params[value.index];
}

/** Evaluates a condition on a row. */
export function evaluate(condition: Condition, row: RowValues, params: readonly unknown[]): Truth {
  const operand = (o: Operand): unknown =>
    o.kind === 'path' ? row.value(o) : resolveValue(o, params);
  switch (condition.kind) {
    case 'compare':
      return compare(condition.op, operand(condition.left), operand(condition.right));
    case 'like':
      return like(
        row.value(condition.path),
        resolveValue(condition.pattern, params),
        condition.caseInsensitive,
        condition.negated,
      );
    case 'isNull':
      return isNull(row.value(condition.path), condition.negated);
    case 'and': {
      let unknown = false;
      for (const part of condition.conditions) {
        const truth = evaluate(part, row, params);
        if (truth === false) return false;
        if (truth === null) unknown = true;
      }
      return unknown ? null : true;
    }
    case 'or': {
      let unknown = false;
      for (const part of condition.conditions) {
        const truth = evaluate(part, row, params);
        if (truth === true) return true;
        if (truth === null) unknown = true;
      }
      return unknown ? null : false;
    }
    case 'not': {
      const inner = evaluate(condition.condition, row, params);
      return inner === null ? null : !inner;
    }
    case 'match':
      return matchesValue(row.candidates(condition.path), resolveValue(condition.value, params));
    case 'within':
      return withinBounds(
        row.candidates(condition.path),
        condition.bounds.map((b) => ({ op: b.op, value: resolveValue(b.value, params) })),
      );
    default:
      return assertNever(condition);
  }
}

/**
 * Evaluates a WHERE or ON condition on one row with the comparisons of `compare.ts`: AND is
 * false when any part is false, else unknown when any is unknown; OR the mirror; NOT keeps
 * unknown. WHERE keeps a row only when its condition is true. Pure: the row is read through
 * `RowValues`, which the executor implements over its documents.
 */

import { assertNever, type Condition, type Operand } from '../ast/index.js';
import { compare, isNull, like, matchesValue, type Truth, withinBounds } from './compare.js';
import { memberTruth, membershipOf } from './membership.js';
import { resolveValue } from './values.js';

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

function operand(o: Operand, row: RowValues, params: readonly unknown[]): unknown {
  return o.kind === 'path' ? row.value(o) : resolveValue(o, params);
}

/** Evaluates a condition on a row. */
export function evaluate(condition: Condition, row: RowValues, params: readonly unknown[]): Truth {
  switch (condition.kind) {
    case 'compare':
      return compare(
        condition.op,
        operand(condition.left, row, params),
        operand(condition.right, row, params),
      );
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
      const member = membershipOf(condition, params);
      if (member) return memberTruth(member, row.value(member.path));
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

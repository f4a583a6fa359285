/**
 * The values of a statement's literals and `?` placeholders. Pure.
 */

import { dbError } from '../../errors/index.js';
import type { Value } from '../ast/index.js';

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

/**
 * OFFSET and LIMIT. An early limit stops pulling its input after OFFSET + LIMIT rows (spec
 * rule 5), so a scan below it stops too; otherwise the whole input is read first.
 */

import { dbError } from '../../errors/index.js';
import type { Value } from '../ast/index.js';
import type { LimitNode } from '../planner/index.js';
import { offsetLimit, resolveValue } from '../semantics/index.js';
import type { ExecContext, Row } from './context.js';

/** A bad count as the message shows it: a scalar as JSON, an array or object by its kind. */
function shownCount(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value !== null && typeof value === 'object') return 'an object';
  return JSON.stringify(value) ?? String(value);
}

/** The number a LIMIT (default: no limit) or OFFSET (default 0) stands for. */
export function limitOf(
  value: Value | undefined,
  params: readonly unknown[],
  clause: 'LIMIT' | 'OFFSET',
): number {
  if (value === undefined) return clause === 'LIMIT' ? Number.POSITIVE_INFINITY : 0;
  const n = resolveValue(value, params);
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw dbError('ERR_SQL_PARAM', 'notCount', { clause, value: shownCount(n) });
  }
  return n;
}

/**
 * The rows of a limit node over the rows `input` gives when told how many will be pulled
 * (OFFSET + LIMIT: a sort below keeps only those). Early or not (whether the scan below may
 * stop: the plan's business), rows are pulled only up to OFFSET + LIMIT: a sort or aggregate
 * below has read its whole input already, and a JOIN or DISTINCT yields in order, so the same
 * rows come, without the whole input held first (a JOIN … LIMIT 10 of 9M pairings held them
 * all for 5 s).
 */
export function limitRows(
  node: LimitNode,
  ctx: ExecContext,
  input: (pulled: number) => Iterable<Row>,
): Iterable<Row> {
  const limit = limitOf(node.limit, ctx.params, 'LIMIT');
  const offset = limitOf(node.offset, ctx.params, 'OFFSET');
  return offsetLimit(input(offset + limit), offset, limit);
}

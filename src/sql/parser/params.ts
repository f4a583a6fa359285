/**
 * The parameters a parsed statement takes: JSON values, as many as its `?` placeholders. One
 * check for every caller (a node's `db.query`, a router before it targets shards), so they
 * refuse alike.
 */

import { DbError } from '../../errors/index.js';
import type { Parsed } from './parser.js';

/** Throws ERR_SQL_PARAM naming what is wrong with `params` for `parsed`. */
export function checkParams(parsed: Parsed, params: readonly unknown[]): void {
  if (!Array.isArray(params)) {
    throw new DbError('ERR_SQL_PARAM', 'parameters must be an array of values');
  }
  params.forEach((value, i) => {
    const bad =
      value === undefined ||
      typeof value === 'function' ||
      typeof value === 'symbol' ||
      typeof value === 'bigint' ||
      (typeof value === 'number' && !Number.isFinite(value));
    if (bad) {
      throw new DbError(
        'ERR_SQL_PARAM',
        `parameter ${i + 1} is ${String(value)}; parameters are JSON values (finite numbers, strings, booleans, null, arrays, objects)`,
      );
    }
  });
  if (params.length !== parsed.paramCount) {
    throw new DbError(
      'ERR_SQL_PARAM',
      `the statement has ${parsed.paramCount} placeholder(s) but ${params.length} parameter(s) were given`,
    );
  }
}

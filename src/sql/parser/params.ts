/**
 * The parameters a parsed statement takes: JSON values, as many as its `?` placeholders. One
 * check for every caller (a node's `db.query`, a router before it targets shards), so they
 * refuse alike.
 */

import { dbError } from '../../errors/index.js';
import type { Parsed } from './parser.js';

/** Throws ERR_SQL_PARAM naming what is wrong with `params` for `parsed`. */
export function checkParams(parsed: Parsed, params: readonly unknown[]): void {
  if (!Array.isArray(params)) {
    throw dbError('ERR_SQL_PARAM', 'notArray');
  }
  // A loop, not forEach: this runs on every query, and a closure per call is garbage.
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    const bad =
      value === undefined ||
      typeof value === 'function' ||
      typeof value === 'symbol' ||
      typeof value === 'bigint' ||
      (typeof value === 'number' && !Number.isFinite(value));
    if (bad) {
      throw dbError('ERR_SQL_PARAM', 'notJsonValue', { position: i + 1, value: String(value) });
    }
  }
  if (params.length !== parsed.paramCount) {
    throw dbError('ERR_SQL_PARAM', 'countMismatch', {
      placeholders: parsed.paramCount,
      given: params.length,
    });
  }
}

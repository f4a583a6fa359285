/**
 * Errors every implementation of the REST surface (types/api.ts) throws alike, so a node, a
 * router and a client say the same words for the same case.
 */

import type { ErrorCode } from './catalogue.js';
import { DbError } from './db-error.js';

/** No document of `collection` has this `_id`. */
export function documentNotFound(collection: string, id: string): DbError {
  return new DbError('ERR_DOCUMENT_NOT_FOUND', `no document with _id ${id} in ${collection}`);
}

/**
 * An atomic bulk insert refused: the first failure's code, and every failure (`errors`, by
 * input position) in the details, with `ids` empty, as nothing was stored.
 */
export function atomicBulkRefused(
  errors: ReadonlyArray<{ index: number; error: string; code: string }>,
  total: number,
): DbError {
  return new DbError(
    (errors[0]?.code ?? 'ERR_BAD_ARGUMENT') as ErrorCode,
    `atomic bulk insert rejected ${errors.length} of ${total} documents; nothing was inserted`,
    { ids: [], errors },
  );
}

/** No document of `collection` has `field` equal to `value` (a by-key write). */
export function keyNotFound(collection: string, field: string, value: unknown): DbError {
  return new DbError(
    'ERR_DOCUMENT_NOT_FOUND',
    `no document in ${collection} has ${field} = ${value}`,
  );
}

/** Several documents have the key a by-key replace names: it must name one by its `_id`. */
export function ambiguousMatch(
  collection: string,
  field: string,
  value: unknown,
  matched: number,
): DbError {
  return new DbError(
    'ERR_AMBIGUOUS_MATCH',
    `${matched} documents in ${collection} have ${field} = ${value}; replace one by its _id instead`,
    { matched },
  );
}

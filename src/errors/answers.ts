/**
 * Errors every implementation of the REST surface (types/api.ts) throws alike and that need
 * more than filling a template: a code chosen from the failures, a list cut short.
 */

import type { ErrorCode } from './catalogue.js';
import { type DbError, dbError, relayedError } from './db-error.js';

/**
 * An atomic bulk insert refused: the first failure's code, and every failure (`errors`, by
 * input position) in the details, with `ids` empty, as nothing was stored.
 */
export function atomicBulkRefused(
  errors: ReadonlyArray<{ index: number; error: string; code: string }>,
  total: number,
): DbError {
  const code = (errors[0]?.code ?? 'ERR_BAD_ARGUMENT') as ErrorCode;
  const values = { failed: errors.length, total };
  return relayedError(code, 'atomicBulkRefused', values, { ids: [], errors });
}

/** How many known collection names the unknown-collection error lists. */
const KNOWN_SHOWN_MAX = 20;

/**
 * The unknown-collection error: names the collection, lists known names (first 20, then
 * "+N more"), and suggests the lowercase name when only the letter case differs.
 */
export function collectionNotFound(name: string, known: string[]): DbError {
  const folded = name.toLowerCase();
  const hint = folded !== name && known.includes(folded) ? `; did you mean '${folded}'?` : '';
  const details = { collection: name, known: known.slice(0, KNOWN_SHOWN_MAX) };
  if (known.length === 0)
    return dbError('ERR_COLLECTION_NOT_FOUND', 'noneYet', { name, hint }, details);
  const more = known.length > KNOWN_SHOWN_MAX ? ` +${known.length - KNOWN_SHOWN_MAX} more` : '';
  const shown = details.known.join(', ');
  return dbError('ERR_COLLECTION_NOT_FOUND', 'unknown', { name, shown, more, hint }, details);
}

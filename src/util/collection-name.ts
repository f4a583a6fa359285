/**
 * The one rule for collection names, shared by storage (the catalog) and cluster/ (cluster.json),
 * which may not import storage. Pure.
 */

import { dbError } from '../errors/index.js';
import { COLLECTION_NAME_CHARS_MAX } from './limits.js';

const COLLECTION_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Validates a collection name and folds it to the canonical lowercase form: 1 to
 * COLLECTION_NAME_CHARS_MAX characters, letters, digits, `.`, `_` and `-` only, and not
 * `__proto__`. Names compare without letter case, so `Orders` and `orders` are one collection.
 */
export function normalizeCollectionName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw dbError('ERR_COLLECTION_NAME_INVALID', 'empty');
  }
  if (name.length > COLLECTION_NAME_CHARS_MAX) {
    throw dbError('ERR_COLLECTION_NAME_INVALID', 'tooLong', {
      name: name.slice(0, 40),
      nameLength: name.length,
      limit: COLLECTION_NAME_CHARS_MAX,
    });
  }
  if (!COLLECTION_NAME.test(name)) {
    const bad = [...name].find((ch) => !/[A-Za-z0-9._-]/.test(ch));
    throw dbError('ERR_COLLECTION_NAME_INVALID', 'badCharacter', { name, bad }, { name });
  }
  const canonical = name.toLowerCase();
  // A name is a key of plain objects (a JOIN's rows, cluster.json's collections), where this
  // one would set the prototype instead.
  if (canonical === '__proto__') throw dbError('ERR_COLLECTION_NAME_INVALID', 'reserved', { name });
  return canonical;
}

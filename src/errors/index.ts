/** The error layer: the code catalogue and the DbError type. Imports nothing internal. */

export {
  type CatalogueEntry,
  ERROR_CATALOGUE,
  type ErrorCode,
  publicMessageOf,
  statusOf,
} from './catalogue.js';
export { DbError, type ErrorDetails, isDbError } from './db-error.js';
export { ambiguousMatch, atomicBulkRefused, documentNotFound, keyNotFound } from './answers.js';

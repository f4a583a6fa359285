/** The error layer: the code catalogue and the DbError type. Imports nothing internal. */

export { atomicBulkRefused, collectionNotFound } from './answers.js';
export { AssertionFailure, assert } from './assert.js';
export {
  type CatalogueEntry,
  ERROR_CATALOGUE,
  type ErrorCode,
  publicMessageOf,
  RELAYED_MESSAGES,
  statusOf,
} from './catalogue.js';
export { DbError, dbError, type ErrorDetails, isDbError, relayedError } from './db-error.js';

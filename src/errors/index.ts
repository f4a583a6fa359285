/** The error layer: the code catalogue and the DbError type. Imports nothing internal. */

export { ERROR_CATALOGUE, type ErrorCode, statusOf } from './catalogue.js';
export { DbError, type ErrorDetails, isDbError } from './db-error.js';

/**
 * What `docdb/client` exports in Node and in a browser alike: the options, the limits and
 * defaults, DbError and the shared shapes of src/types/ (the REST surface and its answers). The two entries add
 * their own `DocdbClient` and `connect` (ADR 0024).
 */

export { DbError, type ErrorCode, isDbError } from '../errors/index.js';
export type * from '../types/index.js';
export type { ChangesOptions } from './changes.js';
export { NDJSON_LINE_BYTES_MAX } from './ndjson.js';
/** Where a change feed's line says to resume (`since`): a router's cursor, else the seq. */
export { resumePoint } from '../util/resume-point.js';
export {
  CLIENT_CONNECTIONS_DEFAULT,
  CLIENT_RETRIES_DEFAULT,
  CLIENT_RETRY_PAUSE_MS,
  CLIENT_TIMEOUT_MS_DEFAULT,
  type ClientOptions,
  type ClientTls,
} from './transport.js';

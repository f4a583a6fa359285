/**
 * The typed HTTP client of docdb (`docdb/client`): `connect(baseUrl, options)` gives a
 * `DocdbClient` with one method per route of the node REST API, over one pooled keep-alive
 * connection pool. Errors are `DbError`s with the catalogue's codes. The cluster tools, the
 * router, the admin UI and the end-to-end tests reach nodes through it; it imports only
 * types/, errors/ and util/.
 */

export type { ChangesOptions } from './changes.js';
export { connect, DocdbClient } from './docdb-client.js';
export { NDJSON_LINE_BYTES_MAX } from './ndjson.js';
export {
  CLIENT_CONNECTIONS_DEFAULT,
  CLIENT_RETRIES_DEFAULT,
  CLIENT_RETRY_PAUSE_MS,
  CLIENT_TIMEOUT_MS_DEFAULT,
  type ClientOptions,
  type ClientTls,
} from './transport.js';
export { DbError, type ErrorCode, isDbError } from '../errors/index.js';
export type * from '../types/index.js';

/**
 * The typed HTTP client of docdb (`docdb/client`) in Node: `connect(baseUrl, options)` gives a
 * `DocdbClient` with one method per route of the node REST API, over one pooled keep-alive
 * connection pool. Errors are `DbError`s with the catalogue's codes. The cluster tools, the
 * router and the end-to-end tests reach nodes through it; it imports only types/, errors/ and
 * util/. A browser gets browser.ts, the same API over `fetch` (ADR 0024).
 */

export { connect, DocdbClient } from './node-client.js';
export * from './shared-exports.js';

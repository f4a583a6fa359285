/**
 * `docdb/client` in a browser (package.json's `browser` condition; the admin UI): the same API
 * as index.ts, `DocdbClient` over the page's `fetch` instead of undici (ADR 0024). Nothing it
 * reaches may need Node (a layer rule checks).
 */

export { connect, DocdbClient } from './browser-client.js';
export * from './shared-exports.js';

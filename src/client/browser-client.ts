/**
 * `DocdbClient` in a browser: the routes of DocdbClientBase over the page's `fetch`. It and
 * what it imports must run in a browser (ADR 0024); `backup`, a file as a stream, is Node's.
 */

import { DocdbClientBase } from './docdb-client.js';
import { FetchTransport } from './fetch-transport.js';
import type { ClientOptions } from './transport.js';

/** A typed client of one docdb node (or a router, which serves the same API), in a browser. */
export class DocdbClient extends DocdbClientBase {
  /** `baseUrl` is the node's address, e.g. `http://127.0.0.1:5000`; `tls` is not taken. */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    super(new FetchTransport(baseUrl, options));
  }
}

/** Connects a client to the node at `baseUrl`. */
export function connect(baseUrl: string, options?: ClientOptions): DocdbClient {
  return new DocdbClient(baseUrl, options);
}

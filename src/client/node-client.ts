/**
 * `DocdbClient` in Node: the routes of DocdbClientBase over undici's pooled connections, and
 * the one route that answers a file as a stream of Buffers (`backup`). Browsers get
 * browser-client.ts instead (ADR 0024).
 */

import { DocdbClientBase } from './docdb-client.js';
import type { Call, ClientOptions } from './transport.js';
import { UndiciTransport } from './undici-transport.js';

/** A typed client of one docdb node (or a router, which serves the same API). */
export class DocdbClient extends DocdbClientBase {
  declare protected readonly transport: UndiciTransport;

  /** `baseUrl` is the node's address, e.g. `http://127.0.0.1:5000`; see `ClientOptions`. */
  constructor(baseUrl: string, options: ClientOptions = {}) {
    super(new UndiciTransport(baseUrl, options));
  }

  /**
   * `POST /admin/backup`: a hot backup of the node as one stream (its manifest line, then
   * its files; docs/backup.md), read chunk by chunk; `seq` is the backup's last seq. `break`
   * ends the request. Never retried.
   */
  async backup(
    options: { withLog?: boolean; compact?: boolean } = {},
  ): Promise<{ seq: number; bytes: number; chunks: AsyncIterable<Buffer> }> {
    const query = new URLSearchParams();
    if (options.withLog) query.set('withLog', 'true');
    if (options.compact) query.set('compact', 'true');
    const search = query.size > 0 ? `?${query}` : '';
    const call: Call = { method: 'POST', path: `/admin/backup${search}`, accept: '*/*' };
    const answer = await this.transport.open(call);
    answer.settle();
    const transport = this.transport;
    async function* chunks(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of answer.body) yield chunk;
      } catch (error) {
        throw transport.failure(call, error);
      } finally {
        answer.body.destroy();
      }
    }
    return {
      seq: Number(answer.headers['x-docdb-backup-seq']),
      bytes: Number(answer.headers['content-length']),
      chunks: chunks(),
    };
  }
}

/** Connects a client to the node at `baseUrl`; the pool opens connections as requests need them. */
export function connect(baseUrl: string, options?: ClientOptions): DocdbClient {
  return new DocdbClient(baseUrl, options);
}

/**
 * The client's transport in a browser: the page's own `fetch`, whose connections, TLS and
 * cookies are the browser's. It must import nothing that needs Node: the admin UI bundles it
 * (ADR 0024).
 */

import { dbError } from '../errors/index.js';
import { type Call, type ClientOptions, errorOf, type OpenAnswer, Transport } from './transport.js';

/** A client's requests through `fetch`. */
export class FetchTransport extends Transport {
  /** Ends the streams still open when the client closes. */
  private readonly streams = new Set<AbortController>();

  constructor(baseUrl: string, options: ClientOptions = {}) {
    super(baseUrl, options);
    if (options.tls !== undefined) {
      throw dbError('ERR_BAD_ARGUMENT', 'clientTlsInBrowser');
    }
  }

  /**
   * Sends `call` and answers once the headers are in; until `settle()` the timeout aborts the
   * request. A stream read after that is bounded by the browser only.
   */
  async open(call: Call): Promise<OpenAnswer> {
    const url = this.urlOf(call);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const settle = () => clearTimeout(timer);
    let response: Response;
    try {
      response = await fetch(url, {
        method: call.method,
        headers: this.headersOf(call),
        ...(call.json !== undefined && { body: JSON.stringify(call.json) }),
        signal: deadline.signal,
        // Every answer is the node's state now, never one the browser kept. (Node's type of
        // the options lacks `cache`, which browsers honour.)
        ...({ cache: 'no-store' } as RequestInit),
      });
    } catch (error) {
      settle();
      throw deadline.signal.aborted ? this.timeout(call) : this.failure(call, error);
    }
    const headers = Object.fromEntries(response.headers.entries());
    if (!response.ok) {
      try {
        throw errorOf(response.status, await response.text(), headers, url);
      } catch (error) {
        throw deadline.signal.aborted ? this.timeout(call) : this.failure(call, error);
      } finally {
        settle();
      }
    }
    this.streams.add(deadline);
    const close = () => {
      this.streams.delete(deadline);
      deadline.abort();
    };
    return {
      status: response.status,
      headers,
      body: {
        [Symbol.asyncIterator]: () => chunksOf(response, close),
        destroy: close,
        text: async () => {
          try {
            return await response.text();
          } finally {
            this.streams.delete(deadline);
          }
        },
      },
      settle,
    };
  }

  /** Ends the streams still open; a browser's connections are its own to close. */
  async close(): Promise<void> {
    for (const stream of this.streams) stream.abort();
    this.streams.clear();
  }
}

/** The body's chunks as they arrive (a reader, since not every browser iterates streams). */
async function* chunksOf(response: Response, close: () => void): AsyncGenerator<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Release the stream too: a reader holds it until cancelled or read to its end.
    await reader.cancel().catch(() => {});
    close();
  }
}

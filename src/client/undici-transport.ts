/**
 * The client's transport in Node: a pooled keep-alive undici `Pool` to one node, with TLS and
 * the timeout of connect, headers and body. The only importer of undici (ADR 0012); the
 * browser build never loads it (ADR 0024).
 */

import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import { type DbError, dbError } from '../errors/index.js';
import {
  type Call,
  CLIENT_CONNECTIONS_DEFAULT,
  type ClientOptions,
  errorOf,
  type OpenAnswer,
  positive,
  Transport,
} from './transport.js';

/** An answer whose body is undici's: its chunks are Buffers. */
export interface UndiciAnswer extends OpenAnswer {
  body: Dispatcher.ResponseData['body'];
}

/** One client's pool to one node. */
export class UndiciTransport extends Transport {
  private readonly pool: Pool;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    super(baseUrl, options);
    this.pool = new Pool(this.origin, {
      connections: positive('connections', options.connections, CLIENT_CONNECTIONS_DEFAULT),
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connect: {
        timeout: this.timeoutMs,
        ...(options.tls?.ca !== undefined && { ca: options.tls.ca }),
        ...(options.tls?.rejectUnauthorized !== undefined && {
          rejectUnauthorized: options.tls.rejectUnauthorized,
        }),
      },
    });
  }

  /**
   * Sends `call` and answers once the headers are in. After `settle()` the body is bounded by
   * `timeoutMs` of silence between chunks (undici's bodyTimeout).
   */
  async open(call: Call): Promise<UndiciAnswer> {
    const url = this.urlOf(call);
    const deadline = new AbortController();
    // One timer for the whole call: before the headers it aborts the request; after them it
    // cuts the body off, which `failure` words as the timeout.
    let body: Dispatcher.ResponseData['body'] | undefined;
    const timer = setTimeout(() => {
      deadline.abort();
      body?.destroy(this.timeout(call));
    }, this.timeoutMs);
    const settle = () => clearTimeout(timer);
    let answer: Dispatcher.ResponseData;
    try {
      answer = await this.pool.request({
        method: call.method,
        path: this.prefix + call.path,
        headers: this.headersOf(call),
        ...(call.json !== undefined && { body: JSON.stringify(call.json) }),
        signal: deadline.signal,
      });
    } catch (error) {
      settle();
      throw deadline.signal.aborted ? this.timeout(call) : this.failure(call, error);
    }
    if (answer.statusCode >= 300) {
      try {
        const text = await answer.body.text();
        throw errorOf(answer.statusCode, text, answer.headers, url);
      } catch (error) {
        throw deadline.signal.aborted ? this.timeout(call) : this.failure(call, error);
      } finally {
        settle();
      }
    }
    body = answer.body;
    return {
      status: answer.statusCode,
      headers: answer.headers as OpenAnswer['headers'],
      body: answer.body,
      settle,
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** A closed pool's own errors say so; the rest as every transport words them. */
  override failure(call: Call, error: unknown): DbError {
    if (
      error instanceof undiciErrors.ClientDestroyedError ||
      error instanceof undiciErrors.ClientClosedError
    ) {
      return dbError('ERR_CLIENT_UNREACHABLE', 'closed', { url: this.urlOf(call) });
    }
    return super.failure(call, error);
  }
}

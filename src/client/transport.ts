/**
 * The client's one connection to a node: a pooled keep-alive undici `Pool`, the API key,
 * TLS, the timeout and the retries of idempotent requests, and the mapping of every failure
 * to a `DbError`. The only importer of undici (ADR 0012); it knows HTTP, not the routes.
 */

import { type Dispatcher, errors as undiciErrors, Pool } from 'undici';
import { DbError, type ErrorCode, isDbError } from '../errors/index.js';
import type { ErrorBody } from '../types/index.js';

/** How long a request may take, connect to last body byte, unless the options say. */
export const CLIENT_TIMEOUT_MS_DEFAULT = 30_000;

/** How often an idempotent request is tried again after a lost connection, by default. */
export const CLIENT_RETRIES_DEFAULT = 2;

/** Connections the pool keeps to one node, by default. */
export const CLIENT_CONNECTIONS_DEFAULT = 8;

/** The pause before the first retry; each further one doubles it. */
export const CLIENT_RETRY_PAUSE_MS = 50;

/** The TLS settings of a client: whom to trust. */
export interface ClientTls {
  /** Certificates to trust besides the system's, e.g. a node's self-signed certificate (PEM). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Default true; false accepts any certificate (tests only: it defeats TLS). */
  rejectUnauthorized?: boolean;
}

/** Options of `connect`. */
export interface ClientOptions {
  /** Sent as `Authorization: Bearer <apiKey>` on every request. */
  apiKey?: string | undefined;
  tls?: ClientTls;
  /** Connect, headers and body of one request together (default 30 s). */
  timeoutMs?: number;
  /** Tries again after a lost connection, for GET only (default 2). */
  retries?: number;
  /** Pool size: connections kept open to the node (default 8). */
  connections?: number;
}

/** One request as the client methods describe it. */
export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path and query string, already encoded. */
  path: string;
  /** Sent as JSON when given. */
  json?: unknown;
  headers?: Record<string, string>;
  accept?: string;
}

/** A successful answer whose body is still to read. */
export interface OpenAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer> & { destroy(error?: Error): void; text(): Promise<string> };
  /** Ends the answer's deadline: a stream is then bounded by its idle time only. */
  settle(): void;
}

/** Undici's codes of a request that ran out of time. */
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The transport of one client: one pool to one node. */
export class Transport {
  readonly baseUrl: string;
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly apiKey: string | undefined;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new DbError('ERR_BAD_ARGUMENT', `not a URL: '${baseUrl}' (give e.g. http://host:5000)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new DbError('ERR_BAD_ARGUMENT', `a node's URL is http: or https:, not '${baseUrl}'`);
    }
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, CLIENT_TIMEOUT_MS_DEFAULT);
    this.retries = atLeastZero('retries', options.retries, CLIENT_RETRIES_DEFAULT);
    this.apiKey = options.apiKey;
    this.pool = new Pool(url.origin, {
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

  /** Sends `call` and answers its JSON body; a non-2xx answer throws its DbError. */
  async json<T>(call: Call): Promise<{ body: T; headers: OpenAnswer['headers'] }> {
    const { body, headers } = await this.text(call);
    return { body: parseJson(body, this.urlOf(call)) as T, headers };
  }

  /** Sends `call` and answers its body as text; a non-2xx answer throws its DbError. */
  async text(call: Call): Promise<{ body: string; headers: OpenAnswer['headers'] }> {
    return this.withRetries(call, async () => {
      const answer = await this.open(call);
      try {
        // undici's own reader: far less per answer than an async iterator over the chunks.
        return { body: await answer.body.text(), headers: answer.headers };
      } catch (error) {
        throw this.failure(call, error);
      } finally {
        answer.settle();
      }
    });
  }

  /**
   * Sends `call` and answers once the headers are in, the body unread (for streams). Its
   * deadline covers connect and headers; `settle()` ends it, after which the body is
   * bounded by `timeoutMs` of silence between chunks. Not retried: the caller reads the
   * body, so a failure after the headers cannot be replayed here.
   */
  async open(call: Call): Promise<OpenAnswer> {
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

  /** Closes the pool: waits for requests in flight, then ends its connections. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  urlOf(call: Call): string {
    return `${this.baseUrl}${call.path}`;
  }

  private headersOf(call: Call): Record<string, string> {
    const headers: Record<string, string> = { accept: call.accept ?? 'application/json' };
    if (call.json !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    return { ...headers, ...call.headers };
  }

  /**
   * Runs `attempt` and tries a GET again after a lost connection, with a doubling pause. A
   * write is never tried again: the node may have stored it before the connection broke.
   * Timeouts are not retried either, so a call never takes much longer than `timeoutMs`.
   */
  private async withRetries<T>(call: Call, attempt: () => Promise<T>): Promise<T> {
    const tries = call.method === 'GET' ? this.retries + 1 : 1;
    for (let tried = 1; ; tried++) {
      try {
        return await attempt();
      } catch (error) {
        if (tried >= tries || !isDbError(error, 'ERR_CLIENT_UNREACHABLE')) throw error;
        await pause(CLIENT_RETRY_PAUSE_MS * 2 ** (tried - 1));
      }
    }
  }

  private timeout(call: Call): DbError {
    const write = call.method === 'GET' ? '' : ', and the write may have been stored';
    return new DbError(
      'ERR_CLIENT_TIMEOUT',
      `${this.urlOf(call)}: no complete answer within ${this.timeoutMs} ms (the client's timeoutMs); the node may be overloaded or stuck${write}`,
    );
  }

  /** Words a thrown error as a DbError: a DbError stays, a timeout or lost connection maps. */
  failure(call: Call, error: unknown): DbError {
    if (error instanceof DbError) return error;
    const url = this.urlOf(call);
    const code = (error as { code?: string }).code ?? '';
    if (TIMEOUT_CODES.has(code) || (error as Error).name === 'AbortError') {
      return this.timeout(call);
    }
    if (
      error instanceof undiciErrors.ClientDestroyedError ||
      error instanceof undiciErrors.ClientClosedError
    ) {
      return new DbError('ERR_CLIENT_UNREACHABLE', `${url}: this client is closed; connect again`);
    }
    const cause = (error as Error).message || code || String(error);
    return new DbError(
      'ERR_CLIENT_UNREACHABLE',
      `${url}: cannot reach the node, or lost the connection before the whole answer (${code && !cause.includes(code) ? `${code}: ` : ''}${cause}); check that it runs and the URL`,
      { cause: code || cause },
    );
  }
}

/** The DbError of a non-2xx answer: the body's code and message, the status received. */
function errorOf(
  status: number,
  text: string,
  headers: Record<string, unknown>,
  url: string,
): DbError {
  let body: Partial<ErrorBody> | undefined;
  try {
    body = JSON.parse(text) as Partial<ErrorBody>;
  } catch {
    body = undefined;
  }
  if (typeof body?.code !== 'string' || typeof body.error !== 'string') {
    return new DbError(
      'ERR_CLIENT_PROTOCOL',
      `${url}: answered ${status} without a docdb error body (${text.slice(0, 200) || 'empty'}); is this a docdb node?`,
      { httpStatus: status },
      status,
    );
  }
  const { error, code, ...details } = body as ErrorBody;
  const requestId = headers['x-request-id'];
  if (typeof requestId === 'string' && details.requestId === undefined) {
    details.requestId = requestId;
  }
  return new DbError(code as ErrorCode, error, details, status);
}

/** Parses a 2xx body; a body that is not JSON is an answer the API never gives. */
function parseJson(text: string, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DbError(
      'ERR_CLIENT_PROTOCOL',
      `${url}: the answer is not JSON (${text.slice(0, 200) || 'empty'}); is this a docdb node?`,
    );
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new DbError('ERR_BAD_ARGUMENT', `client option ${name} must be a positive integer`);
  }
  return value;
}

function atLeastZero(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new DbError('ERR_BAD_ARGUMENT', `client option ${name} must be an integer >= 0`);
  }
  return value;
}

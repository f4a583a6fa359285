/**
 * What the client's connection to a node does wherever it runs: the options and their
 * defaults, the API key, the timeout's wording, the retries of idempotent requests, and the
 * mapping of every failure to a `DbError`. How bytes travel is a subclass's: undici's pool in
 * Node (undici-transport.ts), `fetch` in a browser (fetch-transport.ts; ADR 0024). It imports
 * nothing that needs Node, and knows HTTP, not the routes.
 */

import { DbError, dbError, type ErrorCode, isDbError } from '../errors/index.js';
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
  /** Pool size: connections kept open to the node (default 8; a browser keeps its own). */
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
  body: AsyncIterable<Uint8Array> & { destroy(error?: Error): void; text(): Promise<string> };
  /** Ends the answer's deadline: a stream is then bounded by its idle time only. */
  settle(): void;
}

/**
 * The transport of one client to one node. A subclass sends the bytes (`open`) and closes its
 * connections; this class reads the options, words the errors and retries.
 */
export abstract class Transport {
  readonly baseUrl: string;
  /** The base URL's path, put before every call's path (a node behind a proxy's prefix). */
  protected readonly prefix: string;
  protected readonly origin: string;
  protected readonly timeoutMs: number;
  private readonly retries: number;
  private readonly apiKey: string | undefined;

  constructor(baseUrl: string, options: ClientOptions) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw dbError('ERR_BAD_ARGUMENT', 'notUrl', { baseUrl });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw dbError('ERR_BAD_ARGUMENT', 'notHttpUrl', { baseUrl });
    }
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, CLIENT_TIMEOUT_MS_DEFAULT);
    this.retries = atLeastZero('retries', options.retries, CLIENT_RETRIES_DEFAULT);
    this.apiKey = options.apiKey;
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
        return { body: await answer.body.text(), headers: answer.headers };
      } catch (error) {
        // V8's longest string: the answer arrived, and asking again would fetch it again.
        if (error instanceof RangeError) {
          throw dbError('ERR_CLIENT_PROTOCOL', 'answerTooLarge', { url: this.urlOf(call) });
        }
        throw this.failure(call, error);
      } finally {
        answer.settle();
      }
    });
  }

  /**
   * Sends `call` and answers once the headers are in, the body unread (for streams). Its
   * deadline covers connect and headers; `settle()` ends it. Not retried: the caller reads
   * the body, so a failure after the headers cannot be replayed here. A non-2xx answer
   * throws its DbError (`errorOf`).
   */
  abstract open(call: Call): Promise<OpenAnswer>;

  /** Closes the connections: waits for requests in flight, then ends them. */
  abstract close(): Promise<void>;

  urlOf(call: Call): string {
    return `${this.baseUrl}${call.path}`;
  }

  protected headersOf(call: Call): Record<string, string> {
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

  protected timeout(call: Call): DbError {
    const write = call.method === 'GET' ? '' : ', and the write may have been stored';
    return dbError('ERR_CLIENT_TIMEOUT', 'timeout', {
      url: this.urlOf(call),
      timeoutMs: this.timeoutMs,
      writeHint: write,
    });
  }

  /** Words a thrown error as a DbError: a DbError stays, a timeout or lost connection maps. */
  failure(call: Call, error: unknown): DbError {
    if (error instanceof DbError) return error;
    const code = (error as { code?: string }).code ?? '';
    if (TIMEOUT_CODES.has(code) || (error as Error).name === 'AbortError') {
      return this.timeout(call);
    }
    const cause = (error as Error).message || code || String(error);
    return dbError(
      'ERR_CLIENT_UNREACHABLE',
      'unreachable',
      {
        url: this.urlOf(call),
        codePrefix: code && !cause.includes(code) ? `${code}: ` : '',
        cause,
      },
      { cause: code || cause },
    );
  }
}

/** Undici's codes of a request that ran out of time. */
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The DbError of a non-2xx answer: the body's code and message, the status received. */
export function errorOf(
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
    const values = { url, status, text: text.slice(0, 200) || 'empty' };
    return dbError('ERR_CLIENT_PROTOCOL', 'notDocdbError', values, { httpStatus: status }, status);
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
    throw dbError('ERR_CLIENT_PROTOCOL', 'answerNotJson', {
      url,
      text: text.slice(0, 200) || 'empty',
    });
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'clientPositive', { name });
  }
  return value;
}

function atLeastZero(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'clientNonNegative', { name });
  }
  return value;
}

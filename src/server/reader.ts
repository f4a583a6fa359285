/**
 * A reader process of a node (issue 25): it takes the connections the first process hands
 * it (round robin, readers.ts), serves the document reads and the SELECTs of `POST /query`
 * that keep no selection (an index read, a whole collection) from a read-only view of the
 * node's data file, and passes every other request (writes, filtered scans,
 * `/query/prepare`, admin, health, metrics, the change feed, replication) to the node's
 * first process, the one writer, whose answer it relays as is. It never writes the file,
 * and it stops when the first process tells it to or goes away. readers.ts is the first
 * process's side.
 */

import * as http from 'node:http';
import { connect } from 'node:net';
import type * as net from 'node:net';
import { type Duplex, Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type Database, open } from '../engine/index.js';
import type { QueryOptions } from '../types/index.js';
import { apiApp, type BaseAppOptions, type HttpTimeouts } from './app.js';
import { bearerCheck } from './auth.js';
import { inConnectionOrder } from './pipelined.js';
import { Metrics, type MetricsSnapshot } from './metrics.js';

/** What the first process tells a reader when it starts it. */
export interface ReaderStart {
  kind: 'start';
  /** The node's data file. */
  file: string;
  nodeName: string;
  /** The unix socket where the first process answers passed requests. */
  passSocket: string;
  apiKey: string | undefined;
  corsOrigin: string | undefined;
  timeouts: HttpTimeouts;
  /** Milliseconds a SELECT may run (the node's query timeout); none when undefined. */
  queryTimeoutMs: number | undefined;
  /** The TLS options the first process serves with, files already read. */
  https: BaseAppOptions['https'];
  log: boolean;
}

/** Messages from the first process: start, serve, a connection, count, stop. */
export type ToReader =
  | ReaderStart
  /** Serve: the connections handed over follow. */
  | { kind: 'listen' }
  /**
   * A connection the first process accepted and hands over (readers.ts shareConnections),
   * with the bytes it read of it already (its first request line, over plain HTTP).
   */
  | { kind: 'connection'; head?: Uint8Array }
  | { kind: 'metrics'; id: number }
  | { kind: 'stop' };

/** Messages to the first process. */
export type FromReader =
  | { kind: 'ready' }
  | { kind: 'serving' }
  | { kind: 'metrics'; id: number; snapshot: MetricsSnapshot };

/**
 * The requests a reader answers itself: GET of a collection's page, of one document by
 * `_id`, of the documents by a field's value, and of the collections. Each reads the file
 * through a fresh read transaction (the engine refreshes its view before each), so a write
 * the writer acknowledged is read back by the next request on any connection. Anything
 * else, a URL these routes would not match included, goes to the first process, whose
 * answer is then the node's by construction.
 */
const LOCAL_READ = /^\/collections(?:\/[^/?#]+(?:\/[^/?#]+|\/by\/[^/?#]+\/[^/?#]+)?)?(?:\?|$)/;

/** Whether the reader serves this request itself, from its method and URL alone. */
export function servedByReader(method: string | undefined, url: string | undefined): boolean {
  return method === 'GET' && url !== undefined && LOCAL_READ.test(url);
}

const QUERY_URL = /^\/query(?:\?|$)/;
const PREPARE_URL = /^\/query\/prepare(?:\?|$)/;

/**
 * Whether a reader may serve a connection whose first request has this method and URL, from
 * them alone: a read it serves, or a `POST /query` (or `/query/prepare`) whose body it reads
 * to decide. The first process keeps every other connection (readers.ts): a reader would
 * only relay its first request to it.
 */
export function readerMayServe(method: string, url: string): boolean {
  if (servedByReader(method, url)) return true;
  return method === 'POST' && (QUERY_URL.test(url) || PREPARE_URL.test(url));
}

/**
 * A /query body longer than this is passed without a look (its first bytes, then the
 * rest as it comes): an index read's statement and params are far shorter.
 */
export const QUERY_BODY_BYTES_MAX = 64 * 1024;

/**
 * What a reader does with a request whose method and URL it does not serve: `query` and
 * `prepare` read the body first (`query` may then be answered here), `pass` passes it as it
 * comes. Only a JSON body that is not encoded is read: any other goes to the first process,
 * which answers it as a node does.
 */
export function bodyToRead(
  method: string | undefined,
  url: string | undefined,
  headers: http.IncomingHttpHeaders,
): 'query' | 'prepare' | 'pass' {
  if (method !== 'POST' || url === undefined) return 'pass';
  if (headers['content-encoding'] !== undefined) return 'pass';
  if (!/^application\/json\s*(?:;|$)/i.test(headers['content-type'] ?? '')) return 'pass';
  if (Number(headers['content-length']) > QUERY_BODY_BYTES_MAX) return 'pass';
  if (QUERY_URL.test(url)) return 'query';
  return PREPARE_URL.test(url) ? 'prepare' : 'pass';
}

/** The body fields of /query (routes/query.ts's schema) and of its `shard`. */
const QUERY_FIELDS = new Set(['sql', 'handle', 'params', 'shard']);
const SHARD_FIELDS = new Set(['kind', 'top', 'sortKeys']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** A `shard` exactly as routes/query.ts's schema takes it, else undefined. */
function shardOf(value: unknown): QueryOptions['shard'] | undefined {
  if (!isPlainObject(value) || !Object.keys(value).every((field) => SHARD_FIELDS.has(field))) {
    return undefined;
  }
  const { kind, top, sortKeys } = value;
  if (kind !== 'partial' && kind !== 'rows') return undefined;
  if (top !== undefined && !(Number.isSafeInteger(top) && (top as number) >= 0)) return undefined;
  if (sortKeys !== undefined && typeof sortKeys !== 'boolean') return undefined;
  return value as unknown as QueryOptions['shard'];
}

/** What a /query body asks, when it is one cleanly (as the route's schema takes it). */
export interface QueryAsk {
  statement: string | { handle: string };
  params: unknown[];
  options: QueryOptions;
}

/**
 * Reads a /query body the way the route would take it, or answers undefined for anything
 * else: not JSON, a field the schema refuses, both or neither of `sql` and `handle`, a
 * `__proto__` or `constructor` key (the node's JSON parser refuses those). Undefined means
 * "pass it": the first process then answers whatever error the body deserves.
 */
export function queryAsk(body: Buffer): QueryAsk | undefined {
  const text = body.toString('utf8');
  if (text.includes('__proto__') || text.includes('constructor')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(value) || !Object.keys(value).every((field) => QUERY_FIELDS.has(field))) {
    return undefined;
  }
  const { sql, handle, params = [], shard } = value;
  if (!Array.isArray(params)) return undefined;
  const options: QueryOptions = {};
  if (shard !== undefined) {
    const checked = shardOf(shard);
    if (checked === undefined) return undefined;
    options.shard = checked;
  }
  if (nonEmptyString(sql) && handle === undefined) return { statement: sql, params, options };
  if (nonEmptyString(handle) && sql === undefined) {
    return { statement: { handle }, params, options };
  }
  return undefined;
}

/**
 * Whether a reader answers this /query body itself: a SELECT, by text or by a handle this
 * reader holds, that reads through an index or reads a whole collection unfiltered and
 * unsorted, and joins nothing (Database.readsWithoutSelections), planned in the reader's own
 * view (made current first, so a new index is used at once). Everything else is the first
 * process's: writes, DDL, filtered or sorted scans (it keeps selections up to date from its
 * own writes; a reader has none, so it would scan slower), a handle this reader does not
 * hold, and every body that is not a clean /query.
 */
export function answersQuery(db: Pick<Database, 'readsWithoutSelections'>, body: Buffer): boolean {
  const ask = queryAsk(body);
  return ask !== undefined && db.readsWithoutSelections(ask.statement, ask.params, ask.options);
}

/**
 * The SQL text of a /query/prepare body, or undefined. A reader prepares it too once the
 * first process answered 200, so that it runs the handle afterwards: a handle comes from
 * its text (SHA-256), so it is the same in every process.
 */
export function preparedText(body: Buffer): string | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return isPlainObject(value) && nonEmptyString(value.sql) ? value.sql : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Hop-by-hop headers: they describe one connection, so a passed request and its answer
 * drop them and each connection gets its own (Node writes them from the request).
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade']);

/** Passed requests in flight now, for a graceful stop. */
let passing = 0;

/**
 * Sends a request to the first process and relays its answer: status, headers and body as
 * it wrote them. When the first process cannot be reached the client's connection is cut,
 * as it would be by a node that stopped.
 */
function pass(
  agent: http.Agent,
  socketPath: string,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  read: ReadBody = { chunks: [], whole: false },
  onStatus?: (status: number) => void,
): void {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'connection' || name === 'keep-alive') continue;
    headers[name] = value;
  }
  passing++;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    passing--;
  };
  const upstream = http.request(
    { socketPath, agent, method: request.method, path: request.url, headers },
    (answer) => {
      const raw = answer.rawHeaders;
      const relayed: string[] = [];
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i] as string;
        const value = raw[i + 1] as string;
        const lower = name.toLowerCase();
        // `Connection: close` (the change feed's) is the answer's own wish: it is kept.
        if (HOP_BY_HOP.has(lower) && !(lower === 'connection' && value === 'close')) continue;
        relayed.push(name, value);
      }
      onStatus?.(answer.statusCode ?? 502);
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, relayed);
      answer.pipe(response);
      answer.once('error', () => response.destroy());
    },
  );
  upstream.once('error', () => {
    finish();
    response.destroy();
  });
  response.once('close', () => {
    finish();
    // A client that left a long answer (the change feed) ends the passed request too.
    if (!response.writableFinished) upstream.destroy();
  });
  // What was read already goes first, byte for byte as the client sent it; then the rest.
  for (const chunk of read.chunks) upstream.write(chunk);
  if (read.whole) upstream.end();
  else request.pipe(upstream);
}

/** What a reader read of a request's body: its bytes so far, and whether that is all. */
interface ReadBody {
  chunks: Buffer[];
  whole: boolean;
}

/**
 * Reads a request's body up to QUERY_BODY_BYTES_MAX bytes; past that it stops reading
 * (the request paused) and answers what it has, `whole` false. A request that fails is
 * answered by cutting the connection.
 */
function readBody(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  done: (read: ReadBody) => void,
): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    bytes += chunk.length;
    if (bytes <= QUERY_BODY_BYTES_MAX) return;
    request.pause();
    stopReading();
    done({ chunks, whole: false });
  };
  const onEnd = () => {
    stopReading();
    done({ chunks, whole: true });
  };
  const onError = () => {
    stopReading();
    response.destroy();
  };
  const stopReading = () => {
    request.off('data', onData);
    request.off('end', onEnd);
    request.off('error', onError);
  };
  request.on('data', onData);
  request.on('end', onEnd);
  request.on('error', onError);
}

/**
 * Passes an Upgrade request to the first process as it came (its request line, headers and
 * the bytes after them) and joins the two connections byte for byte: the first process
 * answers it (a router's wire, server/wire.ts), and the connection is then its own. Either
 * side ending or failing ends both.
 */
function passUpgrade(
  socketPath: string,
  request: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  const upstream = connect(socketPath);
  const raw = request.rawHeaders;
  let text = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`;
  for (let i = 0; i < raw.length; i += 2) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
  upstream.write(`${text}\r\n`);
  if (head.length > 0) upstream.write(head);
  socket.pipe(upstream).pipe(socket);
  upstream.once('error', () => socket.destroy());
  socket.once('error', () => upstream.destroy());
  upstream.once('close', () => socket.destroy());
  socket.once('close', () => upstream.destroy());
}

/** Holds `sql` by its handle here too; a text this view cannot parse is left out. */
function prepareQuietly(db: Database, sql: string): void {
  try {
    db.prepare(sql);
  } catch {
    // The first process parsed it, so this does not happen; were it to, the handle would
    // be unknown here, so passed when run, and the first process would answer it.
  }
}

/** A reader's state once started. */
interface Serving {
  db: Database;
  app: FastifyInstance;
  metrics: Metrics;
  start: ReaderStart;
  /** Stops keeping connections alive: from now on each answer closes its connection. */
  closeConnections(): void;
}

function send(message: FromReader): void {
  process.send?.(message);
}

/** Opens the file read-only and builds the app; passes go to `start.passSocket`. */
async function begin(start: ReaderStart): Promise<Serving> {
  const db = await open(start.file, {
    readOnly: true,
    name: start.nodeName,
    pageCheck: 'off',
    queryTimeoutMs: start.queryTimeoutMs,
  });
  const metrics = new Metrics();
  const app = apiApp(
    { api: () => db, metrics },
    {
      apiKey: start.apiKey,
      corsOrigin: start.corsOrigin,
      timeouts: start.timeouts,
      logger: start.log ? { level: 'warn' } : false,
      ...(start.https && { https: start.https }),
    },
  );
  // A /query the reader answers had its body read to decide: the route parses those bytes.
  const readBodies = new WeakMap<http.IncomingMessage, Buffer>();
  app.addHook('preParsing', async (request, _reply, payload) => {
    const body = readBodies.get(request.raw);
    return body === undefined ? payload : Readable.from([body], { objectMode: false });
  });
  await app.ready();
  const agent = new http.Agent({ keepAlive: true });
  const server = app.server;
  const [fastify] = server.listeners('request') as http.RequestListener[];
  if (!fastify) throw new Error('reader: the app has no request listener');
  server.removeListener('request', fastify);
  // The answers being written, and whether connections are still kept alive (not once the
  // reader stops: its clients then reconnect, to a process that stays).
  const answering = new Set<http.ServerResponse>();
  let keepAlive = true;
  const closeAfter = (response: http.ServerResponse) => {
    // Node writes `Connection: close` and ends the connection after an answer whose headers
    // are still to be written; one already sent kept alive ends its connection once written.
    if (!response.headersSent) response.shouldKeepAlive = false;
    else if (response.writableFinished) response.socket?.destroySoon();
    else response.once('finish', () => response.socket?.destroySoon());
  };
  const closeConnections = () => {
    keepAlive = false;
    for (const response of answering) closeAfter(response);
    server.closeIdleConnections();
  };
  // Whether a request carries the key: one that does not is answered 401 by the reader's own
  // app before any of its body is parsed or planned (planning first let a client without the
  // key grow the reader's statement cache).
  const keyCheck = start.apiKey === undefined ? undefined : bearerCheck(start.apiKey);
  const carriesKey = (request: http.IncomingMessage): boolean => {
    try {
      keyCheck?.(request.headers.authorization);
      return true;
    } catch {
      return false;
    }
  };
  /** Answers one request here, or passes it to the first process. */
  const route = (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (servedByReader(request.method, request.url)) {
      fastify.call(server, request, response);
      return;
    }
    const what = bodyToRead(request.method, request.url, request.headers);
    if (what === 'pass') {
      pass(agent, start.passSocket, request, response);
      return;
    }
    readBody(request, response, (read) => {
      const body = read.whole ? Buffer.concat(read.chunks) : undefined;
      if (
        what === 'query' &&
        body !== undefined &&
        (!carriesKey(request) || answersQuery(db, body))
      ) {
        readBodies.set(request, body);
        fastify.call(server, request, response);
        return;
      }
      const sql = what === 'prepare' && body !== undefined ? preparedText(body) : undefined;
      const remember =
        sql === undefined
          ? undefined
          : (status: number) => {
              if (status === 200) prepareQuietly(db, sql);
            };
      pass(agent, start.passSocket, request, response, read, remember);
    });
  };
  server.prependListener('request', (request, response) => {
    if (!keepAlive) response.shouldKeepAlive = false;
    else {
      answering.add(response);
      response.once('close', () => answering.delete(response));
    }
    // A passed request never reaches the app's own ordering (pipelined.ts): it is ordered
    // here, so a read pipelined behind a write it passed on waits for that write's answer.
    inConnectionOrder(request, response, () => route(request, response));
  });
  // A router's wire (server/wire.ts) and any other Upgrade are the first process's.
  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    passUpgrade(start.passSocket, request, socket, head),
  );
  // The server never listens itself (it takes connections from the shared socket): what
  // Node does on `listening` (the header and request deadlines' checks) is done now.
  server.emit('listening');
  return { db, app, metrics, start, closeConnections };
}

const STOP_POLL_MS = 20;

/**
 * Stops keeping connections alive (idle ones close at once, the others after their answer,
 * which says `Connection: close`), lets the requests in flight finish (at most the request
 * timeout), closes the file and exits.
 */
async function stop(serving: Serving | undefined, code: number): Promise<never> {
  if (serving) {
    serving.closeConnections();
    const deadline = Date.now() + serving.start.timeouts.requestSeconds * 1000;
    while (serving.metrics.requestsInFlight() + passing > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, STOP_POLL_MS));
    }
    serving.app.server.closeAllConnections();
    await serving.db.close().catch(() => {});
  }
  process.exit(code);
}

/**
 * Runs this process as a reader: waits for the first process's `start`, then its word to
 * serve, then takes the connections it is handed. It exits when the IPC channel closes (the first process died or stopped).
 */
export function runReader(): void {
  let serving: Serving | undefined;
  let stopping = false;
  const stopOnce = (code: number) => {
    if (stopping) return;
    stopping = true;
    void stop(serving, code);
  };
  // Ctrl-C reaches every process of the terminal's group: the first process stops the
  // readers in order, so a reader waits for its word.
  process.on('SIGINT', () => {});
  process.once('SIGTERM', () => stopOnce(0));
  process.once('disconnect', () => stopOnce(0));
  process.on('message', (message: ToReader, handle?: net.Socket) => {
    switch (message.kind) {
      case 'start':
        begin(message).then(
          (started) => {
            serving = started;
            send({ kind: 'ready' });
          },
          (error: unknown) => {
            process.stderr.write(`docdb reader ${process.pid}: ${(error as Error).message}\n`);
            process.exit(1);
          },
        );
        break;
      case 'listen':
        if (serving) send({ kind: 'serving' });
        break;
      case 'connection':
        // One dealt as this reader was told to stop is still served (for one request): the
        // first process read its first bytes already, so it could not take it back.
        if (serving && handle) {
          // The bytes the first process read go back in front, for the server to parse.
          if (message.head) handle.unshift(Buffer.from(message.head));
          serving.app.server.emit('connection', handle);
        } else handle?.destroy();
        break;
      case 'metrics':
        if (serving) {
          send({ kind: 'metrics', id: message.id, snapshot: serving.metrics.snapshot() });
        }
        break;
      case 'stop':
        stopOnce(0);
        break;
      default:
        message satisfies never;
    }
  });
}

/**
 * A reader process of a node (issue 25): it accepts connections on the node's listening
 * socket, serves the document reads from a read-only view of the node's data file, and
 * passes every other request (writes, `/query`, admin, health, metrics, the change feed,
 * replication) to the node's first process, the one writer, whose answer it relays as is.
 * It never writes the file, and it stops when the first process tells it to or goes away.
 * readers.ts is the first process's side.
 */

import * as http from 'node:http';
import { connect } from 'node:net';
import type * as net from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type Database, open } from '../engine/index.js';
import { apiApp, type BaseAppOptions, type HttpTimeouts } from './app.js';
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
  /** The TLS options the first process serves with, files already read. */
  https: BaseAppOptions['https'];
  log: boolean;
}

/** Messages from the first process: start, take the listening socket, count, stop. */
export type ToReader =
  | ReaderStart
  | { kind: 'listen' }
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

/** Whether the reader serves this request itself. */
export function servedByReader(method: string | undefined, url: string | undefined): boolean {
  return method === 'GET' && url !== undefined && LOCAL_READ.test(url);
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
  request.pipe(upstream);
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

/** A reader's state once started. */
interface Serving {
  db: Database;
  app: FastifyInstance;
  metrics: Metrics;
  start: ReaderStart;
  listening?: net.Server;
}

function send(message: FromReader): void {
  process.send?.(message);
}

/** Opens the file read-only and builds the app; passes go to `start.passSocket`. */
async function begin(start: ReaderStart): Promise<Serving> {
  const db = await open(start.file, { readOnly: true, name: start.nodeName, pageCheck: 'off' });
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
  await app.ready();
  const agent = new http.Agent({ keepAlive: true });
  const server = app.server;
  const [fastify] = server.listeners('request') as http.RequestListener[];
  if (!fastify) throw new Error('reader: the app has no request listener');
  server.removeListener('request', fastify);
  server.prependListener('request', (request, response) => {
    if (servedByReader(request.method, request.url)) fastify.call(server, request, response);
    else pass(agent, start.passSocket, request, response);
  });
  // A router's wire (server/wire.ts) and any other Upgrade are the first process's.
  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    passUpgrade(start.passSocket, request, socket, head),
  );
  // The server never listens itself (it takes connections from the shared socket): what
  // Node does on `listening` (the header and request deadlines' checks) is done now.
  server.emit('listening');
  return { db, app, metrics, start };
}

/** Takes connections from the node's listening socket into the app's server. */
function listen(serving: Serving, listening: net.Server): void {
  serving.listening = listening;
  listening.on('connection', (socket) => serving.app.server.emit('connection', socket));
  send({ kind: 'serving' });
}

const STOP_POLL_MS = 20;

/**
 * Stops taking connections, lets the requests in flight finish (at most the request
 * timeout), closes the file and exits.
 */
async function stop(serving: Serving | undefined, code: number): Promise<never> {
  serving?.listening?.close();
  if (serving) {
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
 * Runs this process as a reader: waits for the first process's `start`, then its listening
 * socket. It exits when the IPC channel closes (the first process died or stopped).
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
  process.on('message', (message: ToReader, handle?: net.Server) => {
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
        if (serving && handle) listen(serving, handle);
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

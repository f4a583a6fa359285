/**
 * The node's side of the wire (docs/ARCHITECTURE.md, "The wire"): `GET /wire` with
 * `Upgrade: docdb-wire/1` on the node's own port (TLS included: it is the same socket) turns a
 * connection into a stream of request frames, each run on the node's NodeApi (the same
 * Database methods the REST routes call) and answered by id as soon as it is done, in any
 * order. Answers are the routes' JSON text, errors the routes' error bodies and statuses
 * (errors.ts `errorAnswer`), so a router cannot tell the wire from HTTP by what it gets. Each
 * request is counted in the metrics under its route. It never touches HTTP's own requests.
 */

import { type IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type DbError, dbError, isDbError, statusOf } from '../errors/index.js';
import { encodeFrame, FrameDecoder } from '../replication/index.js';
import type { Document, JsonText, NodeApi, QueryOptions, QueryResult } from '../types/index.js';
import { BODY_BYTES_MAX, rowJson } from '../util/index.js';
import {
  FrameWriter,
  idOf,
  parseRequest,
  WIRE_ANSWER_PART_BYTES,
  WIRE_BODY_BYTES_HEADER,
  WIRE_ENVELOPE_BYTES,
  WIRE_IN_FLIGHT_MAX,
  WIRE_OPS,
  WIRE_PATH,
  WIRE_PROTOCOL,
  WIRE_ROWS_CHARS_MAX,
  type WireAnswer,
  type WireOp,
} from '../wire/index.js';
import { bearerCheck } from './auth.js';
import { errorAnswer } from './errors.js';
import { answerJson } from './json-answer.js';
import type { Metrics } from './metrics.js';
import { requestIdGenerator } from './request-id.js';
import type { ApiContext } from './route-context.js';

/** How long a node waits for a router to end a connection it ended before cutting it off. */
const WIRE_CLOSE_GRACE_MS = 1_000;

/** Options of serveWire: the app's API key and body limit, which the wire keeps too. */
export interface WireOptions {
  apiKey?: string | undefined;
  bodyBytesMax?: number;
}

/** What a session needs of the node. */
interface Serving {
  api: () => NodeApi;
  metrics: Metrics;
  log: FastifyBaseLogger;
  nextRequestId: () => string;
  bodyBytesMax: number;
}

/**
 * Serves the wire on `app`'s server: Upgrades to `GET /wire` with the API key (when set) are
 * taken; any other Upgrade request is served as a plain request and its connection closed, as
 * it was before the node listened for Upgrades. Closing the app closes the wire's
 * connections once their requests are answered, before the server waits for its connections.
 */
export function serveWire(app: FastifyInstance, context: ApiContext, options: WireOptions): void {
  const check = options.apiKey ? bearerCheck(options.apiKey) : undefined;
  const serving: Serving = {
    api: context.api,
    metrics: context.metrics,
    log: app.log,
    nextRequestId: requestIdGenerator(),
    bodyBytesMax: options.bodyBytesMax ?? BODY_BYTES_MAX,
  };
  const sessions = new Set<WireSession>();
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (closing) {
      socket.destroy();
      return;
    }
    if ((request.url ?? '').split('?')[0] !== WIRE_PATH) {
      serveAsRequest(app.server, request, socket);
      return;
    }
    const requestId = serving.nextRequestId();
    try {
      const asked = String(request.headers.upgrade ?? '').trim();
      if (request.method !== 'GET' || asked.toLowerCase() !== WIRE_PROTOCOL) {
        throw dbError('ERR_BAD_REQUEST', 'wireUpgrade', {
          ours: `${WIRE_PROTOCOL} by GET`,
          got: `${asked || 'none'} by ${request.method}`,
        });
      }
      check?.(request.headers.authorization);
    } catch (error) {
      refuse(socket, requestId, errorAnswer(error, requestId, app.log.child({ reqId: requestId })));
      return;
    }
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n' +
        `Upgrade: ${WIRE_PROTOCOL}\r\n${WIRE_BODY_BYTES_HEADER}: ${serving.bodyBytesMax}\r\n` +
        `x-request-id: ${requestId}\r\n\r\n`,
    );
    const session = new WireSession(socket, serving, head);
    sessions.add(session);
    socket.once('close', () => sessions.delete(session));
  });
  // Before the server closes: it waits for every connection to end, and a router holds its
  // wire connections open for as long as it runs.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    await Promise.all([...sessions].map((s) => s.close()));
  });
}

/** An Upgrade the node does not take, answered by the app as a plain request. */
function serveAsRequest(
  server: FastifyInstance['server'],
  request: IncomingMessage,
  socket: Duplex,
) {
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.once('finish', () => socket.end());
  server.emit('request', request, response);
}

/** Answers a refused Upgrade with its status and error body, then closes the connection. */
function refuse(socket: Duplex, requestId: string, answer: { status: number; body: unknown }) {
  const body = JSON.stringify(answer.body);
  socket.end(
    `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\n` +
      `connection: close\r\n\r\n${body}`,
  );
}

/** One upgraded connection: frames in, each request run at once, answers out by id. */
class WireSession {
  private readonly decoder: FrameDecoder;
  private inFlight = 0;
  /** Set once the connection takes no more requests. */
  private ended = false;
  private closing: (() => void) | undefined;
  /** Answers go out together once per turn of the event loop (wire/frame-writer.ts). */
  private readonly out: FrameWriter;

  constructor(
    private readonly socket: Duplex,
    private readonly serving: Serving,
    head: Buffer,
  ) {
    this.decoder = new FrameDecoder(serving.bodyBytesMax + WIRE_ENVELOPE_BYTES);
    this.out = new FrameWriter(socket);
    const tcp = socket as Partial<Socket>;
    // A router's connection may rest: Node drops the HTTP server's timeouts from an upgraded
    // socket (wire.test.ts keeps one past them).
    tcp.setNoDelay?.(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    // The HTTP server keeps a socket half open when the other side ends; the wire has no use
    // for that, and a half-open socket would hold the server's close.
    socket.on('end', () => socket.end());
    if (head.length > 0) this.receive(head);
  }

  /** Takes no more requests; resolves once those in flight are answered and it is ended. */
  close(): Promise<void> {
    this.ended = true;
    if (this.inFlight === 0 || this.socket.destroyed) {
      this.end();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.closing = () => {
        this.end();
        resolve();
      };
    });
  }

  /**
   * Ends the connection. The socket keeps reading (and drops what comes): a paused one would
   * never see the router's end, and the server's close would wait for it. A router that does
   * not end its side within WIRE_CLOSE_GRACE_MS is cut off.
   */
  private end(): void {
    this.ended = true;
    this.out.flush();
    this.socket.resume();
    this.socket.end();
    setTimeout(() => this.socket.destroy(), WIRE_CLOSE_GRACE_MS).unref();
  }

  private receive(chunk: Buffer): void {
    if (this.ended) return;
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      this.closeWith(frameError(error));
      return;
    }
    for (const message of messages) void this.serve(message);
    // Past the bound, TCP holds the router back until answers go out.
    if (this.inFlight >= WIRE_IN_FLIGHT_MAX) this.socket.pause();
  }

  /** Runs one request and sends its answer or error, counted under its route. */
  private async serve(message: unknown): Promise<void> {
    const i = idOf(message);
    if (i === undefined) {
      this.closeWith(
        dbError('ERR_BAD_REQUEST', 'wireMessage', { protocol: WIRE_PROTOCOL, key: 'i' }),
      );
      return;
    }
    const op = (message as { op?: string }).op as WireOp;
    const spec = Object.hasOwn(WIRE_OPS, op) ? WIRE_OPS[op] : undefined;
    const stats = this.serving.metrics.routeStats(spec?.method ?? 'POST', spec?.route ?? WIRE_PATH);
    const started = performance.now();
    stats.inFlight++;
    this.inFlight++;
    let status: number = spec?.status ?? 200;
    try {
      const { args } = parseRequest(message);
      this.answer(i, await this.run(op, args));
    } catch (error) {
      // Spec §7: on POST /query an error about the statement is a 400, as the route says.
      const statusFor =
        op === 'query' && isDbError(error) && statusOf(error.code) === 404 ? 400 : undefined;
      const requestId = this.serving.nextRequestId();
      const log = this.serving.log.child({ reqId: requestId });
      const answer = errorAnswer(error, requestId, log, statusFor);
      status = answer.status;
      this.send({ i, e: status, j: JSON.stringify({ ...answer.body, requestId }) });
    } finally {
      stats.inFlight--;
      stats.answered(status, (performance.now() - started) / 1000);
      this.inFlight--;
      if (this.inFlight === 0) this.closing?.();
      else if (this.inFlight < WIRE_IN_FLIGHT_MAX) this.socket.resume();
    }
  }

  /** The NodeApi call of `op`, its answer as the route gives it. */
  private async run(op: WireOp, args: unknown[]): Promise<unknown> {
    const api = this.serving.api();
    const [a, b, c, d, e] = args as [string, string, unknown, unknown, unknown];
    switch (op) {
      case 'query': {
        const options = args[2] as QueryOptions;
        // Rows as JSON text where the node holds them so, sent apart (see `answer`).
        const rows = options.rows === 'json' ? ROWS_JSON : {};
        const shard = options.shard === undefined ? {} : { shard: options.shard };
        const result = await api.query(a, args[1] as unknown[], { ...shard, ...rows });
        this.serving.metrics.countPlan(result.plan);
        return options.rows === 'json' ? new RowsApart(result) : result;
      }
      case 'getTagged':
        return api.getTagged(a, b);
      case 'getByKey':
        return api.getByKey(a, b, c as string);
      case 'collections':
        return api.collections();
      case 'insert':
        return { id: (await api.insert(a, b)).id };
      case 'bulk': {
        const options = c as { atomic?: unknown; skipIndexes?: unknown };
        return api.bulk(a, args[1] as unknown[], {
          atomic: options.atomic === true,
          skipIndexes: options.skipIndexes === true,
        });
      }
      case 'replace':
        return api.replace(a, b, c, d as { ifMatch?: string });
      case 'replaceByKey':
        return api.replaceByKey(a, b, c as string, d, e as { ifMatch?: string });
      case 'delete':
        return api.delete(a, b, c as { ifMatch?: string });
      case 'deleteByKey':
        return api.deleteByKey(a, b, c as string);
      default: {
        const never: never = op;
        return never;
      }
    }
  }

  /**
   * Sends an answer as JSON text, in parts when long (WIRE_ANSWER_PART_BYTES); a query's
   * answer asked with its rows apart goes so when it fits one frame (WIRE_ROWS_CHARS_MAX).
   */
  private answer(i: number, value: unknown): void {
    if (value === undefined) {
      this.send({ i });
      return;
    }
    if (value instanceof RowsApart) {
      const apart = value.split();
      if (apart !== undefined) {
        this.send({ i, ...apart });
        return;
      }
    }
    const json = value instanceof RowsApart ? answerJson(value.result) : JSON.stringify(value);
    if (json.length * 3 <= WIRE_ANSWER_PART_BYTES) {
      this.send({ i, j: json });
      return;
    }
    const bytes = Buffer.from(json);
    for (let at = 0; at < bytes.length; at += WIRE_ANSWER_PART_BYTES) {
      const end = at + WIRE_ANSWER_PART_BYTES;
      const b = bytes.subarray(at, end);
      this.send(end < bytes.length ? { i, b, more: true } : { i, b });
    }
  }

  private send(answer: WireAnswer): void {
    this.out.write(encodeFrame(answer));
  }

  /**
   * Says why the connection closes (id 0) and closes it: the stream of frames is no longer
   * one the node can read. Requests in flight are not answered.
   */
  private closeWith(error: DbError): void {
    const requestId = this.serving.nextRequestId();
    const answer = errorAnswer(error, requestId, this.serving.log.child({ reqId: requestId }));
    this.send({ i: 0, e: answer.status, j: JSON.stringify(answer.body) });
    this.end();
  }
}

const ROWS_JSON = { rows: 'json' } as const;

/** A query's answer to be sent with its rows apart, each as its JSON text (WireAnswer `r`). */
class RowsApart {
  constructor(readonly result: QueryResult<Document | JsonText>) {}

  /**
   * The answer's JSON with `documents` empty (kept in its place, so the router's answer has
   * the node's key order) and the rows' JSON text; undefined when they would not fit a frame.
   */
  split(): { j: string; r: string[] } | undefined {
    const j = JSON.stringify({ ...this.result, documents: [] });
    let chars = j.length;
    const r: string[] = [];
    for (const row of this.result.documents) {
      const text = rowJson(row);
      chars += text.length;
      if (chars > WIRE_ROWS_CHARS_MAX) return undefined;
      r.push(text);
    }
    return { j, r };
  }
}

/** A frame the node cannot read, worded as the wire's: too large for its body limit, or not MessagePack. */
function frameError(error: unknown): DbError {
  const details = isDbError(error) ? error.details : undefined;
  if (typeof details?.bytes === 'number' && typeof details.limit === 'number') {
    const values = { protocol: WIRE_PROTOCOL, bytes: details.bytes, limit: details.limit };
    return dbError('ERR_BODY_TOO_LARGE', 'wireFrameTooLarge', values, {
      bodyBytesMax: details.limit - WIRE_ENVELOPE_BYTES,
    });
  }
  const cause = (error as Error).message;
  return dbError('ERR_BAD_REQUEST', 'wireFrame', { protocol: WIRE_PROTOCOL, cause });
}

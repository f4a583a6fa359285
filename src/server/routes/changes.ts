/**
 * GET /changes, the change feed (docs/changes.md): a node's change log as NDJSON, or as
 * Server-Sent Events with `Accept: text/event-stream`, entries after `since` (or
 * `Last-Event-ID`) and then each commit, a heartbeat at once and while idle, 410 when `since`
 * was trimmed. The framing here serves the node and the router alike; what a feed reads is
 * the engine's (`db.changes`) or the router's. It never buffers past the socket's backpressure.
 */

import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Router } from '../../cluster/index.js';
import type { ChangeFeed } from '../../engine/index.js';
import { DbError, isDbError } from '../../errors/index.js';
import type { ChangeEntry } from '../../types/index.js';
import { streamErrorBody } from '../errors.js';
import type { RouteContext } from '../route-context.js';

/** How long a feed stays silent before it sends a heartbeat (a named constant, DESIGN §9). */
export const CHANGES_HEARTBEAT_MS = 5_000;

/** The feed's query string, read as text by `feedRequest`. */
export const CHANGES_QUERY = {
  type: 'object',
  properties: { since: { type: 'string' }, collection: { type: 'string' } },
  additionalProperties: false,
} as const;

/** The query string and headers of GET /changes, as text. */
export interface FeedRequest {
  /** `Last-Event-ID` when sent (an EventSource resuming), else `since`; absent: from now. */
  since: string | undefined;
  collection: string | undefined;
  sse: boolean;
}

/** Reads a GET /changes request: Last-Event-ID wins over `since`, as an EventSource resumes. */
export function feedRequest(
  request: FastifyRequest<{ Querystring: { since?: string; collection?: string } }>,
): FeedRequest {
  const lastEventId = request.headers['last-event-id'];
  const resumed = typeof lastEventId === 'string' && lastEventId !== '' ? lastEventId : undefined;
  return {
    since: resumed ?? request.query.since,
    collection: request.query.collection,
    sse: (request.headers.accept ?? '').includes('text/event-stream'),
  };
}

/** One line of a feed: its JSON fields, and its SSE event id (the resume point after it). */
export interface FeedLine {
  fields: Record<string, unknown>;
  id: string;
}

/** What `sendFeed` streams: lines as they come, and the heartbeat of the moment. */
export interface FeedSource {
  lines: AsyncIterator<FeedLine>;
  /** The heartbeat now: `{ heartbeat: <ms>, lastSeq | cursor }`, and the resume point as id. */
  heartbeat(): FeedLine;
  /** Ends what the source follows; sendFeed aborts it when the client leaves or the app closes. */
  stop: AbortController;
}

/** Options of sendFeed. */
export interface FeedOptions {
  sse: boolean;
  heartbeatMs: number;
  /** Told when the feed starts and when what it follows has ended (the node's gauge). */
  opened?: () => void;
  closed?: () => void;
}

/** The feeds of each app, aborted before it closes: a live feed never ends by itself. */
const openFeeds = new WeakMap<FastifyInstance, Set<AbortController>>();

/** Makes `app` end its feeds when it closes; call once, before the app is ready. */
export function endFeedsOnClose(app: FastifyInstance): void {
  const feeds = new Set<AbortController>();
  openFeeds.set(app, feeds);
  app.addHook('preClose', (done) => {
    for (const stop of feeds) stop.abort();
    done();
  });
}

function frame(sse: boolean, line: FeedLine): string {
  const json = JSON.stringify(line.fields);
  return sse ? `id: ${line.id}\ndata: ${json}\n\n` : `${json}\n`;
}

function heartbeatFrame(sse: boolean, line: FeedLine): string {
  // SSE: a comment keeps the connection alive unseen; the id line moves the EventSource's
  // Last-Event-ID past entries a collection filter skipped.
  return sse ? `: heartbeat\nid: ${line.id}\n\n` : `${JSON.stringify(line.fields)}\n`;
}

function errorFrame(sse: boolean, body: unknown): string {
  const json = JSON.stringify(body);
  return sse ? `event: feed-error\ndata: ${json}\n\n` : `${json}\n`;
}

const TICK = Symbol('tick');

/**
 * The frames of one feed: a heartbeat at once (it tells the consumer where the feed starts),
 * then each line as the source gives it, a heartbeat after `heartbeatMs` of silence, and an
 * error line if the source fails (a trim past the feed, the node closing). Pulled by the
 * response stream, so a client that stops reading stops it.
 */
async function* frames(
  request: FastifyRequest,
  source: FeedSource,
  options: FeedOptions,
): AsyncGenerator<string> {
  const { sse, heartbeatMs } = options;
  const { signal } = source.stop;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const onAbort = () => wake?.();
  signal.addEventListener('abort', onAbort);
  let pending: Promise<IteratorResult<FeedLine>> | undefined;
  try {
    yield heartbeatFrame(sse, source.heartbeat());
    let quietSince = performance.now();
    while (!signal.aborted) {
      pending ??= source.lines.next();
      const wait = Math.max(0, heartbeatMs - (performance.now() - quietSince));
      const tick = new Promise<typeof TICK>((resolve) => {
        wake = () => resolve(TICK);
        timer = setTimeout(wake, wait);
      });
      const got = await Promise.race([pending, tick]);
      clearTimeout(timer);
      if (signal.aborted) break;
      if (got === TICK) {
        yield heartbeatFrame(sse, source.heartbeat());
      } else if (got.done) {
        break;
      } else {
        pending = undefined;
        yield frame(sse, got.value);
      }
      quietSince = performance.now();
    }
  } catch (error) {
    yield errorFrame(sse, streamErrorBody(request, error));
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    source.stop.abort();
    // The source's last read settles once it sees the abort; nothing waits for it then.
    pending?.catch(() => {});
    await source.lines.return?.();
    options.closed?.();
  }
}

/**
 * Answers a feed: headers now (the source was opened, so a 400 or 410 was already thrown),
 * then `frames` through a stream that pulls one frame at a time as the socket drains.
 */
export function sendFeed(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  source: FeedSource,
  options: FeedOptions,
): FastifyReply {
  const feeds = openFeeds.get(app);
  feeds?.add(source.stop);
  options.opened?.();
  const closed = options.closed;
  const body = Readable.from(
    frames(request, source, {
      ...options,
      closed: () => {
        feeds?.delete(source.stop);
        closed?.();
      },
    }),
    // A few frames ahead of the socket at most: the rest waits in the change log.
    { highWaterMark: 4 },
  );
  // A client that leaves ends the follow, even while it waits for the next commit.
  reply.raw.on('close', () => source.stop.abort());
  // The connection closes with the feed: a shutdown ends every feed, and a keep-alive
  // connection left behind by one would hold the server open until its idle timeout.
  reply.header('connection', 'close');
  if (options.sse) {
    reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
    reply.type('text/event-stream; charset=utf-8');
  } else {
    reply.type('application/x-ndjson');
  }
  return reply.send(body);
}

/** Reads `since` as a node takes it: a seq in decimal. */
export function seqOf(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,14})$/.test(since)) {
    throw new DbError(
      'ERR_BAD_ARGUMENT',
      `query parameter since (or the Last-Event-ID header) must be a seq, an integer >= 0; got '${since.slice(0, 40)}'`,
      { parameter: 'since' },
    );
  }
  return Number(since);
}

/** A collection name's error with the parameter named; any other error as it is. */
function namingCollection(error: unknown): unknown {
  if (!isDbError(error, 'ERR_COLLECTION_NAME_INVALID')) return error;
  return new DbError(error.code, `query parameter collection: ${error.message}`, {
    ...error.details,
    parameter: 'collection',
  });
}

/** The node's GET /changes. `heartbeatMs` is for tests; the node uses CHANGES_HEARTBEAT_MS. */
export function registerChangesRoutes(
  app: FastifyInstance,
  { db, metrics }: RouteContext,
  heartbeatMs = CHANGES_HEARTBEAT_MS,
): void {
  endFeedsOnClose(app);
  app.get<{ Querystring: { since?: string; collection?: string } }>(
    '/changes',
    {
      // A HEAD would run a feed that never ends only to drop its body.
      exposeHeadRoute: false,
      schema: {
        summary:
          'The change log after since (default: from now), then live: NDJSON, or SSE with Accept: text/event-stream',
        querystring: CHANGES_QUERY,
      },
    },
    async (request, reply) => {
      const asked = feedRequest(request);
      const stop = new AbortController();
      const since = seqOf(asked.since);
      let feed: ChangeFeed;
      try {
        feed = db.changes({
          ...(since !== undefined && { since }),
          ...(asked.collection !== undefined && { collection: asked.collection }),
          signal: stop.signal,
        });
      } catch (error) {
        throw namingCollection(error);
      }
      const lines = (async function* () {
        for await (const entry of feed) yield entryLine(entry);
      })();
      return sendFeed(
        app,
        request,
        reply,
        {
          lines,
          stop,
          heartbeat: () => ({
            fields: { heartbeat: Date.now(), lastSeq: feed.position },
            id: String(feed.position),
          }),
        },
        {
          sse: asked.sse,
          heartbeatMs,
          opened: () => metrics.changeFeedsOpen++,
          closed: () => metrics.changeFeedsOpen--,
        },
      );
    },
  );
}

/** The router's GET /changes: every shard's feed merged, resumed by the router cursor. */
export function registerRouterChangesRoutes(
  app: FastifyInstance,
  current: () => Router,
  heartbeatMs = CHANGES_HEARTBEAT_MS,
): void {
  endFeedsOnClose(app);
  app.get<{ Querystring: { since?: string; collection?: string } }>(
    '/changes',
    { exposeHeadRoute: false, schema: { querystring: CHANGES_QUERY } },
    async (request, reply) => {
      const asked = feedRequest(request);
      const stop = new AbortController();
      const feed = await current()
        .changes({ since: asked.since, collection: asked.collection, signal: stop.signal })
        .catch((error: unknown) => Promise.reject(namingCollection(error)));
      const lines = (async function* () {
        for await (const entry of feed.lines) {
          yield { fields: entry as unknown as Record<string, unknown>, id: entry.cursor as string };
        }
      })();
      const heartbeat = () => {
        const cursor = feed.cursor();
        return { fields: { heartbeat: Date.now(), cursor }, id: cursor };
      };
      return sendFeed(
        app,
        request,
        reply,
        { lines, stop, heartbeat },
        { sse: asked.sse, heartbeatMs },
      );
    },
  );
}

function entryLine(entry: ChangeEntry): FeedLine {
  return { fields: entry as unknown as Record<string, unknown>, id: String(entry.seq) };
}

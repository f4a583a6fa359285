/**
 * GET /changes, the change feed (docs/changes.md), registered once over a NodeApi for a node
 * and a router alike: the feed's lines (`changesWithHeartbeats`: a node's change log, or every
 * shard's merged under the router cursor) as NDJSON, or as Server-Sent Events with `Accept:
 * text/event-stream`, after `since` (or `Last-Event-ID`), 410 when `since` was trimmed. What a
 * line says is the implementation's; the framing is here. It never buffers past the socket's
 * backpressure.
 */

import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assert, dbError, isDbError, relayedError } from '../../errors/index.js';
import type { ChangeLine } from '../../types/index.js';
import { CHANGE_FEEDS_MAX, resumePoint } from '../../util/index.js';
import { streamErrorBody } from '../errors.js';
import type { ApiContext } from '../route-context.js';

/** The feed's query string, read as text by `feedRequest`. */
const CHANGES_QUERY = {
  type: 'object',
  properties: { since: { type: 'string' }, collection: { type: 'string' } },
  additionalProperties: false,
} as const;

/** The query string and headers of GET /changes, as text. */
interface FeedRequest {
  /** `Last-Event-ID` when sent (an EventSource resuming), else `since`; absent: from now. */
  since: string | undefined;
  collection: string | undefined;
  sse: boolean;
}

/** Reads a GET /changes request: Last-Event-ID wins over `since`, as an EventSource resumes. */
function feedRequest(
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

/** The feeds of each app, aborted before it closes: a live feed never ends by itself. */
const openFeeds = new WeakMap<FastifyInstance, Set<AbortController>>();

/** Makes `app` end its feeds when it closes; call once, before the app is ready. */
function endFeedsOnClose(app: FastifyInstance): void {
  const feeds = new Set<AbortController>();
  openFeeds.set(app, feeds);
  app.addHook('preClose', (done) => {
    for (const stop of feeds) stop.abort();
    done();
  });
}

/**
 * Ends every feed `app` serves now, as its closing does: a node with reader processes ends
 * them first, so the feeds its readers pass on end too and the readers can stop (node.ts).
 */
export function endChangeFeeds(app: FastifyInstance): void {
  for (const stop of openFeeds.get(app) ?? []) stop.abort();
}

/** An open feed as `sendFeed` streams it: its first line (already read) and the rest. */
interface OpenFeed {
  first: ChangeLine;
  lines: AsyncGenerator<ChangeLine, void, undefined>;
  /** Ends the feed; sendFeed aborts it when the client leaves or the app closes. */
  stop: AbortController;
}

/**
 * The frames written for each entry, by the entry: feeds that read the same entries get the
 * same objects from the log (storage/followed-entries.ts), so each is written out once.
 */
const entryFrames = { ndjson: new WeakMap<object, string>(), sse: new WeakMap<object, string>() };

/** One line's frame: an entry's JSON, or a heartbeat; in SSE its id is where to resume. */
function lineFrame(sse: boolean, line: ChangeLine): string {
  if ('heartbeat' in line) {
    // SSE: a heartbeat is a comment, which keeps the connection alive unseen; its id line
    // moves the EventSource's Last-Event-ID past entries a collection filter skipped.
    return sse ? `: heartbeat\nid: ${resumePoint(line)}\n\n` : `${JSON.stringify(line)}\n`;
  }
  const frames = sse ? entryFrames.sse : entryFrames.ndjson;
  let frame = frames.get(line);
  if (frame === undefined) {
    frame = sse
      ? `id: ${resumePoint(line)}\ndata: ${JSON.stringify(line)}\n\n`
      : `${JSON.stringify(line)}\n`;
    frames.set(line, frame);
  }
  return frame;
}

function errorFrame(sse: boolean, body: unknown): string {
  const json = JSON.stringify(body);
  return sse ? `event: feed-error\ndata: ${json}\n\n` : `${json}\n`;
}

/**
 * The frames of one feed: its lines as the implementation gives them (a heartbeat first, then
 * entries and heartbeats), and an error line if it fails (a trim past the feed, the node
 * closing, a shard leaving). Pulled by the response stream, so a client that stops reading
 * stops it.
 */
async function* frames(
  request: FastifyRequest,
  feed: OpenFeed,
  sse: boolean,
  closed: () => void,
): AsyncGenerator<string> {
  try {
    yield lineFrame(sse, feed.first);
    for await (const line of feed.lines) yield lineFrame(sse, line);
  } catch (error) {
    yield errorFrame(sse, streamErrorBody(request, error));
  } finally {
    feed.stop.abort();
    await feed.lines.return();
    closed();
  }
}

/**
 * Answers a feed: headers now (its first line was read, so a 400 or 410 was already thrown),
 * then `frames` through a stream that pulls one frame at a time as the socket drains.
 */
function sendFeed(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  feed: OpenFeed,
  { sse, metrics }: { sse: boolean; metrics: ApiContext['metrics'] },
): FastifyReply {
  const feeds = openFeeds.get(app);
  feeds?.add(feed.stop);
  metrics.changeFeedsOpen++;
  const closed = () => {
    feeds?.delete(feed.stop);
    metrics.changeFeedsOpen--;
  };
  // One frame ahead of the socket at most (a frame may be a whole bulk insert's entry): the
  // rest waits in the change log.
  const body = Readable.from(frames(request, feed, sse, closed), { highWaterMark: 1 });
  // A client that leaves ends the follow, even while it waits for the next commit.
  reply.raw.on('close', () => feed.stop.abort());
  // The connection closes with the feed: a shutdown ends every feed, and a keep-alive
  // connection left behind by one would hold the server open until its idle timeout.
  reply.header('connection', 'close');
  if (sse) {
    reply.header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
    reply.type('text/event-stream; charset=utf-8');
  } else {
    reply.type('application/x-ndjson');
  }
  return reply.send(body);
}

/** A collection name's error with the parameter named; any other error as it is. */
function namingCollection(error: unknown): unknown {
  if (!isDbError(error, 'ERR_COLLECTION_NAME_INVALID')) return error;
  const values = { parameter: 'collection', message: error.message };
  return relayedError(error.code, 'queryParameter', values, {
    ...error.details,
    parameter: 'collection',
  });
}

/** What tests change of the feeds: their silences and their bound. */
export interface FeedOptions {
  /** Silence before a heartbeat (default CHANGES_HEARTBEAT_MS). */
  heartbeatMs?: number | undefined;
  /** Feeds open at once (default CHANGE_FEEDS_MAX). */
  feedsMax?: number | undefined;
}

/**
 * GET /changes over `api` (a node's or a router's). At most CHANGE_FEEDS_MAX feeds are open
 * at once: every commit wakes each feed, so thousands of idle ones made every write slower,
 * and past the bound a feed is refused with ERR_CHANGE_FEEDS_FULL (503) before it starts.
 */
export function registerChangesRoutes(
  app: FastifyInstance,
  { api, metrics }: ApiContext,
  { heartbeatMs, feedsMax = CHANGE_FEEDS_MAX }: FeedOptions = {},
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
      const open = openFeeds.get(app)?.size ?? 0;
      if (open >= feedsMax) throw dbError('ERR_CHANGE_FEEDS_FULL', 'full', { limit: feedsMax });
      const asked = feedRequest(request);
      const stop = new AbortController();
      const lines = api().changesWithHeartbeats({
        ...(asked.since !== undefined && { since: asked.since }),
        ...(asked.collection !== undefined && { collection: asked.collection }),
        ...(heartbeatMs !== undefined && { heartbeatMs }),
        signal: stop.signal,
      });
      // The first line is the heartbeat that says where the feed starts; a refusal (a bad
      // since or collection, a trimmed log, a shard that does not answer) throws here, before
      // any header is sent.
      const first = await lines.next().catch((error: unknown) => {
        throw namingCollection(error);
      });
      // Nothing aborted it yet, so every feed gives its opening heartbeat.
      assert(!first.done, 'a change feed ended before its first heartbeat');
      return sendFeed(
        app,
        request,
        reply,
        { first: first.value, lines, stop },
        {
          sse: asked.sse,
          metrics,
        },
      );
    },
  );
}

/**
 * Proves GET /changes on a node over real sockets: NDJSON with a heartbeat first and while
 * idle, the retained log from `since` then live commits, the default start (now), the
 * collection filter, SSE with event ids and Last-Event-ID resuming, 400 naming a bad
 * parameter, 410 with the floor for a trimmed `since`, the API key, a client that hangs up
 * ending the follow (the open-feeds gauge back to 0), a reader that stops reading holding
 * the node to a bounded buffer, and the app's close ending its feeds.
 */

import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { openFeed } from '../../../test/support/feed-reader.js';
import { makeTempDir } from '../../../test/support/temp-dir.js';
import type { OpenOptions } from '../../engine/index.js';
import { type Database, open } from '../../engine/index.js';
import { buildApp } from '../app.js';

const KEY = 'feed-key';
const auth = { authorization: `Bearer ${KEY}` };

interface Node {
  db: Database;
  app: FastifyInstance;
  url: string;
  /** The last GET /changes response and its body stream (to see what the node buffers). */
  lastFeed(): { response: ServerResponse; body: Readable } | undefined;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startNode(
  options: OpenOptions = {},
  heartbeatMs = 60_000,
  changeFeedsMax?: number,
): Promise<Node> {
  const { dir, cleanup } = makeTempDir();
  const db = await open(dir, options);
  const app = buildApp(db, {
    apiKey: KEY,
    changesHeartbeatMs: heartbeatMs,
    ...(changeFeedsMax !== undefined && { changeFeedsMax }),
  });
  let last: { response: ServerResponse; body: Readable } | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/changes') && payload instanceof Readable) {
      last = { response: reply.raw, body: payload };
    }
    return payload;
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanups.push(
    cleanup,
    () => db.close(),
    () => app.close(),
  );
  return { db, app, url, lastFeed: () => last };
}

async function feedsOpen(node: Node): Promise<number> {
  const text = await (await node.app.inject({ url: '/metrics', headers: auth })).body;
  return Number(/^docdb_change_feeds_open (\d+)$/m.exec(text)?.[1]);
}

/** Polls `check` until it holds (a bounded wait, not a timed assertion). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`still not true after the bounded wait: ${what}`);
}

describe('GET /changes as NDJSON', () => {
  it('sends a heartbeat, the retained entries after since, then each commit', async () => {
    const node = await startNode();
    await node.db.collection('orders').insert({ pnr: 'A1' });
    await node.db.collection('orders').insert({ pnr: 'A2' });
    const feed = await openFeed(`${node.url}/changes?since=0`, auth);
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toContain('application/x-ndjson');
    // A feed's connection is not kept alive after it: a shutdown must not wait for it.
    expect(feed.headers.connection).toBe('close');
    expect(await feed.nextLine()).toMatchObject({ heartbeat: expect.any(Number), lastSeq: 0 });
    const first = await feed.nextLine();
    expect(first).toMatchObject({ seq: 1, op: 'insert', collection: 'orders' });
    expect((first.documents as Array<{ doc: unknown }>)[0]?.doc).toMatchObject({ pnr: 'A1' });
    expect(await feed.nextLine()).toMatchObject({ seq: 2 });
    const id = (await node.db.collection('orders').insert({ pnr: 'A3' })) as string;
    expect(await feed.nextLine()).toMatchObject({ seq: 3, op: 'insert' });
    await node.db.collection('orders').delete(id);
    expect(await feed.nextLine()).toMatchObject({ seq: 4, op: 'delete', id });
    feed.close();
  });

  it('starts from now without since; the first heartbeat says where', async () => {
    const node = await startNode();
    await node.db.collection('a').insert({ n: 1 });
    const feed = await openFeed(`${node.url}/changes`, auth);
    expect(await feed.nextLine()).toMatchObject({ lastSeq: 1 });
    await node.db.collection('a').insert({ n: 2 });
    expect(await feed.nextLine()).toMatchObject({ seq: 2 });
    feed.close();
  });

  it('filters by collection and heartbeats past what it skipped while idle', async () => {
    const node = await startNode({}, 20);
    const feed = await openFeed(`${node.url}/changes?since=0&collection=Orders`, auth);
    expect(await feed.nextLine()).toMatchObject({ lastSeq: 0 });
    await node.db.collection('other').insert({ n: 1 });
    await node.db.collection('orders').insert({ n: 2 });
    await node.db.collection('other').insert({ n: 3 });
    let line = await feed.nextLine();
    while (line.heartbeat !== undefined) line = await feed.nextLine();
    expect(line).toMatchObject({ seq: 2, collection: 'orders' });
    // Only heartbeats follow; one of them reaches seq 3, which the filter skipped.
    for (;;) {
      line = await feed.nextLine();
      expect(line.heartbeat).toEqual(expect.any(Number));
      if (line.lastSeq === 3) break;
    }
    feed.close();
  });
});

describe('the bound on open feeds', () => {
  it('serves feeds up to the bound, refuses one more with 503, and serves again once one closes', async () => {
    const node = await startNode({}, 60_000, 3);
    const feeds = [];
    for (let k = 0; k < 3; k++) {
      const feed = await openFeed(`${node.url}/changes`, auth);
      expect(feed.status).toBe(200);
      expect(await feed.nextLine()).toMatchObject({ lastSeq: 0 });
      feeds.push(feed);
    }
    const refused = await node.app.inject({ url: '/changes', headers: auth });
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toMatchObject({
      code: 'ERR_CHANGE_FEEDS_FULL',
      error: expect.stringContaining('3 change feeds open'),
    });
    feeds.pop()?.close();
    await eventually(async () => (await feedsOpen(node)) === 2, 'a closed feed is counted out');
    const again = await openFeed(`${node.url}/changes`, auth);
    expect(again.status).toBe(200);
    again.close();
    for (const feed of feeds) feed.close();
  });
});

describe('GET /changes as Server-Sent Events', () => {
  it('sends each entry as an event with its seq as id, and resumes from Last-Event-ID', async () => {
    const node = await startNode();
    for (let n = 1; n <= 3; n++) await node.db.collection('a').insert({ n });
    const sse = { ...auth, accept: 'text/event-stream' };
    const feed = await openFeed(`${node.url}/changes?since=0`, sse);
    expect(feed.headers['content-type']).toContain('text/event-stream');
    expect(await feed.nextEvent()).toEqual({ comment: 'heartbeat', id: '0' });
    const first = await feed.nextEvent();
    expect(first.id).toBe('1');
    expect(JSON.parse(first.data as string)).toMatchObject({ seq: 1, op: 'insert' });
    feed.close();
    // An EventSource reconnects to the same URL with the last id it saw: that id wins.
    const resumed = await openFeed(`${node.url}/changes?since=0`, {
      ...sse,
      'last-event-id': '2',
    });
    expect(await resumed.nextEvent()).toMatchObject({ id: '2' });
    expect(await resumed.nextEvent()).toMatchObject({ id: '3' });
    resumed.close();
    // While idle, a comment carries the position as the id, past entries a filter skipped.
    const quiet = await startNode({}, 20);
    await quiet.db.collection('other').insert({ n: 1 });
    const filtered = await openFeed(`${quiet.url}/changes?since=0&collection=a`, sse);
    let event = await filtered.nextEvent();
    while (event.id !== '1') event = await filtered.nextEvent();
    expect(event).toEqual({ comment: 'heartbeat', id: '1' });
    filtered.close();
  });
});

describe('GET /changes refusals', () => {
  it('answers 400 naming a bad since, Last-Event-ID or collection', async () => {
    const node = await startNode();
    for (const [url, headers, parameter] of [
      ['/changes?since=abc', {}, 'since'],
      ['/changes?since=-1', {}, 'since'],
      ['/changes?since=7', {}, 'since'],
      ['/changes', { 'last-event-id': 'x' }, 'since'],
      ['/changes?collection=a%20b', {}, 'collection'],
    ] as const) {
      const answer = await node.app.inject({ url, headers: { ...auth, ...headers } });
      expect(answer.statusCode, url).toBe(400);
      expect(answer.json(), url).toMatchObject({ parameter });
      expect(answer.json().error, url).toContain(parameter);
    }
    const head = await node.app.inject({ method: 'HEAD', url: '/changes', headers: auth });
    expect(head.statusCode).toBe(404);
    const unknown = await node.app.inject({ url: '/changes?limit=3', headers: auth });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toContain('limit');
  });

  it('answers 410 with the floor when since was trimmed', async () => {
    const node = await startNode({ changeLogRetainBytes: 64 * 1024 });
    const filler = 'x'.repeat(4000);
    for (let n = 0; n < 60; n++) await node.db.collection('a').insert({ n, filler });
    const { seqFloor } = node.db.nodeState();
    expect(seqFloor).toBeGreaterThan(1);
    const answer = await node.app.inject({ url: '/changes?since=1', headers: auth });
    expect(answer.statusCode).toBe(410);
    expect(answer.json()).toMatchObject({ code: 'ERR_CHANGES_TRIMMED', since: 1, seqFloor });
    const feed = await openFeed(`${node.url}/changes?since=${seqFloor}`, auth);
    expect(feed.status).toBe(200);
    expect(await feed.nextLine()).toMatchObject({ lastSeq: seqFloor });
    expect(await feed.nextLine()).toMatchObject({ seq: seqFloor + 1 });
    feed.close();
  });

  it('ends a feed the log was trimmed past with an error line naming the floor', async () => {
    const node = await startNode({ changeLogRetainBytes: 64 * 1024 });
    const feed = await openFeed(`${node.url}/changes`, auth);
    await feed.nextLine();
    // The reader lags: the node holds a few entries, the rest are trimmed before it reads them.
    feed.pause();
    const filler = 'z'.repeat(60_000);
    for (let n = 0; n < 200; n++) await node.db.collection('a').insert({ n, filler });
    feed.resume();
    let line = await feed.nextLine();
    while (line.code === undefined) line = await feed.nextLine();
    expect(line).toMatchObject({
      code: 'ERR_CHANGES_TRIMMED',
      seqFloor: expect.any(Number),
      error: expect.stringContaining('no longer holds'),
    });
    expect(await feed.rest()).toBe('');
  });

  it('needs the API key like every other route', async () => {
    const node = await startNode();
    const answer = await node.app.inject({ url: '/changes' });
    expect(answer.statusCode).toBe(401);
  });
});

describe('GET /changes and its client', () => {
  it('a client that hangs up ends the follow', async () => {
    const node = await startNode();
    const feeds = await Promise.all([1, 2, 3].map(() => openFeed(`${node.url}/changes`, auth)));
    for (const feed of feeds) await feed.nextLine();
    expect(await feedsOpen(node)).toBe(3);
    for (const feed of feeds) feed.close();
    // Nothing is written: each follow waits for a commit, and the hang-up alone ends it.
    await eventually(async () => (await feedsOpen(node)) === 0, 'every feed closed');
  });

  it('a reader that stops reading holds the node to a bounded buffer', async () => {
    const node = await startNode();
    const feed = await openFeed(`${node.url}/changes`, auth);
    await feed.nextLine();
    feed.pause();
    const filler = 'y'.repeat(100_000);
    // 40 MB of entries, far more than a socket holds.
    for (let batch = 0; batch < 40; batch++) {
      await node.db.collection('big').insertMany(Array.from({ length: 10 }, () => ({ filler })));
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const { response, body } = node.lastFeed() as { response: ServerResponse; body: Readable };
    // A few frames of 1 MB each at most wait in the node; the rest stays in the change log.
    expect(body.readableLength).toBeLessThanOrEqual(4);
    const written = response.writableLength + (response.socket?.writableLength ?? 0);
    expect(written).toBeLessThan(4 * 1024 * 1024);
    feed.resume();
    let seq = 0;
    while (seq < 40) seq = Number((await feed.nextLine()).seq ?? seq);
    feed.close();
  });

  it('closing the app ends its feeds', async () => {
    const node = await startNode();
    const feed = await openFeed(`${node.url}/changes`, auth);
    await feed.nextLine();
    await node.app.close();
    expect(await feed.rest()).toBe('');
  });
});

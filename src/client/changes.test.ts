/**
 * Proves `client.changes` against a real node on a socket: entries after `since` then live
 * commits with heartbeats hidden, `changesWithHeartbeats` starting with the feed's position,
 * the collection filter, 410 ERR_CHANGES_TRIMMED with the floor before the first entry, a
 * 400 naming the parameter, and `signal` hanging up (the node's feed closes with it).
 */

import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, type OpenOptions, open } from '../engine/index.js';
import { buildApp } from '../server/app.js';
import { connect, type DocdbClient } from './index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startNode(
  options: OpenOptions = {},
): Promise<{ db: Database; client: DocdbClient; feedsOpen(): Promise<number> }> {
  const { dir, cleanup } = makeTempDir();
  const db = await open(dir, options);
  const app = buildApp(db, { apiKey: 'k' });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const client = connect(url, { apiKey: 'k' });
  cleanups.push(
    cleanup,
    () => db.close(),
    () => app.close(),
    () => client.close(),
  );
  const feedsOpen = async () =>
    Number(/^docdb_change_feeds_open (\d+)$/m.exec(await client.metrics())?.[1]);
  return { db, client, feedsOpen };
}

describe('client.changes', () => {
  it('yields the entries after since, then each commit, heartbeats hidden', async () => {
    const { db, client } = await startNode();
    await db.collection('orders').insert({ pnr: 'A1' });
    const stop = new AbortController();
    const feed = client.changes({ since: 0, signal: stop.signal });
    expect((await feed.next()).value).toMatchObject({ seq: 1, op: 'insert' });
    const pending = feed.next();
    await db.collection('orders').insert({ pnr: 'A2' });
    const { value } = await pending;
    expect(value).toMatchObject({ seq: 2, collection: 'orders' });
    stop.abort();
    expect((await feed.next()).done).toBe(true);
  });

  it('with heartbeats starts with where the feed stands, and filters by collection', async () => {
    const { db, client } = await startNode();
    await db.collection('other').insert({ n: 1 });
    const stop = new AbortController();
    const feed = client.changesWithHeartbeats({ collection: 'orders', signal: stop.signal });
    expect((await feed.next()).value).toMatchObject({ heartbeat: expect.any(Number), lastSeq: 1 });
    const pending = feed.next();
    await db.collection('other').insert({ n: 2 });
    await db.collection('orders').insert({ n: 3 });
    expect((await pending).value).toMatchObject({ seq: 3, collection: 'orders' });
    stop.abort();
  });

  it('throws 410 ERR_CHANGES_TRIMMED with the floor, and 400 naming a bad parameter', async () => {
    const { db, client } = await startNode({ changeLogRetainBytes: 64 * 1024 });
    const filler = 'x'.repeat(4000);
    for (let n = 0; n < 60; n++) await db.collection('a').insert({ n, filler });
    const { seqFloor } = db.nodeState();
    await expect(client.changes({ since: 1 }).next()).rejects.toMatchObject({
      code: 'ERR_CHANGES_TRIMMED',
      status: 410,
      details: { since: 1, seqFloor },
    });
    await expect(client.changes({ collection: 'a b' }).next()).rejects.toMatchObject({
      code: 'ERR_COLLECTION_NAME_INVALID',
      details: { parameter: 'collection' },
    });
  });

  it('a signal hangs up: the node closes its side of the feed', async () => {
    const { client, feedsOpen } = await startNode();
    const stop = new AbortController();
    const feed = client.changesWithHeartbeats({ signal: stop.signal });
    await feed.next();
    expect(await feedsOpen()).toBe(1);
    const pending = feed.next();
    stop.abort();
    expect((await pending).done).toBe(true);
    for (let tries = 0; tries < 200 && (await feedsOpen()) > 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await feedsOpen()).toBe(0);
  });
});

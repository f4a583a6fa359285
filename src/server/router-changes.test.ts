/**
 * Proves GET /changes through the router over three real nodes on sockets: every shard's
 * entries merged, each naming its shard and carrying the router cursor; a replicated
 * collection's writes once; resuming from a line's cursor loses and repeats nothing; SSE ids
 * are cursors and Last-Event-ID resumes; a shard's trimmed log is a 410 naming the shard and
 * its floor; a bad cursor or an unplaced collection is a 400; the API key; and a consumer
 * that hangs up closes the shards' feeds.
 */

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFeed } from '../../test/support/feed-reader.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { connect } from '../client/index.js';
import { type ClusterConfig, Router } from '../cluster/index.js';
import { type Database, open } from '../engine/index.js';
import { buildApp } from './app.js';
import { buildRouterApp } from './router-app.js';

interface Shard {
  db: Database;
  app: FastifyInstance;
  url: string;
}

const auth = { authorization: 'Bearer rk' };
const filler = 'x'.repeat(4000);

async function startShard(): Promise<Shard & { cleanup: () => void }> {
  const { dir, cleanup } = makeTempDir();
  // A small log, so a test can trim one shard's.
  const db = await open(dir, { changeLogRetainBytes: 64 * 1024 });
  const app = buildApp(db);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { db, app, url, cleanup };
}

async function feedsOpen(shard: Shard): Promise<number> {
  const text = (await shard.app.inject({ url: '/metrics' })).body;
  return Number(/^docdb_change_feeds_open (\d+)$/m.exec(text)?.[1]);
}

describe('GET /changes through the router', () => {
  let shards: Array<Shard & { cleanup: () => void }>;
  let app: FastifyInstance;
  let url: string;
  const client = () => connect(url, { apiKey: 'rk' });

  beforeAll(async () => {
    shards = await Promise.all([1, 2, 3].map(startShard));
    const config: ClusterConfig = {
      version: 1,
      router: { port: 6000 },
      shards: shards.map((s, i) => ({ name: `s${i + 1}`, endpoint: s.url })),
      collections: {
        orders: { strategy: 'hash', path: 'pnr' },
        airports: { strategy: 'replicated' },
      },
    };
    app = buildRouterApp(new Router(config), { apiKey: 'rk' });
    url = await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await app.close();
    for (const shard of shards) {
      await shard.app.close();
      await shard.db.close();
      shard.cleanup();
    }
  });

  it('merges every shard, each line naming its shard and the cursor to resume after it', async () => {
    const c = client();
    const feed = await openFeed(`${url}/changes?collection=orders`, auth);
    expect(feed.status).toBe(200);
    const opening = await feed.nextLine();
    expect(opening.cursor).toMatch(/^s1:\d+,s2:\d+,s3:\d+$/);
    const pnrs = Array.from({ length: 30 }, (_, n) => `P${n}`);
    await c.bulk(
      'orders',
      pnrs.map((pnr) => ({ pnr })),
    );
    const seen: string[] = [];
    const shardsSeen = new Set<string>();
    let last: Record<string, unknown> = {};
    while (seen.length < pnrs.length) {
      last = await feed.nextLine();
      if (last.heartbeat !== undefined) continue;
      expect(last.op).toBe('insert');
      shardsSeen.add(last.shard as string);
      for (const d of last.documents as Array<{ doc: { pnr: string } }>) seen.push(d.doc.pnr);
    }
    expect(seen.sort()).toEqual([...pnrs].sort());
    expect(shardsSeen.size).toBe(3);
    feed.close();

    // Resume from the last line's cursor: only what came after, nothing twice.
    await c.insert('orders', { pnr: 'LATE' });
    const resumed = c.changes({ since: last.cursor as string, collection: 'orders' });
    const next = (await resumed.next()).value;
    expect(next).toMatchObject({ op: 'insert', cursor: expect.any(String) });
    expect(
      (next as unknown as { documents: Array<{ doc: { pnr: string } }> }).documents[0]?.doc.pnr,
    ).toBe('LATE');
    await resumed.return();
    await c.close();
  });

  it('sends a replicated collection once, and resumes SSE from Last-Event-ID', async () => {
    const c = client();
    const sse = { ...auth, accept: 'text/event-stream' };
    const feed = await openFeed(`${url}/changes?collection=airports`, sse);
    const opening = await feed.nextEvent();
    expect(opening).toMatchObject({ comment: 'heartbeat', id: expect.stringMatching(/^s1:/) });
    await c.insert('airports', { code: 'AMS' });
    await c.insert('airports', { code: 'CDG' });
    const first = await feed.nextEvent();
    const line = JSON.parse(first.data as string);
    expect(line).toMatchObject({ op: 'insert', shard: 's1', cursor: first.id });
    feed.close();
    const resumed = await openFeed(`${url}/changes?collection=airports`, {
      ...sse,
      'last-event-id': first.id as string,
    });
    await resumed.nextEvent();
    const second = JSON.parse((await resumed.nextEvent()).data as string);
    expect(second.documents[0].doc.code).toBe('CDG');
    expect(second.shard).toBe('s1');
    resumed.close();
    await c.close();
  });

  it('answers 410 naming the shard whose log was trimmed past the cursor', async () => {
    const s2 = shards[1] as Shard;
    for (let n = 0; n < 60; n++) await s2.db.collection('junk').insert({ n, filler });
    const { seqFloor } = s2.db.nodeState();
    expect(seqFloor).toBeGreaterThan(0);
    const answer = await app.inject({ url: '/changes?since=s1:0,s2:0,s3:0', headers: auth });
    expect(answer.statusCode).toBe(410);
    expect(answer.json()).toMatchObject({
      code: 'ERR_CHANGES_TRIMMED',
      shard: 's2',
      since: 0,
      seqFloor,
    });
    expect(answer.json().error).toContain('shard s2');
  });

  it('refuses a bad cursor, an unplaced collection and a missing key', async () => {
    for (const since of ['abc', 's1:-1', 's1:1,,s2:2', '']) {
      const answer = await app.inject({
        url: `/changes?since=${encodeURIComponent(since)}`,
        headers: auth,
      });
      expect(answer.statusCode, since).toBe(400);
      expect(answer.json(), since).toMatchObject({ code: 'ERR_BAD_ARGUMENT', parameter: 'since' });
    }
    const past = await app.inject({ url: '/changes?since=s1:999999', headers: auth });
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({ parameter: 'since', shard: 's1' });
    expect(past.json().error).toContain('shard s1');
    const unplaced = await app.inject({ url: '/changes?collection=nowhere', headers: auth });
    expect(unplaced.statusCode).toBe(400);
    expect(unplaced.json().code).toBe('ERR_CLUSTER_COLLECTION_UNKNOWN');
    expect((await app.inject({ url: '/changes' })).statusCode).toBe(401);
  });

  it('a consumer that hangs up closes the shards’ feeds', async () => {
    const allClosed = async () => {
      for (let tries = 0; tries < 200; tries++) {
        const open = await Promise.all(shards.map(feedsOpen));
        if (open.every((n) => n === 0)) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error('the shards still follow for a consumer that left');
    };
    // The earlier tests' consumers left too: their feeds close first.
    await allClosed();
    const feed = await openFeed(`${url}/changes`, auth);
    await feed.nextLine();
    for (const shard of shards) expect(await feedsOpen(shard)).toBe(1);
    feed.close();
    await allClosed();
  });
});

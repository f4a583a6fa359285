/**
 * Proves the router's HTTP face over three real nodes on sockets: the node's paths, statuses,
 * bodies and X-DOCDB-* headers (JSON and NDJSON queries, inserts with Location, by-key and
 * by-_id, bulk, indexes, stats, collections, health), the router's errors as documented codes
 * (400 for an unknown collection naming `docdb cluster add-collection`, 400 for a missing
 * shard key, 503 naming a shard that is down, refuses the router's key or refuses writes),
 * /health's status and readOnly from the shards (ok, degraded, down), the API key, and the
 * node's 404 for an unknown path.
 */

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_CODES, type Harness, startHarness } from '../../test/support/app-harness.js';
import { refusedUrl } from '../../test/support/refused.js';
import { type ClusterConfig, Router } from '../cluster/index.js';
import { SEED_INDEXES } from '../engine/index.js';
import { buildRouterApp } from './router-app.js';

interface Node {
  harness: Harness;
  url: string;
}

async function startNode(name: string): Promise<Node> {
  const harness = await startHarness({ nodeName: name });
  const url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, url };
}

describe('the router app', () => {
  let shards: Node[];
  let app: FastifyInstance;
  let config: ClusterConfig;

  beforeAll(async () => {
    shards = await Promise.all(['s1', 's2', 's3'].map(startNode));
    config = {
      version: 1,
      router: { port: 6000 },
      shards: shards.map((s, i) => ({ name: `s${i + 1}`, endpoint: s.url })),
      collections: {
        orders: { strategy: 'hash', path: 'pnr' },
        airports: { strategy: 'replicated' },
      },
    };
    app = buildRouterApp(new Router(config), { apiKey: 'k' });
  });

  afterAll(async () => {
    await app.close();
    for (const node of shards) await node.harness.close();
  });

  const call = async (method: string, url: string, json?: unknown, headers = {}) => {
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: 'Bearer k', ...headers },
      ...(json !== undefined && { payload: json as object }),
    });
    const body = response.headers['content-type']?.toString().includes('application/json')
      ? response.json()
      : response.body;
    if (response.statusCode >= 400) {
      expect(DOCUMENTED_CODES.has(body.code), `${body.code} documented`).toBe(true);
    }
    expect(typeof response.headers['x-request-id']).toBe('string');
    return { status: response.statusCode, headers: response.headers, body };
  };

  it('writes and reads documents as a node does', async () => {
    const inserted = await call('POST', '/collections/orders', { pnr: 'A1', n: 1 });
    expect(inserted.status).toBe(201);
    expect(inserted.headers.location).toBe(`/collections/orders/${inserted.body.id}`);
    const bulk = await call('POST', '/collections/orders/bulk', [
      { pnr: 'A2', n: 2 },
      { pnr: 'A3', n: 3 },
      { pnr: 'A4', n: 4 },
    ]);
    expect(bulk.status).toBe(200);
    expect(bulk.body.ids).toHaveLength(3);
    const one = await call('GET', `/collections/orders/${inserted.body.id}`);
    expect(one.body.pnr).toBe('A1');
    const byKey = await call('GET', '/collections/orders/by/pnr/A2');
    expect(byKey.body.count).toBe(1);
    expect(byKey.body.plan).toMatch(/^SINGLE_SHARD/);
    const list = await call('GET', '/collections/orders?limit=2');
    expect(list.body.count).toBe(2);
    expect((await call('DELETE', '/collections/orders/by/pnr/A4')).body).toEqual({ deleted: 1 });
    expect((await call('DELETE', '/collections/orders')).status).toBe(400);
    await call('POST', '/collections/airports', { code: 'AMS' });
    expect((await call('GET', '/collections')).body).toEqual(['airports', 'orders']);
  });

  it("passes a hash collection's ETag and If-Match through; refuses If-Match on a replicated one", async () => {
    const { body } = await call('POST', '/collections/orders', { pnr: 'E1', n: 1 });
    const read = await call('GET', `/collections/orders/${body.id}`);
    const tag = String(read.headers.etag);
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(
      (
        await call(
          'PUT',
          `/collections/orders/${body.id}`,
          { pnr: 'E1', n: 2 },
          { 'if-match': tag },
        )
      ).status,
    ).toBe(200);
    const stale = await call('DELETE', `/collections/orders/${body.id}`, undefined, {
      'if-match': tag,
    });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('ERR_DOCUMENT_CHANGED');
    const current = String((await call('GET', `/collections/orders/${body.id}`)).headers.etag);
    expect(
      (await call('DELETE', `/collections/orders/${body.id}`, undefined, { 'if-match': current }))
        .status,
    ).toBe(200);
    const airport = await call('POST', '/collections/airports', { code: 'LIS' });
    const copy = await call('GET', `/collections/airports/${airport.body.id}`);
    expect(copy.headers.etag).toBeUndefined();
    const refused = await call('DELETE', `/collections/airports/${airport.body.id}`, undefined, {
      'if-match': '"x"',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('replicated');
    await call('DELETE', `/collections/airports/${airport.body.id}`);
  });

  it('answers POST /query with the plan header, JSON or NDJSON', async () => {
    const sql = 'SELECT pnr, n FROM orders ORDER BY n DESC LIMIT 2';
    const json = await call('POST', '/query', { sql });
    expect(json.status).toBe(200);
    expect(json.headers['x-docdb-plan']).toMatch(/^SCATTER\(3\): /);
    expect(json.headers['x-docdb-count']).toBe('2');
    expect(json.body.documents.map((d: { n: number }) => d.n)).toEqual([3, 2]);
    const ndjson = await call('POST', '/query?stream=true', { sql });
    const lines = String(ndjson.body)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0].count).toBe(2);
    expect(lines.slice(1).map((d: { n: number }) => d.n)).toEqual([3, 2]);
    const avg = await call('POST', '/query', { sql: 'SELECT AVG(n) AS mean FROM orders' });
    expect(avg.body.documents).toEqual([{ mean: 2 }]);
  });

  it('maps the router errors to their statuses and codes', async () => {
    const unknown = await call('POST', '/query', { sql: 'SELECT * FROM nowhere' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('ERR_CLUSTER_COLLECTION_UNKNOWN');
    expect(unknown.body.error).toContain('docdb cluster add-collection');
    expect(unknown.headers['x-docdb-plan']).toBe('NONE');
    const missing = await call('POST', '/collections/orders', { n: 1 });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('ERR_SHARD_KEY_MISSING');
    const restUnknown = await call('GET', '/collections/nowhere/by/a/b');
    expect(restUnknown.body.code).toBe('ERR_CLUSTER_COLLECTION_UNKNOWN');
    const route = await call('GET', '/nothing-here');
    expect(route.status).toBe(404);
    expect(route.body.code).toBe('ERR_ROUTE_NOT_FOUND');
    const noKey = await app.inject({ method: 'GET', url: '/collections' });
    expect(noKey.statusCode).toBe(401);
  });

  it('serves indexes, stats and its own health', async () => {
    const created = await call('POST', '/index', { collection: 'orders', path: 'n' });
    expect(created.status).toBe(201);
    const indexes = await call('GET', '/indexes/orders');
    expect(indexes.body.map((i: { paths: string[] }) => i.paths)).toContainEqual(['n']);
    const stats = await call('GET', '/stats');
    expect(stats.body.collections).toContainEqual({ name: 'orders', count: 3 });
    expect(stats.body.shards).toHaveLength(3);
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok', role: 'router', shards: 3 });
    const metrics = await call('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toMatch(
      /docdb_http_requests_total\{method="GET",route="\/indexes\/:collection",status="200"\} 1/,
    );
  });

  it('drops an index on every shard, passing over one that dropped it already', async () => {
    const created = await call('POST', '/index', { collection: 'orders', path: 'x', name: 'ByX' });
    expect(created.status).toBe(201);
    const onShards = async () =>
      Promise.all(
        shards.map(async (s) =>
          (await s.harness.request({ url: '/indexes/orders' })).body.map(
            (i: { name: string }) => i.name,
          ),
        ),
      );
    expect((await onShards()).every((names) => names.includes('ByX'))).toBe(true);
    // A drop that stopped half-way: the first shard has no such index any more.
    const first = shards[0] as Node;
    await first.harness.request({ method: 'DELETE', url: '/indexes/orders/ByX' });
    const dropped = await call('DELETE', '/indexes/orders/byx');
    expect(dropped.status).toBe(200);
    expect(dropped.body).toEqual({ collection: 'orders', dropped: 'ByX' });
    expect((await onShards()).some((names) => names.includes('ByX'))).toBe(false);
    const again = await call('DELETE', '/indexes/orders/ByX');
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ code: 'ERR_INDEX_NOT_FOUND', index: 'ByX' });
    const undeclared = await call('DELETE', '/indexes/nope/ByX');
    expect(undeclared.status).toBe(400);
    expect(undeclared.body.error).toContain('docdb cluster add-collection');
  });

  it('answers 503 naming a shard that is down', async () => {
    const down = buildRouterApp(
      new Router(
        { ...config, shards: [...config.shards, { name: 'gone', endpoint: refusedUrl() }] },
        { timeoutMs: 2000 },
      ),
    );
    try {
      const answer = await down.inject({
        method: 'POST',
        url: '/query',
        payload: { sql: 'SELECT * FROM orders' },
      });
      expect(answer.statusCode).toBe(503);
      expect(answer.json().code).toBe('ERR_SHARD_UNAVAILABLE');
      expect(answer.json().error).toContain('gone');
    } finally {
      await down.close();
    }
  });
});

describe("the router app's health and the shards' own failures", () => {
  let shards: Node[];
  let keyed: Node;
  const goneUrl = refusedUrl();
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    shards = await Promise.all(['h1', 'h2'].map(startNode));
    const harness = await startHarness({ nodeName: 'keyed', apiKey: 'right' });
    keyed = { harness, url: await harness.app.listen({ port: 0, host: '127.0.0.1' }) };
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const node of [...shards, keyed]) await node.harness.close();
  });

  function routerOver(extra: ClusterConfig['shards'], only = false): FastifyInstance {
    const own = shards.map((s, i) => ({ name: `h${i + 1}`, endpoint: s.url }));
    const app = buildRouterApp(
      new Router(
        {
          version: 1,
          router: { port: 6000 },
          shards: only ? extra : [...own, ...extra],
          collections: { airports: { strategy: 'replicated' } },
        },
        { timeoutMs: 2000 },
      ),
    );
    apps.push(app);
    return app;
  }

  const health = async (app: FastifyInstance) => {
    const answer = await app.inject({ method: 'GET', url: '/health' });
    expect(answer.statusCode).toBe(200);
    return answer.json();
  };

  it('says ok while every shard answers, degraded naming one that does not, down when none does', async () => {
    expect(await health(routerOver([]))).toMatchObject({
      status: 'ok',
      readOnly: false,
      role: 'router',
      shards: 2,
      shardsDown: [],
      shardsReadOnly: [],
    });
    const degraded = await health(routerOver([{ name: 'gone', endpoint: goneUrl }]));
    expect(degraded).toMatchObject({ status: 'degraded', readOnly: false, shards: 3 });
    expect(degraded.shardsDown).toEqual([
      { shard: 'gone', error: expect.stringContaining('gone') },
    ]);
    const down = await health(routerOver([{ name: 'gone', endpoint: goneUrl }], true));
    expect(down).toMatchObject({ status: 'down', shards: 1 });
  });

  it('shows readOnly while a shard refuses writes, and a write it refuses names it', async () => {
    const app = routerOver([]);
    const follower = (shards[1] as Node).harness.status;
    follower.readOnly = true;
    try {
      expect(await health(app)).toMatchObject({
        status: 'ok',
        readOnly: true,
        shardsReadOnly: ['h2'],
      });
      const refused = await app.inject({
        method: 'POST',
        url: '/collections/airports',
        payload: { code: 'AMS' },
      });
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ code: 'ERR_NODE_READ_ONLY', shard: 'h2' });
      expect(refused.json().error).toMatch(
        /^shard h2 \(http:\/\/127\.0\.0\.1:\d+\): this node is read-only/,
      );
    } finally {
      follower.readOnly = false;
    }
    expect((await health(app)).readOnly).toBe(false);
  });

  it("answers 503 naming a shard that refuses the router's API key, never the shard's 401", async () => {
    const app = routerOver([{ name: 'keyed', endpoint: keyed.url, apiKey: 'wrong' }]);
    const answer = await app.inject({
      method: 'POST',
      url: '/query',
      payload: { sql: 'INSERT INTO airports VALUES {"code": "BER"}' },
    });
    expect(answer.statusCode).toBe(503);
    expect(answer.json()).toMatchObject({ code: 'ERR_SHARD_UNAVAILABLE', shard: 'keyed' });
    expect(answer.json().error).toContain('shard keyed (');
    expect(answer.json().error).toContain("refused the router's API key");
    const status = await health(app);
    expect(status).toMatchObject({ status: 'degraded' });
    expect(status.shardsDown).toEqual([
      { shard: 'keyed', error: expect.stringContaining("refused the router's API key") },
    ]);
  });
});

describe('the router app: POST /seed and the admin routes', () => {
  let shards: Node[];
  let app: FastifyInstance;
  let undeclared: FastifyInstance;

  beforeAll(async () => {
    shards = await Promise.all(['a1', 'a2'].map(startNode));
    const config: ClusterConfig = {
      version: 1,
      router: { port: 6000 },
      shards: shards.map((s, i) => ({ name: `a${i + 1}`, endpoint: s.url })),
      collections: { orders: { strategy: 'hash', path: 'pnr' } },
    };
    app = buildRouterApp(new Router(config));
    undeclared = buildRouterApp(new Router({ ...config, collections: {} }));
  });

  afterAll(async () => {
    await app.close();
    await undeclared.close();
    for (const node of shards) await node.harness.close();
  });

  const post = async (url: string, json?: unknown, on = app) => {
    const response = await on.inject({
      method: 'POST',
      url,
      ...(json !== undefined && { payload: json as object }),
    });
    return { status: response.statusCode, body: response.json() };
  };

  it('seeds the sample orders across the shards, with the sample indexes on each', async () => {
    const seeded = await post('/seed', { orders: 300, seed: 3 });
    expect(seeded.status).toBe(200);
    expect(seeded.body).toEqual({
      collection: 'orders',
      inserted: 300,
      skipped: 0,
      indexes: SEED_INDEXES.map((i) => i.name),
    });
    const counts = shards.map((s) => s.harness.db.collection('orders').count());
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(300);
    for (const s of shards) {
      const names = s.harness.db
        .collection('orders')
        .listIndexes()
        .map((i) => i.name);
      expect(names).toContain('idx_orders_pnr');
      expect(names).toContain('idx_orders_status_channel');
    }
    const again = await post('/seed', { orders: 100, seed: 3 });
    expect(again.body).toMatchObject({ inserted: 100, skipped: 0, indexes: [] });
    const total = await post('/query', { sql: 'SELECT COUNT(*) AS n FROM orders' });
    expect(total.body.documents).toEqual([{ n: 400 }]);
  });

  it('refuses to seed a cluster whose cluster.json does not declare orders', async () => {
    const refused = await post('/seed', { orders: 10 }, undeclared);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain('docdb cluster add-collection');
  });

  it('runs flush, checkpoint, compact and the rebuilds on every shard', async () => {
    const flushed = await post('/admin/flush');
    expect(flushed.status).toBe(200);
    expect(flushed.body.flushed).toBe(true);
    expect(flushed.body.shards.map((s: { name: string }) => s.name)).toEqual(['a1', 'a2']);
    const checkpoint = await post('/admin/checkpoint');
    expect(checkpoint.body.checkpointed).toBe(true);
    expect(checkpoint.body.shards).toHaveLength(2);
    const compacted = await post('/admin/compact/orders');
    expect(compacted.status).toBe(200);
    expect(compacted.body.fileSizeBytes).toBe(
      compacted.body.shards.reduce(
        (n: number, s: { fileSizeBytes: number }) => n + s.fileSizeBytes,
        0,
      ),
    );
    const rebuilt = await post('/admin/rebuild-indexes/orders');
    expect(rebuilt.body.rebuilt.map((i: { name: string }) => i.name)).toContain('idx_orders_pnr');
    const one = await post('/admin/rebuild-index/orders/idx_orders_status');
    expect(one.body.rebuilt.name).toBe('idx_orders_status');
    expect(one.body.shards).toHaveLength(2);
    const unknown = await post('/admin/compact/nowhere');
    expect(unknown.status).toBe(400);
  });
});

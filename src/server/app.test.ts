/**
 * Proves the app-wide rules of the REST API through `app.inject()` on a real database: the
 * public /health, API-key authentication (401 for a missing, wrong or differently-schemed key),
 * X-Request-Id on every answer, 404 for unknown routes, /stats, /collections, /openapi.json
 * listing every route and /metrics counters that move. Every answer is checked by the harness:
 * no 5xx, an X-Request-Id, and error bodies `{ error, code }` with a code docs/errors.md lists.
 * Request bodies and URLs are in requests.test.ts, read-only nodes in node-status.test.ts,
 * each route group in routes/.
 */

import { describe, expect, it, vi } from 'vitest';
import { harnessPerTest, type Json } from '../../test/support/app-harness.js';
import { VERSION } from '../version.js';
import { newNodeStatus } from './node-status.js';

const KEY = 'test-key-0123456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const start = harnessPerTest();

describe('GET /health', () => {
  it('answers status, node, version, readOnly, role and uptimeSeconds', async () => {
    const app = await start({ nodeName: 'alpha' });
    const health = await app.request({ url: '/health' });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ok',
      node: 'alpha',
      version: VERSION,
      readOnly: false,
      role: 'none',
      uptimeSeconds: expect.any(Number),
    });
    expect(Number.isInteger(health.body.uptimeSeconds)).toBe(true);
    expect(health.body.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('counts uptime from the open of the database and reports read-only and role', async () => {
    const status = newNodeStatus();
    const app = await start({ status, nodeName: 'beta' });
    const now = Date.now();
    const clock = vi.spyOn(Date, 'now').mockReturnValue(now + 5_500);
    try {
      expect((await app.request({ url: '/health' })).body.uptimeSeconds).toBe(5);
    } finally {
      clock.mockRestore();
    }
    status.readOnly = true;
    status.role = 'follower';
    const health = await app.request({ url: '/health' });
    expect(health.body).toMatchObject({ node: 'beta', readOnly: true, role: 'follower' });
  });

  it('is public with an API key: no header, a wrong key or another scheme all get 200', async () => {
    const app = await start({ apiKey: KEY });
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: `Basic ${KEY}` },
      { authorization: '' },
    ];
    for (const headers of variants) {
      const health = await app.request({ url: '/health', headers, auth: false });
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
    }
    // Like every endpoint, /health refuses a parameter it does not take (docs/rest.md).
    expect((await app.request({ url: '/health?probe=1', auth: false })).status).toBe(400);
  });
});

describe('authentication', () => {
  const guarded: { method: 'GET' | 'POST'; url: string; json?: unknown }[] = [
    { method: 'GET', url: '/stats' },
    { method: 'GET', url: '/collections' },
    { method: 'GET', url: '/collections/c' },
    { method: 'POST', url: '/collections/c', json: { a: 1 } },
    { method: 'POST', url: '/query', json: { sql: 'SELECT * FROM c' } },
    { method: 'POST', url: '/admin/flush' },
    { method: 'GET', url: '/openapi.json' },
    { method: 'GET', url: '/metrics' },
    { method: 'GET', url: '/no/such/route' },
  ];

  it('answers 401 ERR_UNAUTHORIZED without the header, on every endpoint but /health', async () => {
    const app = await start({ apiKey: KEY });
    for (const call of guarded) {
      const answer = await app.request({ ...call, auth: false });
      expect(answer.status, call.url).toBe(401);
      expect(answer.body).toEqual({
        error: expect.stringContaining('Authorization: Bearer'),
        code: 'ERR_UNAUTHORIZED',
      });
    }
    // Nothing the refused requests asked for happened.
    expect(app.db.collections()).toEqual([]);
  });

  it('answers 401 for a wrong key, a key of another length and an empty bearer', async () => {
    const app = await start({ apiKey: KEY });
    for (const authorization of [`Bearer ${KEY}x`, 'Bearer x', `Bearer ${KEY.slice(0, -1)}`]) {
      const answer = await app.request({ url: '/stats', headers: { authorization }, auth: false });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: 'wrong API key', code: 'ERR_UNAUTHORIZED' });
    }
    for (const authorization of ['Bearer', 'Bearer ', '']) {
      const answer = await app.request({ url: '/stats', headers: { authorization }, auth: false });
      expect(answer.status).toBe(401);
      expect(answer.body.error).toContain('missing API key');
    }
  });

  it('answers 401 for another scheme carrying the right key', async () => {
    const app = await start({ apiKey: KEY });
    for (const authorization of [`Basic ${KEY}`, `Token ${KEY}`, KEY]) {
      const answer = await app.request({ url: '/stats', headers: { authorization }, auth: false });
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe('ERR_UNAUTHORIZED');
    }
  });

  it('lets the right key through, the scheme in any case', async () => {
    const app = await start({ apiKey: KEY });
    expect((await app.request({ url: '/stats' })).status).toBe(200);
    for (const authorization of [`bearer ${KEY}`, `BEARER ${KEY}`, `Bearer   ${KEY}  `]) {
      const answer = await app.request({ url: '/stats', headers: { authorization }, auth: false });
      expect(answer.status).toBe(200);
    }
    // With the key, an unknown route is a 404, not a 401.
    expect((await app.request({ url: '/no/such/route' })).status).toBe(404);
  });

  it('needs no credentials when no key is configured, and ignores one sent anyway', async () => {
    const app = await start();
    expect((await app.request({ url: '/stats' })).status).toBe(200);
    const answer = await app.request({
      method: 'POST',
      url: '/collections/c',
      json: { a: 1 },
      headers: { authorization: 'Bearer anything' },
    });
    expect(answer.status).toBe(201);
  });
});

describe('X-Request-Id', () => {
  it('is a fresh UUID on every answer, errors included', async () => {
    const app = await start({ apiKey: KEY });
    const ids = new Set<string>();
    for (const call of [
      { url: '/health', auth: false },
      { url: '/stats' },
      { url: '/stats', auth: false },
      { url: '/nowhere' },
      { url: '/collections/missing' },
      {
        method: 'POST' as const,
        url: '/collections/c',
        raw: 'x',
        headers: { 'content-type': 'text/plain' },
      },
    ]) {
      const id = String((await app.request(call)).headers['x-request-id']);
      expect(id).toMatch(UUID);
      ids.add(id);
    }
    expect(ids.size).toBe(6);
  });

  it('echoes an incoming id of up to 128 safe characters and replaces any other', async () => {
    const app = await start();
    for (const given of ['abc-123', 'trace:42.a_b', 'x'.repeat(128)]) {
      const answer = await app.request({ url: '/health', headers: { 'x-request-id': given } });
      expect(answer.headers['x-request-id']).toBe(given);
    }
    for (const given of ['x'.repeat(129), 'has space', 'semi;colon', '']) {
      const answer = await app.request({ url: '/health', headers: { 'x-request-id': given } });
      expect(answer.headers['x-request-id']).toMatch(UUID);
    }
  });

  it('is echoed on errors and on NDJSON streams', async () => {
    const app = await start();
    await app.request({ method: 'POST', url: '/collections/c', json: { a: 1 } });
    const missing = await app.request({
      url: '/collections/nope',
      headers: { 'x-request-id': 'r1' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers['x-request-id']).toBe('r1');
    const stream = await app.request({
      method: 'POST',
      url: '/query?stream=true',
      json: { sql: 'SELECT * FROM c' },
      headers: { 'x-request-id': 'r2' },
    });
    expect(stream.headers['x-request-id']).toBe('r2');
  });
});

describe('unknown routes', () => {
  it('answer 404 ERR_ROUTE_NOT_FOUND naming the method and path without the query', async () => {
    const app = await start();
    for (const [method, url] of [
      ['GET', '/nowhere'],
      ['GET', '/collections/c/by/a'],
      ['PATCH', '/collections/c'],
      ['POST', '/health'],
      ['PUT', '/collections/c'],
      ['GET', '/index'],
      ['DELETE', '/indexes/c'],
      ['GET', '/admin/flush'],
    ] as const) {
      const answer = await app.request({ method, url: `${url}?q=1` });
      expect(answer.status, `${method} ${url}`).toBe(404);
      expect(answer.body).toEqual({
        error: `no endpoint ${method} ${url}`,
        code: 'ERR_ROUTE_NOT_FOUND',
      });
    }
  });

  it('answer 404 for unusual methods', async () => {
    const app = await start();
    for (const method of ['OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'MKCOL'] as const) {
      const answer = await app.request({ method, url: '/collections/c' });
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe('ERR_ROUTE_NOT_FOUND');
    }
  });
});

describe('GET /stats and GET /collections', () => {
  it('/stats reports the file, pages, per-collection counts and every index', async () => {
    const app = await start();
    await app.request({ method: 'POST', url: '/collections/b', json: { x: 1 } });
    await app.request({ method: 'POST', url: '/collections/a/bulk', json: [{ k: 1 }, { k: 2 }] });
    await app.request({ method: 'POST', url: '/index', json: { collection: 'a', path: 'k' } });
    const stats = await app.request({ url: '/stats' });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      file: expect.stringContaining(app.dir),
      fileSizeBytes: expect.any(Number),
      pageSizeBytes: expect.any(Number),
      pages: { used: expect.any(Number), free: expect.any(Number) },
    });
    expect(stats.body.collections).toEqual([
      {
        name: 'a',
        count: 2,
        indexes: [
          {
            name: 'idx_a_k',
            paths: ['k'],
            unique: false,
            multikey: false,
            state: 'ready',
            entries: 2,
          },
        ],
      },
      { name: 'b', count: 1, indexes: [] },
    ]);
  });

  it('/collections lists canonical names, sorted, and is empty on a new file', async () => {
    const app = await start();
    expect((await app.request({ url: '/collections' })).body).toEqual([]);
    for (const name of ['Zeta', 'alpha', 'a.b.c', 'with-dash_1']) {
      await app.request({ method: 'POST', url: `/collections/${name}`, json: {} });
    }
    expect((await app.request({ url: '/collections' })).body).toEqual([
      'a.b.c',
      'alpha',
      'with-dash_1',
      'zeta',
    ]);
  });
});

describe('GET /openapi.json', () => {
  it('lists every route with its methods and path parameters', async () => {
    const app = await start();
    const answer = await app.request({ url: '/openapi.json' });
    expect(answer.status).toBe(200);
    expect(answer.body.openapi).toMatch(/^3\./);
    expect(answer.body.info).toEqual({ title: 'docdb', version: VERSION });
    const expected: Record<string, string[]> = {
      '/health': ['get'],
      '/stats': ['get'],
      '/collections': ['get'],
      '/metrics': ['get'],
      '/openapi.json': ['get'],
      '/query': ['post'],
      '/query/prepare': ['post'],
      '/collections/{name}': ['delete', 'get', 'post'],
      '/collections/{name}/bulk': ['post'],
      '/collections/{name}/by/{field}/{value}': ['delete', 'get', 'put'],
      '/collections/{name}/{id}': ['delete', 'get', 'put'],
      '/indexes/{collection}': ['get'],
      '/indexes/{collection}/{name}': ['delete'],
      '/index': ['post'],
      '/seed': ['post'],
      '/admin/flush': ['post'],
      '/admin/checkpoint': ['post'],
      '/admin/compact/{collection}': ['post'],
      '/admin/backup': ['post'],
      '/admin/rebuild-indexes/{collection}': ['post'],
      '/admin/rebuild-index/{collection}/{indexName}': ['post'],
      '/replication/status': ['get'],
      '/replication/start-leader': ['post'],
      '/replication/start-follower': ['post'],
      '/replication/read-only': ['post'],
      '/replication/read-write': ['post'],
      '/replication/promote': ['post'],
      '/replication/auto-failover/enable': ['post'],
      '/replication/forget-follower': ['post'],
      '/replication/handover': ['post'],
      '/replication/auto-failover/disable': ['post'],
      '/changes': ['get'],
    };
    const paths = answer.body.paths as Record<string, Record<string, Json>>;
    expect(Object.keys(paths).sort()).toEqual(Object.keys(expected).sort());
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(paths[path] ?? {}).sort(), path).toEqual(methods);
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const operation of Object.values(paths[path] ?? {})) {
        expect(operation.summary, path).not.toBe('');
        const names = operation.parameters
          .filter((p: Json) => p.in === 'path')
          .map((p: Json) => p.name);
        expect(names, path).toEqual(inPath);
      }
    }
    // POST /query names its statement by text or by a prepared handle.
    expect(paths['/query']?.post.requestBody.content['application/json'].schema.anyOf).toEqual([
      { required: ['sql'] },
      { required: ['handle'] },
    ]);
    expect(
      paths['/query/prepare']?.post.requestBody.content['application/json'].schema.required,
    ).toEqual(['sql']);
  });
});

/** The value of one sample in Prometheus text, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = Object.fromEntries(
      [...(match[2] as string).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(match[3]);
  }
  return 0;
}

describe('GET /metrics', () => {
  it('is Prometheus text whose counters move with requests, writes and plans', async () => {
    const app = await start();
    const before = await app.request({ url: '/metrics' });
    expect(before.status).toBe(200);
    expect(before.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(before.text).toContain('# TYPE docdb_http_requests_total counter');
    expect(before.text).toContain('# TYPE docdb_http_request_duration_seconds histogram');
    const inserts = { method: 'POST', route: '/collections/:name', status: '201' };
    expect(sample(before.text, 'docdb_http_requests_total', inserts)).toBe(0);

    for (let i = 0; i < 3; i++) {
      await app.request({ method: 'POST', url: '/collections/c', json: { i } });
    }
    await app.request({ method: 'POST', url: '/collections/c/bulk', json: [{ i: 3 }, { i: 4 }] });
    await app.request({ url: '/nowhere' });
    await app.request({ method: 'POST', url: '/query', json: { sql: 'SELECT * FROM c' } });

    const after = (await app.request({ url: '/metrics' })).text;
    expect(sample(after, 'docdb_http_requests_total', inserts)).toBe(3);
    expect(sample(after, 'docdb_http_requests_total', { route: 'unmatched', status: '404' })).toBe(
      1,
    );
    expect(sample(after, 'docdb_http_requests_total', { route: '/metrics', status: '200' })).toBe(
      1,
    );
    expect(sample(after, 'docdb_documents_written_total', { operation: 'insert' })).toBe(5);
    expect(sample(after, 'docdb_query_plans_total', { plan: 'COLLECTION_SCAN' })).toBe(1);
    expect(
      sample(after, 'docdb_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/collections/:name',
      }),
    ).toBe(3);
  });
});

/**
 * Proves GET /indexes/{collection}, POST /index and DELETE /indexes/{collection}/{name} through `app.inject()` on a real database:
 * the index description, generated and given names, composite (`paths`), unique and multikey
 * (`[*]`) indexes built from existing documents and used by queries, the 400/404/409 answers
 * for bad definitions, and the index limits (count per collection, paths per index, name and
 * path length, path segments) at the limit and one past it.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, startHarness } from '../../../test/support/app-harness.js';
import {
  INDEX_NAME_CHARS_MAX,
  INDEX_PATHS_MAX,
  INDEXES_PER_COLLECTION_MAX,
  PATH_CHARS_MAX,
  PATH_SEGMENTS_MAX,
} from '../../util/index.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  const docs = [
    { pnr: 'A1', fare: { total: 10 }, tags: ['x', 'y'], status: 'ok', channel: 'web' },
    { pnr: 'B2', fare: { total: 20 }, tags: ['y'], status: 'ok', channel: 'app' },
    { pnr: 'C3', fare: { total: 20 }, tags: [], status: 'late', channel: 'web' },
  ];
  await h.request({ method: 'POST', url: '/collections/Orders.EU/bulk', json: docs });
});

afterEach(async () => {
  await h.close();
});

function createIndex(body: unknown): Promise<Json> {
  return h.request({ method: 'POST', url: '/index', json: body });
}

async function plan(sql: string): Promise<{ plan: string; count: number }> {
  const answer = await h.request({ method: 'POST', url: '/query', json: { sql } });
  return { plan: answer.body.plan, count: answer.body.count };
}

describe('GET /indexes/{collection}', () => {
  it('lists nothing for a collection without indexes, in any letter case', async () => {
    for (const name of ['orders.eu', 'ORDERS.EU']) {
      const answer = await h.request({ url: `/indexes/${name}` });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([]);
    }
  });

  it('answers 404 for an unknown collection and 400 for an invalid name', async () => {
    const missing = await h.request({ url: '/indexes/nope' });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'ERR_COLLECTION_NOT_FOUND', known: ['orders.eu'] });
    const bad = await h.request({ url: '/indexes/bad$' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('ERR_COLLECTION_NAME_INVALID');
  });
});

describe('POST /index', () => {
  it('creates a named-by-path index from existing documents: 201 and its description', async () => {
    const answer = await createIndex({ collection: 'Orders.EU', path: 'fare.total' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      collection: 'orders.eu',
      name: 'idx_orders_eu_fare_total',
      paths: ['fare.total'],
      unique: false,
      multikey: false,
      state: 'ready',
    });
    const { body: list } = await h.request({ url: '/indexes/orders.eu' });
    expect(list).toEqual([
      {
        name: 'idx_orders_eu_fare_total',
        paths: ['fare.total'],
        unique: false,
        multikey: false,
        state: 'ready',
      },
    ]);
    const stats = await h.request({ url: '/stats' });
    expect(stats.body.collections[0].indexes[0].entries).toBe(3);
    expect(await plan('SELECT * FROM orders.eu WHERE fare.total = 20')).toEqual({
      plan: 'INDEX_SCAN(idx_orders_eu_fare_total)',
      count: 2,
    });
  });

  it('keeps a given name in its case and refuses the same name in another case with 409', async () => {
    const answer = await createIndex({ collection: 'orders.eu', path: 'pnr', name: 'ByPnr' });
    expect(answer.body.name).toBe('ByPnr');
    const again = await createIndex({ collection: 'orders.eu', path: 'status', name: 'BYPNR' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ERR_INDEX_EXISTS', index: 'BYPNR' });
    const unnamed = await createIndex({ collection: 'orders.eu', path: 'pnr' });
    expect(unnamed.status).toBe(201);
    const names = (await h.request({ url: '/indexes/orders.eu' })).body.map((i: Json) => i.name);
    expect(names).toEqual(['ByPnr', 'idx_orders_eu_pnr']);
  });

  it('builds a composite index from paths, used for an AND of equalities', async () => {
    const answer = await createIndex({ collection: 'orders.eu', paths: ['status', 'channel'] });
    expect(answer.body).toMatchObject({
      name: 'idx_orders_eu_status_channel',
      paths: ['status', 'channel'],
    });
    expect(await plan("SELECT * FROM orders.eu WHERE status = 'ok' AND channel = 'web'")).toEqual({
      plan: 'INDEX_SCAN_COMPOSITE(idx_orders_eu_status_channel)',
      count: 1,
    });
  });

  it('builds a multikey index over [*], used by SQL and by-key lookups', async () => {
    const answer = await createIndex({ collection: 'orders.eu', path: 'tags[*]', name: 'tags' });
    expect(answer.body).toMatchObject({ paths: ['tags[*]'], multikey: true });
    const byKey = await h.request({ url: '/collections/orders.eu/by/tags[*]/y' });
    expect(byKey.body).toMatchObject({ plan: 'INDEX_SCAN(tags)', count: 2 });
  });

  it('enforces unique: a duplicate insert is 409 afterwards', async () => {
    const answer = await createIndex({ collection: 'orders.eu', path: 'pnr', unique: true });
    expect(answer.body.unique).toBe(true);
    const dup = await h.request({
      method: 'POST',
      url: '/collections/orders.eu',
      json: { pnr: 'A1' },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('ERR_UNIQUE_VIOLATION');
  });

  it('refuses a unique index over existing duplicates with 409, creating nothing', async () => {
    const answer = await createIndex({ collection: 'orders.eu', path: 'fare.total', unique: true });
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('ERR_UNIQUE_VIOLATION');
    expect((await h.request({ url: '/indexes/orders.eu' })).body).toEqual([]);
  });

  it('answers 404 naming the known collections for a collection that does not exist, as SQL does', async () => {
    const answer = await createIndex({ collection: 'later', path: 'a' });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('ERR_COLLECTION_NOT_FOUND');
    expect(answer.body.error).toMatch(/^unknown collection 'later' \(known: .*orders\.eu/);
    const sql = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: 'CREATE INDEX i ON later (a)' },
    });
    expect(sql.body.error).toBe(answer.body.error);
    expect((await h.request({ url: '/collections' })).body).not.toContain('later');
  });

  it('answers 400 naming the field for a body that breaks the schema', async () => {
    const cases: [unknown, string][] = [
      [{ path: 'a' }, "missing field 'collection'"],
      [{ collection: 'orders.eu' }, 'path'],
      [{ collection: 'orders.eu', path: 'a', paths: ['b'] }, 'oneOf'],
      [{ collection: 'orders.eu', paths: [] }, "'paths'"],
      [{ collection: 'orders.eu', path: 'a', unique: 'yes' }, "'unique'"],
      [{ collection: 'orders.eu', path: { a: 1 } }, "'path'"],
      [[], 'body'],
    ];
    for (const [body, text] of cases) {
      const answer = await createIndex(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.code).toBe('ERR_BAD_REQUEST');
      expect(answer.body.error).toContain(text);
    }
  });

  it('answers 400 with the engine code for an invalid definition', async () => {
    const cases: [unknown, string][] = [
      [{ collection: 'orders.eu', path: 'a[' }, 'ERR_PATH_INVALID'],
      [{ collection: 'orders.eu', path: 'a..b' }, 'ERR_PATH_INVALID'],
      [{ collection: 'orders.eu', path: '_id' }, 'ERR_INDEX_INVALID'],
      [{ collection: 'orders.eu', paths: ['a', 'a'] }, 'ERR_INDEX_INVALID'],
      [{ collection: 'orders.eu', paths: ['a[*]', 'b[*]'] }, 'ERR_INDEX_INVALID'],
      [{ collection: 'orders.eu', path: 'a', name: 'bad name!' }, 'ERR_INDEX_INVALID'],
      [{ collection: 'bad name', path: 'a' }, 'ERR_COLLECTION_NAME_INVALID'],
    ];
    for (const [body, code] of cases) {
      const answer = await createIndex(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.code, JSON.stringify(body)).toBe(code);
    }
    expect((await h.request({ url: '/indexes/orders.eu' })).body).toEqual([]);
  });
});

describe('DELETE /indexes/{collection}/{name}', () => {
  it('drops the index in any letter case: 200 with the collection and the name, queries scan', async () => {
    await createIndex({ collection: 'orders.eu', path: 'status', name: 'ByStatus' });
    const answer = await h.request({ method: 'DELETE', url: '/indexes/ORDERS.EU/bystatus' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ collection: 'orders.eu', dropped: 'ByStatus' });
    expect((await h.request({ url: '/indexes/orders.eu' })).body).toEqual([]);
    expect(await plan("SELECT * FROM orders.eu WHERE status = 'ok'")).toEqual({
      plan: 'COLLECTION_SCAN',
      count: 2,
    });
  });

  it('answers 404 for an unknown index or collection, with the codes SQL DROP INDEX gives', async () => {
    const index = await h.request({ method: 'DELETE', url: '/indexes/orders.eu/nope' });
    expect(index.status).toBe(404);
    expect(index.body).toMatchObject({ code: 'ERR_INDEX_NOT_FOUND', index: 'nope' });
    const sql = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: 'DROP INDEX nope ON orders.eu' },
    });
    expect(sql.body.error).toBe(index.body.error);
    const collection = await h.request({ method: 'DELETE', url: '/indexes/later/i' });
    expect(collection.status).toBe(404);
    expect(collection.body.code).toBe('ERR_COLLECTION_NOT_FOUND');
    expect((await h.request({ url: '/collections' })).body).not.toContain('later');
  });
});

describe('index limits', () => {
  it(`allows ${INDEXES_PER_COLLECTION_MAX} indexes per collection and refuses one more`, async () => {
    for (let i = 0; i < INDEXES_PER_COLLECTION_MAX; i++) {
      expect((await createIndex({ collection: 'orders.eu', path: `f${i}` })).status).toBe(201);
    }
    const past = await createIndex({ collection: 'orders.eu', path: 'one.more' });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('ERR_INDEX_LIMIT');
    expect((await h.request({ url: '/indexes/orders.eu' })).body).toHaveLength(
      INDEXES_PER_COLLECTION_MAX,
    );
  });

  it(`allows ${INDEX_PATHS_MAX} paths in a composite index and refuses one more`, async () => {
    const paths = (n: number) => Array.from({ length: n }, (_, i) => `p${i}`);
    const at = await createIndex({ collection: 'orders.eu', paths: paths(INDEX_PATHS_MAX) });
    expect(at.status).toBe(201);
    const past = await createIndex({
      collection: 'orders.eu',
      paths: paths(INDEX_PATHS_MAX + 1),
      name: 'wide',
    });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('ERR_INDEX_INVALID');
  });

  it(`allows a name of ${INDEX_NAME_CHARS_MAX} characters and refuses one more`, async () => {
    const at = await createIndex({
      collection: 'orders.eu',
      path: 'a',
      name: 'n'.repeat(INDEX_NAME_CHARS_MAX),
    });
    expect(at.status).toBe(201);
    const past = await createIndex({
      collection: 'orders.eu',
      path: 'b',
      name: 'm'.repeat(INDEX_NAME_CHARS_MAX + 1),
    });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('ERR_INDEX_INVALID');
  });

  it(`allows a path of ${PATH_CHARS_MAX} characters and ${PATH_SEGMENTS_MAX} segments, refusing one more`, async () => {
    const long = (n: number) => 'a'.repeat(n);
    const deep = (n: number) => Array.from({ length: n }, () => 's').join('.');
    const cases: [string, number][] = [
      [long(PATH_CHARS_MAX), 201],
      [long(PATH_CHARS_MAX + 1), 400],
      [deep(PATH_SEGMENTS_MAX), 201],
      [deep(PATH_SEGMENTS_MAX + 1), 400],
    ];
    for (const [path, status] of cases) {
      const answer = await createIndex({ collection: 'orders.eu', path, name: `i${path.length}` });
      expect(answer.status, `${path.length} chars`).toBe(status);
      if (status === 400) expect(answer.body.code).toBe('ERR_PATH_INVALID');
    }
  });
});

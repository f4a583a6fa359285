/**
 * Proves POST /collections/{name}/bulk through `app.inject()` on a real database: the
 * `{ ids, errors: [{ index, error, code }] }` report with per-item failures, `atomic=true`
 * all-or-nothing (nothing stored, the first failure's status, the per-item report in the
 * body), BULK_DOCUMENTS_MAX at the limit and one past it (413, nothing stored), and
 * `skipIndexes=true`: indexes turn stale, GET /indexes shows it, indexed queries fall back to
 * COLLECTION_SCAN with correct results until POST /admin/rebuild-indexes/{c}, and a write of a
 * value a stale unique index cannot check is refused (409 ERR_INDEX_STALE) until then.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, startHarness } from '../../../test/support/app-harness.js';
import { BULK_DOCUMENTS_MAX } from '../../util/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GIVEN_ID = '01a20452-8944-743a-bb4d-37c5e2ee9eb0';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});

afterEach(async () => {
  await h.close();
});

function bulk(collection: string, docs: unknown, query = ''): Promise<Json> {
  return h.request({ method: 'POST', url: `/collections/${collection}/bulk${query}`, json: docs });
}

async function stored(collection: string): Promise<Json[]> {
  const answer = await h.request({ url: `/collections/${collection}?limit=10000` });
  return answer.status === 404 ? [] : answer.body.documents;
}

describe('per-item results', () => {
  it('answers 200 { ids, errors: [] } with one id per document, in order', async () => {
    const answer = await bulk('c', [{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ids: expect.any(Array), errors: [] });
    expect(answer.body.ids).toHaveLength(3);
    for (const id of answer.body.ids) expect(id).toMatch(UUID);
    expect((await stored('c')).map((d) => [d._id, d.i])).toEqual(
      answer.body.ids.map((id: string, i: number) => [id, i]),
    );
  });

  it('reports each failed item by position, storing every other one', async () => {
    // POST /index needs the collection to exist; the embedded API creates it with the index.
    await h.db.collection('c').createIndex({ paths: ['u'], unique: true });
    await h.request({ method: 'POST', url: '/collections/c', json: { u: 'taken' } });
    const answer = await bulk('c', [
      { ok: 0 },
      [1, 2],
      { _id: 'bad' },
      { ok: 3 },
      { u: 'taken' },
      { _id: GIVEN_ID, ok: 5 },
      { _id: GIVEN_ID, ok: 6 },
      null,
      { u: 'new' },
      { u: 'new' },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.ids).toHaveLength(4);
    expect(answer.body.ids[2]).toBe(GIVEN_ID);
    const errors = answer.body.errors.map((e: Json) => [e.index, e.code]);
    expect(errors).toEqual([
      [1, 'ERR_DOCUMENT_INVALID'],
      [2, 'ERR_DOCUMENT_ID_INVALID'],
      [4, 'ERR_UNIQUE_VIOLATION'],
      [6, 'ERR_DOCUMENT_ID_EXISTS'],
      [7, 'ERR_DOCUMENT_INVALID'],
      [9, 'ERR_UNIQUE_VIOLATION'],
    ]);
    for (const error of answer.body.errors) expect(error.error).toEqual(expect.any(String));
    // Listed in _id order: the given id is older than the generated ones.
    const docs = await stored('c');
    expect(docs.map((d) => d.ok ?? d.u)).toEqual([5, 'taken', 0, 3, 'new']);
  });

  it('reports an _id already stored as ERR_DOCUMENT_ID_EXISTS', async () => {
    await bulk('c', [{ _id: GIVEN_ID }]);
    const answer = await bulk('c', [{ _id: GIVEN_ID }, { a: 1 }]);
    expect(answer.body.errors).toEqual([
      { index: 0, error: expect.stringContaining(GIVEN_ID), code: 'ERR_DOCUMENT_ID_EXISTS' },
    ]);
    expect(answer.body.ids).toHaveLength(1);
  });

  it('takes an empty array and answers 400 for a body that is not an array', async () => {
    expect((await bulk('c', [])).body).toEqual({ ids: [], errors: [] });
    const object = await bulk('c', { a: 1 });
    expect(object.status).toBe(400);
    expect(object.body).toEqual({ error: 'body must be array', code: 'ERR_BAD_REQUEST' });
    // Fastify's Ajv coerces a lone scalar into a one-item array (coerceTypes: 'array'), so
    // these come back as a bulk whose only item failed; either way nothing is stored.
    for (const body of ['x', 5, null]) {
      const answer = await bulk('c', body);
      expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
      expect(answer.body.ids ?? [], JSON.stringify(body)).toEqual([]);
    }
    expect(await stored('c')).toEqual([]);
  });

  it('answers 400 naming atomic or skipIndexes when they are not booleans', async () => {
    for (const query of ['?atomic=maybe', '?skipIndexes=2', '?atomic=yes&skipIndexes=true']) {
      const answer = await bulk('c', [{ a: 1 }], query);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error).toMatch(/'(atomic|skipIndexes)'/);
    }
    expect(await stored('c')).toEqual([]);
  });
});

describe('atomic=true', () => {
  it('stores everything when every item is valid', async () => {
    const answer = await bulk('c', [{ a: 1 }, { a: 2 }], '?atomic=true');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ids: [expect.any(String), expect.any(String)], errors: [] });
    expect(await stored('c')).toHaveLength(2);
  });

  it('stores nothing and answers 400 with the per-item report for an invalid item', async () => {
    await bulk('c', [{ before: true }]);
    const answer = await bulk('c', [{ a: 1 }, [2], { a: 3 }, 'x'], '?atomic=true');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      ids: [],
      errors: [
        { index: 1, error: expect.any(String), code: 'ERR_DOCUMENT_INVALID' },
        { index: 3, error: expect.any(String), code: 'ERR_DOCUMENT_INVALID' },
      ],
      error: 'atomic bulk insert rejected 2 of 4 documents; nothing was inserted',
      code: 'ERR_DOCUMENT_INVALID',
    });
    expect((await stored('c')).map((d) => d.before)).toEqual([true]);
  });

  it('stores nothing and answers 409 for a unique violation or a repeated _id', async () => {
    // POST /index needs the collection to exist; the embedded API creates it with the index.
    await h.db.collection('c').createIndex({ paths: ['u'], unique: true });
    const unique = await bulk('c', [{ u: 1 }, { u: 2 }, { u: 1 }], '?atomic=true');
    expect(unique.status).toBe(409);
    expect(unique.body).toMatchObject({ ids: [], code: 'ERR_UNIQUE_VIOLATION' });
    expect(unique.body.errors.map((e: Json) => e.index)).toEqual([2]);
    const repeated = await bulk('d', [{ _id: GIVEN_ID }, { _id: GIVEN_ID }], '?atomic=true');
    expect(repeated.status).toBe(409);
    expect(repeated.body).toMatchObject({ ids: [], code: 'ERR_DOCUMENT_ID_EXISTS' });
    expect(await stored('c')).toEqual([]);
    expect(await stored('d')).toEqual([]);
  });
});

describe('BULK_DOCUMENTS_MAX', () => {
  it(`stores ${BULK_DOCUMENTS_MAX} documents and refuses ${BULK_DOCUMENTS_MAX + 1} with 413`, async () => {
    const docs = Array.from({ length: BULK_DOCUMENTS_MAX }, () => ({}));
    const at = await bulk('c', docs);
    expect(at.status).toBe(200);
    expect(at.body.ids).toHaveLength(BULK_DOCUMENTS_MAX);
    expect(at.body.errors).toEqual([]);
    docs.push({});
    const past = await bulk('d', docs);
    expect(past.status).toBe(413);
    expect(past.body).toEqual({
      error: `a bulk insert takes at most ${BULK_DOCUMENTS_MAX} documents; got ${BULK_DOCUMENTS_MAX + 1}`,
      code: 'ERR_BULK_TOO_LARGE',
    });
    const atomic = await bulk('d', docs, '?atomic=true');
    expect(atomic.status).toBe(413);
    expect(h.db.collection('c').count()).toBe(BULK_DOCUMENTS_MAX);
    expect(h.db.collection('d').count()).toBe(0);
  });
});

describe('skipIndexes=true', () => {
  async function plan(sql: string): Promise<{ plan: string; count: number }> {
    const answer = await h.request({ method: 'POST', url: '/query', json: { sql } });
    expect(answer.status, answer.text).toBe(200);
    return { plan: answer.body.plan, count: answer.body.count };
  }

  async function states(): Promise<string[]> {
    return (await h.request({ url: '/indexes/c' })).body.map((i: Json) => i.state);
  }

  it('marks indexes stale; queries scan until POST /admin/rebuild-indexes/{c}', async () => {
    await bulk('c', [{ a: 1 }, { a: 2 }]);
    await h.request({ method: 'POST', url: '/index', json: { collection: 'c', path: 'a' } });
    await h.request({
      method: 'POST',
      url: '/index',
      json: { collection: 'c', paths: ['a', 'b'] },
    });
    expect(await states()).toEqual(['ready', 'ready']);
    expect(await plan('SELECT * FROM c WHERE a = 2')).toEqual({
      plan: 'INDEX_SCAN(idx_c_a)',
      count: 1,
    });

    const loaded = await bulk('c', [{ a: 3, b: 1 }, { a: 4 }], '?skipIndexes=true');
    expect(loaded.body.ids).toHaveLength(2);
    expect(await states()).toEqual(['stale', 'stale']);
    const stats = await h.request({ url: '/stats' });
    expect(stats.body.collections[0].indexes.map((i: Json) => i.state)).toEqual(['stale', 'stale']);

    // Results stay correct; only the access path changes.
    expect(await plan('SELECT * FROM c WHERE a = 3')).toEqual({
      plan: 'COLLECTION_SCAN',
      count: 1,
    });
    expect(await plan('SELECT * FROM c WHERE a = 3 AND b = 1')).toEqual({
      plan: 'COLLECTION_SCAN',
      count: 1,
    });
    const byKey = await h.request({ url: '/collections/c/by/a/4' });
    expect(byKey.body).toMatchObject({ plan: 'COLLECTION_SCAN', count: 1 });
    // An ordinary insert meanwhile does not make a stale index usable.
    await h.request({ method: 'POST', url: '/collections/c', json: { a: 5 } });
    expect(await plan('SELECT * FROM c WHERE a = 5')).toEqual({
      plan: 'COLLECTION_SCAN',
      count: 1,
    });

    const rebuilt = await h.request({ method: 'POST', url: '/admin/rebuild-indexes/c' });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body.rebuilt.map((i: Json) => i.state)).toEqual(['ready', 'ready']);
    expect(await states()).toEqual(['ready', 'ready']);
    expect(await plan('SELECT * FROM c WHERE a = 3')).toEqual({
      plan: 'INDEX_SCAN(idx_c_a)',
      count: 1,
    });
    expect(await plan('SELECT * FROM c WHERE a = 5')).toEqual({
      plan: 'INDEX_SCAN(idx_c_a)',
      count: 1,
    });
    expect(await plan('SELECT * FROM c WHERE a = 3 AND b = 1')).toEqual({
      plan: 'INDEX_SCAN_COMPOSITE(idx_c_a_b)',
      count: 1,
    });
  });

  it('loads duplicates under a stale unique index; the rebuild then refuses with 409', async () => {
    // POST /index needs the collection to exist; the embedded API creates it with the index.
    await h.db.collection('c').createIndex({ paths: ['u'], unique: true });
    const loaded = await bulk('c', [{ u: 1 }, { u: 2 }, { u: 2 }], '?skipIndexes=true');
    expect(loaded.body.errors).toEqual([]);
    expect(await states()).toEqual(['stale']);
    const rebuilt = await h.request({ method: 'POST', url: '/admin/rebuild-indexes/c' });
    expect(rebuilt.status).toBe(409);
    expect(rebuilt.body).toMatchObject({ code: 'ERR_UNIQUE_VIOLATION', index: 'idx_c_u' });
    // The index stays stale and queries stay correct through a scan.
    expect(await states()).toEqual(['stale']);
    expect(await plan('SELECT * FROM c WHERE u = 2')).toEqual({
      plan: 'COLLECTION_SCAN',
      count: 2,
    });

    // Meanwhile a write of a value the stale index cannot check is refused, not stored
    // unchecked beside the duplicates; deleting one of them and rebuilding mends it.
    const refused = await h.request({ method: 'POST', url: '/collections/c', json: { u: 1 } });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'ERR_INDEX_STALE', index: 'idx_c_u', value: [1] });
    expect(refused.body.error).toContain('/admin/rebuild-indexes/c');
    const twos = await h.request({ url: '/collections/c/by/u/2' });
    const deleted = await h.request({
      method: 'DELETE',
      url: `/collections/c/${twos.body.documents[0]._id}`,
    });
    expect(deleted.status).toBe(200);
    expect((await h.request({ method: 'POST', url: '/admin/rebuild-indexes/c' })).status).toBe(200);
    const duplicate = await h.request({ method: 'POST', url: '/collections/c', json: { u: 1 } });
    expect(duplicate.body.code).toBe('ERR_UNIQUE_VIOLATION');
    expect(await plan('SELECT * FROM c WHERE u = 2')).toEqual({
      plan: 'INDEX_SCAN(idx_c_u)',
      count: 1,
    });
  });
});

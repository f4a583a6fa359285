/**
 * Proves prepared statements over REST through `app.inject()` on a real database:
 * POST /query/prepare answers `{ handle, kind, paramCount }`; POST /query takes `{ handle,
 * params }` for `{ sql, params }` and answers the same envelope and X-DOCDB-* headers, as JSON
 * or NDJSON; a body with both `sql` and `handle` is 400 naming both (neither: 400 asking for
 * `sql`); an unknown
 * handle is 400 ERR_SQL_HANDLE_UNKNOWN with the three headers (plan NONE); and the OpenAPI
 * document lists the route and the `handle` field.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../../test/support/app-harness.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  const people = [
    { name: 'ada', age: 36 },
    { name: 'alan', age: 41 },
    { name: 'grace', age: 85 },
  ];
  await h.request({ method: 'POST', url: '/collections/people/bulk', json: people });
});

afterEach(async () => {
  await h.close();
});

const SELECT = 'SELECT name FROM people WHERE age > ? ORDER BY name';

async function prepare(sql: string): Promise<string> {
  const answer = await h.request({ method: 'POST', url: '/query/prepare', json: { sql } });
  expect(answer.status).toBe(200);
  return answer.body.handle;
}

describe('POST /query/prepare', () => {
  it('answers the handle, the kind and the placeholder count', async () => {
    const answer = await h.request({
      method: 'POST',
      url: '/query/prepare',
      json: { sql: SELECT },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      handle: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      kind: 'select',
      paramCount: 1,
    });
  });

  it('answers a parse error as POST /query does, and 400 for a body without sql', async () => {
    const bad = await h.request({ method: 'POST', url: '/query/prepare', json: { sql: 'SELEC' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('ERR_SQL_SYNTAX');
    for (const json of [{}, { sql: '' }, { sql: SELECT, params: [] }]) {
      const answer = await h.request({ method: 'POST', url: '/query/prepare', json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.code).toBe('ERR_BAD_REQUEST');
    }
  });
});

describe('POST /query by handle', () => {
  it('answers what the text answers, with the X-DOCDB-* headers', async () => {
    const handle = await prepare(SELECT);
    const byText = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: SELECT, params: [40] },
    });
    const byHandle = await h.request({
      method: 'POST',
      url: '/query',
      json: { handle, params: [40] },
    });
    expect(byHandle.status).toBe(200);
    const { executionMs: _a, ...text } = byText.body;
    const { executionMs: _b, ...prepared } = byHandle.body;
    expect(prepared).toEqual(text);
    expect(prepared.documents.map((d: { name: string }) => d.name)).toEqual(['alan', 'grace']);
    expect(byHandle.headers['x-docdb-plan']).toBe(byText.headers['x-docdb-plan']);
    expect(byHandle.headers['x-docdb-count']).toBe('2');
  });

  it('streams as NDJSON', async () => {
    const handle = await prepare(SELECT);
    const answer = await h.request({
      method: 'POST',
      url: '/query?stream=true',
      json: { handle, params: [40] },
    });
    const lines = answer.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ count: 2 });
    expect(lines.slice(1).map((d: { name: string }) => d.name)).toEqual(['alan', 'grace']);
  });

  it('runs a prepared write', async () => {
    const handle = await prepare('INSERT INTO people VALUES ?');
    const answer = await h.request({
      method: 'POST',
      url: '/query',
      json: { handle, params: [{ name: 'edsger', age: 72 }] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.affected).toBe(1);
  });

  it('answers 400 ERR_SQL_HANDLE_UNKNOWN for a handle it does not hold, with the headers', async () => {
    const answer = await h.request({
      method: 'POST',
      url: '/query',
      json: { handle: 'AAAAAAAAAAAAAAAAAAAAAA', params: [] },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('ERR_SQL_HANDLE_UNKNOWN');
    expect(answer.body.error).toContain("'AAAAAAAAAAAAAAAAAAAAAA'");
    expect(answer.headers['x-docdb-plan']).toBe('NONE');
    expect(answer.headers['x-docdb-count']).toBe('0');
  });

  it('answers 400 naming sql and handle when a body has both, and asks for sql when neither', async () => {
    const handle = await prepare(SELECT);
    const both = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: SELECT, handle, params: [1] },
    });
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      code: 'ERR_BAD_REQUEST',
      error:
        "body: give either 'sql' (the statement's text) or 'handle' (from POST /query/prepare); both were given",
    });
    const neither = await h.request({ method: 'POST', url: '/query', json: { params: [1] } });
    expect(neither.status).toBe(400);
    expect(neither.body).toEqual({ code: 'ERR_BAD_REQUEST', error: "body: missing field 'sql'" });
  });

  it('is in the OpenAPI document', async () => {
    const answer = await h.request({ url: '/openapi.json' });
    const paths = answer.body.paths;
    expect(paths['/query/prepare'].post).toBeDefined();
    expect(JSON.stringify(paths['/query'].post)).toContain('"handle"');
  });
});

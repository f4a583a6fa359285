/**
 * Proves POST /query through `app.inject()` on a real database: the JSON envelope
 * `{ plan, count, executionMs, documents }` for reads and `{ affected, ids }` for writes, the
 * X-DOCDB-Plan/-Count/-ExecutionMs headers, `{ sql, params }`, NDJSON through
 * `Accept: application/x-ndjson` and `?stream=true` (meta line, then one document per line),
 * 400 with line and column for parse errors, 400 naming the known collections for an unknown
 * one, 409 for unique violations, the three headers on error answers too, and SQL_CHARS_MAX
 * and SQL_NESTING_MAX at the limit and one past it (deep nesting is a 400, never a stack
 * overflow).
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, type Json, startHarness } from '../../../test/support/app-harness.js';
import { DbError } from '../../errors/index.js';
import { SQL_CHARS_MAX, SQL_NESTING_MAX } from '../../util/index.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  const people = [
    { name: 'ada', age: 36, city: 'London' },
    { name: 'alan', age: 41, city: 'Wilmslow' },
    { name: 'grace', age: 85, city: 'Arlington' },
  ];
  await h.request({ method: 'POST', url: '/collections/people/bulk', json: people });
});

afterEach(async () => {
  await h.close();
});

function query(
  sql: string,
  extra: { params?: unknown[]; url?: string; headers?: Record<string, string> } = {},
): Promise<Json> {
  return h.request({
    method: 'POST',
    url: extra.url ?? '/query',
    json: { sql, ...(extra.params && { params: extra.params }) },
    ...(extra.headers && { headers: extra.headers }),
  });
}

function expectMetaHeaders(answer: Json, meta: { plan: string; count: number }): void {
  expect(answer.headers['x-docdb-plan']).toBe(meta.plan);
  expect(answer.headers['x-docdb-count']).toBe(String(meta.count));
  expect(Number(answer.headers['x-docdb-executionms'])).toBeGreaterThanOrEqual(0);
  expect(String(answer.headers['x-docdb-executionms'])).toMatch(/^\d+\.\d{3}$/);
}

describe('warnings', () => {
  it('answer a double-quoted value that names no field with warnings, in JSON and on the NDJSON meta line', async () => {
    const sql = 'SELECT * FROM people WHERE city = "London"';
    const answer = await query(sql);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ count: 0, documents: [] });
    expect(answer.body.warnings).toEqual([
      `"London" is in double quotes, which name a field, and no document in people has a field London; for the string, write 'London' in single quotes`,
    ]);
    const streamed = await query(sql, { url: '/query?stream=true' });
    const meta = JSON.parse(streamed.text.split('\n')[0]);
    expect(meta.warnings).toEqual(answer.body.warnings);
  });
});

describe('reads', () => {
  it('answer { plan, count, executionMs, documents } and the three X-DOCDB-* headers', async () => {
    const answer = await query('SELECT * FROM people WHERE age > 40 ORDER BY age');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(['count', 'documents', 'executionMs', 'plan']);
    expect(answer.body).toMatchObject({ plan: 'COLLECTION_SCAN', count: 2 });
    expect(answer.body.executionMs).toBeGreaterThanOrEqual(0);
    expect(answer.body.documents.map((d: Json) => d.name)).toEqual(['alan', 'grace']);
    expect(answer.body.documents[0]._id).toEqual(expect.any(String));
    expectMetaHeaders(answer, answer.body);
  });

  it('report the index plans: INDEX_SCAN, INDEX_SCAN_MULTI, INDEX_RANGE_SCAN', async () => {
    await h.request({
      method: 'POST',
      url: '/index',
      json: { collection: 'people', path: 'name' },
    });
    await h.request({ method: 'POST', url: '/index', json: { collection: 'people', path: 'age' } });
    const cases: [string, string, number][] = [
      ["SELECT * FROM people WHERE name = 'ada'", 'INDEX_SCAN(idx_people_name)', 1],
      [
        "SELECT * FROM people WHERE name IN ('ada', 'grace', 'nobody')",
        'INDEX_SCAN_MULTI(idx_people_name, 3 keys)',
        2,
      ],
      ['SELECT * FROM people WHERE age >= 41', 'INDEX_RANGE_SCAN(idx_people_age)', 2],
      ["SELECT * FROM people WHERE city = 'London'", 'COLLECTION_SCAN', 1],
    ];
    for (const [sql, plan, count] of cases) {
      const answer = await query(sql);
      expect(answer.body.plan, sql).toBe(plan);
      expect(answer.body.count, sql).toBe(count);
      expectMetaHeaders(answer, { plan, count });
    }
  });

  it('take ? parameters from params', async () => {
    const answer = await query('SELECT name FROM people WHERE age > ? AND city != ?', {
      params: [40, 'Wilmslow'],
    });
    expect(answer.body.documents).toEqual([{ _id: expect.any(String), name: 'grace' }]);
    const mismatch = await query('SELECT * FROM people WHERE age = ?');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('ERR_SQL_PARAM');
  });

  it('aggregate, and resolve collection names in any case', async () => {
    const answer = await query('SELECT COUNT(*), MAX(age) FROM PEOPLE');
    expect(answer.body.plan).toBe('COLLECTION_SCAN + AGGREGATE');
    expect(answer.body.documents).toEqual([{ 'COUNT(*)': 3, 'MAX(age)': 85 }]);
  });
});

describe('writes', () => {
  it('INSERT answers affected, ids and empty documents, with the headers', async () => {
    const answer = await query('INSERT INTO people VALUES {"name": "linus", "age": 55}');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ plan: 'INSERT', count: 1, affected: 1, documents: [] });
    expect(answer.body.ids).toHaveLength(1);
    expectMetaHeaders(answer, answer.body);
    const read = await h.request({ url: `/collections/people/${answer.body.ids[0]}` });
    expect(read.body).toMatchObject({ name: 'linus', age: 55 });
  });

  it('INSERT creates an unknown collection', async () => {
    const answer = await query('INSERT INTO fresh.one VALUES {"a": 1}');
    expect(answer.body.affected).toBe(1);
    expect((await h.request({ url: '/collections' })).body).toContain('fresh.one');
  });

  it('UPDATE and DELETE answer the affected count and their plan', async () => {
    const update = await query("UPDATE people SET city = 'Paris' WHERE age > 40");
    expect(update.body).toMatchObject({
      plan: 'COLLECTION_SCAN',
      count: 2,
      affected: 2,
      documents: [],
    });
    expect(update.body.ids).toBeUndefined();
    expectMetaHeaders(update, update.body);
    const gone = await query("DELETE FROM people WHERE city = 'Paris'");
    expect(gone.body).toMatchObject({ affected: 2, documents: [] });
    expect((await query('SELECT * FROM people')).body.count).toBe(1);
  });

  it('CREATE INDEX and DROP INDEX change what GET /indexes lists', async () => {
    const created = await query('CREATE UNIQUE INDEX by_name ON people (name)');
    expect(created.status).toBe(200);
    const list = await h.request({ url: '/indexes/people' });
    expect(list.body).toEqual([
      { name: 'by_name', paths: ['name'], unique: true, multikey: false, state: 'ready' },
    ]);
    expect((await query("SELECT * FROM people WHERE name = 'ada'")).body.plan).toBe(
      'INDEX_SCAN(by_name)',
    );
    expect((await query('DROP INDEX BY_NAME ON people')).status).toBe(200);
    expect((await h.request({ url: '/indexes/people' })).body).toEqual([]);
  });

  it('answer 409 ERR_UNIQUE_VIOLATION on INSERT and UPDATE, storing nothing', async () => {
    await query('CREATE UNIQUE INDEX by_name ON people (name)');
    const insert = await query('INSERT INTO people VALUES {"name": "ada"}');
    expect(insert.status).toBe(409);
    expect(insert.body.code).toBe('ERR_UNIQUE_VIOLATION');
    const update = await query("UPDATE people SET name = 'ada' WHERE age > 40");
    expect(update.status).toBe(409);
    expect(update.body.code).toBe('ERR_UNIQUE_VIOLATION');
    const names = (await query('SELECT name FROM people ORDER BY age')).body.documents;
    expect(names.map((d: Json) => d.name)).toEqual(['ada', 'alan', 'grace']);
  });
});

describe('NDJSON streaming', () => {
  function lines(text: string): Json[] {
    expect(text.endsWith('\n')).toBe(true);
    return text
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line));
  }

  it('streams results far larger than one write chunk, every document once, in order', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({ i, pad: 'x'.repeat(100) }));
    await h.request({ method: 'POST', url: '/collections/many/bulk', json: many });
    const answer = await query('SELECT i, pad FROM many ORDER BY i', { url: '/query?stream=true' });
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBeGreaterThan(4 * 64 * 1024);
    const [meta, ...documents] = lines(answer.text);
    expect(meta).toMatchObject({ count: 3000 });
    expect(documents.map((d) => (d as { i: number }).i)).toEqual(many.map((d) => d.i));
  });

  it('streams a whole collection in chunks, each line the JSON answer document as it is', async () => {
    // Past several NDJSON_CHUNK_BYTES, with a document the transcoder leaves to the decoder.
    const many = Array.from({ length: 3000 }, (_, i) => ({ i, pad: 'é'.repeat(i % 90) }));
    await h.request({ method: 'POST', url: '/collections/many/bulk', json: many });
    await h.request({ method: 'POST', url: '/collections/many', json: { '1': 'digit first' } });
    for (const sql of [
      'SELECT * FROM many',
      'SELECT * FROM many LIMIT 2000 OFFSET 999',
      'SELECT pad, _id FROM many OFFSET 2990',
    ]) {
      const whole = await query(sql);
      const answer = await query(sql, { url: '/query?stream=true' });
      expect(answer.status).toBe(200);
      const [meta, ...rows] = answer.text.slice(0, -1).split('\n');
      expect(JSON.parse(meta as string)).toMatchObject({ count: whole.body.count });
      expect(rows, sql).toEqual(whole.body.documents.map((d: Json) => JSON.stringify(d)));
      expectMetaHeaders(answer, { plan: 'COLLECTION_SCAN', count: whole.body.count });
    }
  });

  for (const [how, extra] of [
    ['Accept: application/x-ndjson', { headers: { accept: 'application/x-ndjson' } }],
    ['?stream=true', { url: '/query?stream=true' }],
  ] as const) {
    it(`streams with ${how}: the meta line, then one document per line`, async () => {
      const answer = await query('SELECT * FROM people ORDER BY age DESC', extra);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/x-ndjson/);
      const [meta, ...documents] = lines(answer.text);
      expect(Object.keys(meta).sort()).toEqual(['count', 'executionMs', 'plan']);
      expect(meta).toMatchObject({ plan: 'COLLECTION_SCAN', count: 3 });
      expect(documents.map((d) => d.name)).toEqual(['grace', 'alan', 'ada']);
      expectMetaHeaders(answer, meta);
    });
  }

  it('streams an empty result as the meta line alone', async () => {
    const answer = await query("SELECT * FROM people WHERE name = 'nobody'", {
      url: '/query?stream=true',
    });
    expect(lines(answer.text)).toEqual([
      { plan: 'COLLECTION_SCAN', count: 0, executionMs: expect.any(Number) },
    ]);
  });

  it('streams a write as its meta line with affected', async () => {
    const answer = await query('DELETE FROM people WHERE age > 80', { url: '/query?stream=true' });
    const all = lines(answer.text);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ count: 1, affected: 1 });
  });

  it('answers JSON for stream=false and 400 for a stream value that is not a boolean', async () => {
    const plain = await query('SELECT * FROM people', { url: '/query?stream=false' });
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.body.count).toBe(3);
    const bad = await query('SELECT * FROM people', { url: '/query?stream=maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("'stream'");
  });

  it('answers errors as JSON before streaming starts', async () => {
    const parse = await query('SELEC * FROM people', { url: '/query?stream=true' });
    expect(parse.status).toBe(400);
    expect(parse.body.code).toBe('ERR_SQL_SYNTAX');
    const unknown = await query('SELECT * FROM nope', {
      headers: { accept: 'application/x-ndjson' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('ERR_COLLECTION_NOT_FOUND');
  });
});

describe('errors', () => {
  it('a parse error is 400 { error, code: ERR_SQL_SYNTAX, line, column }', async () => {
    const answer = await query('SELECT *\nFROM people\nWHERE age >');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: expect.stringContaining('3:12'),
      code: 'ERR_SQL_SYNTAX',
      line: 3,
      column: 12,
    });
    for (const sql of [
      'SELEC * FROM people',
      'SELECT * FROM people WHERE a IN ()',
      'SELECT * FROM people garbage',
    ]) {
      const bad = await query(sql);
      expect(bad.status, sql).toBe(400);
      expect(bad.body).toMatchObject({
        code: 'ERR_SQL_SYNTAX',
        line: 1,
        column: expect.any(Number),
      });
    }
  });

  it('an unknown collection is 400 naming it and listing the known ones, in every statement', async () => {
    await h.request({ method: 'POST', url: '/collections/orders', json: {} });
    for (const sql of [
      'SELECT * FROM peeple',
      'UPDATE peeple SET a = 1',
      'DELETE FROM peeple',
      'CREATE INDEX i ON peeple (a)',
      'SELECT * FROM people JOIN peeple ON people.a = peeple.a',
    ]) {
      const answer = await query(sql);
      expect(answer.status, sql).toBe(400);
      expect(answer.body).toMatchObject({
        code: 'ERR_COLLECTION_NOT_FOUND',
        collection: 'peeple',
        known: ['orders', 'people'],
      });
      expect(answer.body.error).toContain("'peeple'");
      expect(answer.body.error).toContain('orders, people');
    }
  });

  it('a body without sql, with an empty sql or with params that are not an array is 400', async () => {
    for (const json of [
      {},
      { sql: '' },
      { sql: 'SELECT * FROM people', params: { a: 1 } },
      [],
      'SELECT 1',
    ]) {
      const answer = await h.request({ method: 'POST', url: '/query', json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.code).toBe('ERR_BAD_REQUEST');
    }
  });
});

describe('SQL_CHARS_MAX', () => {
  /** A valid statement of exactly `chars` characters. */
  function statementOf(chars: number): string {
    const head = "SELECT * FROM people WHERE name = '";
    return `${head}${'x'.repeat(chars - head.length - 1)}'`;
  }

  it(`runs a statement of ${SQL_CHARS_MAX} characters and answers 413 one past it`, async () => {
    expect(statementOf(SQL_CHARS_MAX)).toHaveLength(SQL_CHARS_MAX);
    const at = await query(statementOf(SQL_CHARS_MAX));
    expect(at.status).toBe(200);
    expect(at.body.count).toBe(0);
    for (const url of ['/query', '/query?stream=true']) {
      const past = await query(statementOf(SQL_CHARS_MAX + 1), { url });
      expect(past.status, url).toBe(413);
      expect(past.body).toEqual({
        error: `the SQL text has ${SQL_CHARS_MAX + 1} characters; the limit is ${SQL_CHARS_MAX}`,
        code: 'ERR_SQL_TOO_LONG',
      });
    }
  });

  // Was a bug (fixed, kept as a regression case): routes/query.ts calls parse(sql) (to refuse writes on a read-only node) before
  // db.query checks SQL_CHARS_MAX, so a text over the limit is parsed in full and, when it does
  // not parse, answered 400 ERR_SQL_SYNTAX instead of 413 ERR_SQL_TOO_LONG. The limit no longer
  // bounds the parser's work: any text up to the 32 MiB body limit is parsed.
  it('answers 413 ERR_SQL_TOO_LONG for an over-long text that does not parse', async () => {
    const answer = await query('x'.repeat(SQL_CHARS_MAX + 1));
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('ERR_SQL_TOO_LONG');
  });
});

describe('SQL_NESTING_MAX', () => {
  const parens = (levels: number) =>
    `SELECT * FROM people WHERE ${'('.repeat(levels)}age = 36${')'.repeat(levels)}`;
  const nots = (levels: number) => `SELECT * FROM people WHERE ${'NOT '.repeat(levels)}age = 36`;

  it(`runs ${SQL_NESTING_MAX} levels of parentheses or NOT and answers 400 one past it`, async () => {
    expect((await query(parens(SQL_NESTING_MAX))).body.count).toBe(1);
    // An even number of NOTs cancels out.
    expect((await query(nots(SQL_NESTING_MAX))).body.count).toBe(1);
    for (const sql of [parens(SQL_NESTING_MAX + 1), nots(SQL_NESTING_MAX + 1)]) {
      const past = await query(sql);
      expect(past.status).toBe(400);
      expect(past.body).toMatchObject({ code: 'ERR_SQL_SYNTAX', line: 1 });
      expect(past.body.error).toContain(`deeper than ${SQL_NESTING_MAX} levels`);
    }
  });

  it('answers a 4xx, never a 500 from a stack overflow, for 300,000 levels', async () => {
    for (const sql of [
      parens(300_000),
      nots(300_000),
      `SELECT * FROM people WHERE ${'('.repeat(300_000)}`,
    ]) {
      for (const url of ['/query', '/query?stream=true']) {
        const answer = await query(sql, { url });
        // 400 when it is inside SQL_CHARS_MAX (too deep), 413 when it is longer than that.
        const expected =
          sql.length > SQL_CHARS_MAX ? [413, 'ERR_SQL_TOO_LONG'] : [400, 'ERR_SQL_SYNTAX'];
        expect([answer.status, answer.body.code], url).toEqual(expected);
      }
    }
  });
});

describe('error answers', () => {
  function expectErrorHeaders(answer: Json, plan = 'NONE'): void {
    expect(answer.headers['x-docdb-plan'], answer.text).toBe(plan);
    expect(answer.headers['x-docdb-count']).toBe('0');
    expect(String(answer.headers['x-docdb-executionms'])).toMatch(/^\d+\.\d{3}$/);
  }

  it('carry the three X-DOCDB-* headers: plan NONE before a plan is made, count 0', async () => {
    const cases: [string, Record<string, unknown>, number][] = [
      ['/query', { sql: 'SELEC * FROM people' }, 400],
      ['/query', { sql: 'SELECT * FROM nobody' }, 400],
      ['/query?stream=true', { sql: 'SELECT * FROM nobody' }, 400],
      ['/query', { sql: 'SELECT * FROM people WHERE a = ?' }, 400],
      ['/query', { statement: 'SELECT 1' }, 400],
    ];
    for (const [url, json, status] of cases) {
      const answer = await h.request({ method: 'POST', url, json });
      expect(answer.status, JSON.stringify(json)).toBe(status);
      expectErrorHeaders(answer);
    }
    const notJson = await h.request({
      method: 'POST',
      url: '/query',
      raw: 'sql',
      headers: { 'content-type': 'text/plain' },
    });
    expect(notJson.status).toBe(415);
    expectErrorHeaders(notJson);
  });

  it('name the plan when the failed statement had one', async () => {
    await h.request({
      method: 'POST',
      url: '/index',
      json: { collection: 'people', path: 'name', unique: true },
    });
    // The engine reports a plan made before a failure as the error's `details.plan`.
    h.db.query = () =>
      Promise.reject(
        new DbError('ERR_UNIQUE_VIOLATION', 'duplicate name', {
          plan: 'INDEX_SCAN(idx_people_name)',
        }),
      );
    const answer = await query("UPDATE people SET name = 'ada'");
    expect(answer.status).toBe(409);
    expectErrorHeaders(answer, 'INDEX_SCAN(idx_people_name)');
  });
});

describe("a router's shard plan (ADR 0014)", () => {
  it('answers sort keys beside documents, whole and as NDJSON lines of { doc, sortKey }', async () => {
    const sql = 'SELECT name FROM people ORDER BY age DESC';
    const whole = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql, shard: { kind: 'rows', sortKeys: true } },
    });
    expect(whole.status).toBe(200);
    expect(whole.body.documents.map((d: Json) => d.name)).toEqual(['grace', 'alan', 'ada']);
    expect(whole.body.sortKeys.map((k: Json) => k[0])).toEqual([85, 41, 36]);
    const streamed = await h.request({
      method: 'POST',
      url: '/query?stream=true',
      json: { sql, shard: { kind: 'rows', sortKeys: true } },
    });
    const [meta, ...rows] = streamed.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(meta.count).toBe(3);
    expect(rows.map((r: Json) => [r.doc.name, r.sortKey[0]])).toEqual([
      ['grace', 85],
      ['alan', 41],
      ['ada', 36],
    ]);
  });

  it('answers partial aggregate states', async () => {
    const answer = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: 'SELECT COUNT(*), AVG(age) FROM people', shard: { kind: 'partial' } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.documents).toEqual([{ group: [], states: [3, { sum: 162, count: 3 }] }]);
  });

  it('answers the first `top` rows of the statement, its OFFSET and LIMIT left to the router', async () => {
    const answer = await h.request({
      method: 'POST',
      url: '/query',
      json: {
        sql: 'SELECT name FROM people ORDER BY age LIMIT ? OFFSET ?',
        params: [1, 1],
        shard: { kind: 'rows', top: 2 },
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.documents.map((d: Json) => d.name)).toEqual(['ada', 'alan']);
  });

  it('refuses a bad shard plan, naming the field and what it must be', async () => {
    const refusals: Array<[unknown, string]> = [
      [{ kind: 'final' }, "body field 'shard.kind' must be 'partial' or 'rows'; got \"final\""],
      [{ sortKeys: true }, "body: missing field 'shard.kind'"],
      [{ kind: 'rows', sortKeys: 'yes' }, "body field 'shard.sortKeys' must be true or false"],
      [{ kind: 'rows', top: -1 }, "body field 'shard.top' must be a non-negative integer"],
      [{ kind: 'rows', top: 1.5 }, "body field 'shard.top' must be a non-negative integer"],
      [{ kind: 'rows', other: true }, "body: unknown field 'shard.other'"],
      ['partial', "body field 'shard' must be object"],
      [{ phase: 'partial' }, "body: missing field 'shard.kind'"],
      [{ kind: 'partial', top: 2 }, "shard plan field 'top' is for kind 'rows'"],
    ];
    for (const [shard, message] of refusals) {
      const answer = await h.request({
        method: 'POST',
        url: '/query',
        json: { sql: 'SELECT COUNT(*) FROM people', shard },
      });
      expect(answer.status, JSON.stringify(shard)).toBe(400);
      expect(answer.body.error, JSON.stringify(shard)).toContain(message);
    }
    const rows = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: 'SELECT name FROM people', shard: { kind: 'partial' } },
    });
    expect(rows.status).toBe(400);
    expect(rows.body).toMatchObject({
      code: 'ERR_BAD_ARGUMENT',
      error: expect.stringContaining('needs aggregates or GROUP BY'),
    });
  });
});

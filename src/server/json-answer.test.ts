/**
 * Answers whose rows are held as JSON text are byte for byte what Fastify's JSON.stringify of
 * the same rows as objects sends: GET by `_id` (body, content type, length, ETag), a point
 * `/query` and its NDJSON stream, over a real database through `app.inject()`; and the
 * splicing writer equals JSON.stringify on answers mixing text and object rows.
 */

import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { jsonText } from '../util/index.js';
import { answerJson } from './json-answer.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const DOC = {
  pnr: 'Q1',
  s: 'naïve "quoted" \\ \n 😀',
  n: [0, -1.5, 2 ** 53, 1e21, { deep: [[]] }],
  empty: {},
};

describe('answers with rows held as JSON text', () => {
  it('GET by _id sends the same bytes and headers as the object did', async () => {
    const id = (await h.db.insert('t', DOC)).id;
    const answer = await h.request({ url: `/collections/t/${id}` });
    const tagged = await h.db.getTagged('t', id);
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(JSON.stringify(tagged?.doc));
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
    expect(answer.headers.etag).toBe(`"${tagged?.tag}"`);
  });

  it('a point /query and its stream carry each row exactly', async () => {
    const id = (await h.db.insert('t', DOC)).id;
    await h.db.createIndex({ collection: 't', path: 'pnr', unique: true });
    const sql = 'SELECT * FROM t WHERE pnr = ?';
    const answer = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql, params: ['Q1'] },
    });
    const row = JSON.stringify((await h.db.getTagged('t', id))?.doc);
    expect(answer.text).toContain(`"documents":[${row}]`);
    expect(answer.body.count).toBe(1);
    expect(answer.headers['x-docdb-plan']).toBe('INDEX_SCAN(idx_t_pnr)');
    const lines = await h.request({
      method: 'POST',
      url: '/query?stream=true',
      json: { sql, params: ['Q1'] },
    });
    expect(lines.text.split('\n').slice(1)).toEqual([row, '']);
  });

  it('sends an answer past one piece as a stream of pieces, the same bytes', async () => {
    const big = 'z'.repeat(2000);
    await h.db.bulk(
      't',
      Array.from({ length: 1500 }, (_, i) => ({ i, big })),
    );
    const sql = 'SELECT i, big FROM t ORDER BY i';
    const whole = await h.db.query(sql);
    const answer = await h.request({ method: 'POST', url: '/query', json: { sql } });
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBeGreaterThan(3_000_000);
    expect(answer.headers['content-length']).toBeUndefined();
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-docdb-count']).toBe('1500');
    const { executionMs: _, ...sent } = answer.body as { executionMs: number };
    const { executionMs: __, ...expected } = whole;
    expect(sent).toEqual(JSON.parse(JSON.stringify(expected)));
    const small = await h.request({
      method: 'POST',
      url: '/query',
      json: { sql: `${sql} LIMIT 2` },
    });
    expect(small.headers['content-length']).toBe(String(Buffer.byteLength(small.text)));
  });

  it('writes a large answer in pieces that join to what JSON.stringify writes', () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ i, text: `${i}`.repeat(500) }));
    const answer = { plan: 'P', count: rows.length, documents: rows, warnings: ['w'] };
    const mixed = {
      ...answer,
      documents: rows.map((r, i) => (i % 2 ? jsonText(JSON.stringify(r)) : r)),
    };
    expect(answerJson(mixed)).toBe(JSON.stringify(answer));
    const odd = { documents: [undefined, { a: undefined }, () => 1] };
    expect(answerJson(odd)).toBe(JSON.stringify(odd));
  });

  it('splices text rows as JSON.stringify writes the objects', () => {
    const rows = [{ a: 1 }, { b: 'x"y' }];
    const answer = { plan: 'P', count: 2, warnings: undefined, documents: rows, sortKeys: [[1]] };
    const mixed = { ...answer, documents: [jsonText(JSON.stringify(rows[0])), rows[1]] };
    expect(answerJson(mixed)).toBe(JSON.stringify(answer));
    expect(answerJson({ documents: [] })).toBe('{"documents":[]}');
  });

  it('equals JSON.stringify on random answers, whatever their keys and values', () => {
    const row = fc.dictionary(fc.string(), fc.jsonValue());
    const answer = fc
      .tuple(
        fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(undefined))),
        fc.array(fc.tuple(row, fc.boolean()), { maxLength: 4 }),
      )
      .map(([fields, rows]) => ({ fields, rows }));
    fc.assert(
      fc.property(answer, ({ fields, rows }) => {
        const plain = { ...fields, documents: rows.map(([r]) => r) };
        const held = {
          ...fields,
          documents: rows.map(([r, asText]) => (asText ? jsonText(JSON.stringify(r)) : r)),
        };
        expect(answerJson(held)).toBe(JSON.stringify(plain));
      }),
    );
  });
});

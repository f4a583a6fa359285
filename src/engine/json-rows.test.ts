/**
 * Rows asked for as JSON text (`{ rows: 'json' }`) are exactly the JSON of the rows asked for
 * as objects, statement by statement, in one answer and in a stream; and the text is really
 * written from the stored bytes where the plan reads documents by id (a point lookup with no
 * filter left, every streamed row of a plain SELECT, a GET by `_id`), not decoded. Streamed
 * with `{ rows: 'ndjson' }` a plain SELECT's rows come as JsonLines: the same lines, chunked
 * at NDJSON_CHUNK_BYTES, the whole-collection cursor counting and reading one snapshot.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { Document, QueryMeta } from '../types/index.js';
import { isJsonLines, isJsonText, NDJSON_CHUNK_BYTES, rowJson } from '../util/index.js';
import { type Database, open } from './index.js';

let cleanup: () => void;
let db: Database;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir());
  db = await open(dir);
  await db.seed(300, 7);
  await db.insert('odd', { '1': 'digit key first', b: { __proto__: 'x' }, s: 'naïve "q" \\ \n' });
  await db.insert('odd', { a: 1, b: [1.5, -0, 2 ** 53, { c: null }], s: '😀' });
});
afterAll(async () => {
  await db.close();
  cleanup();
});

/** Statements and their parameters, given one order's `pnr`, `status` and `_id`. */
function statements(pnr: unknown, status: unknown, id: unknown): Array<[string, unknown[]]> {
  return [
    ['SELECT * FROM orders WHERE pnr = ?', [pnr]],
    ['SELECT pnr, fare.total AS total, passengers[0].lastName FROM orders WHERE pnr = ?', [pnr]],
    ['SELECT * FROM orders WHERE pnr = ? AND status = ?', [pnr, status]],
    ['SELECT * FROM orders WHERE pnr = ? AND status = ?', [pnr, 'no such status']],
    ['SELECT * FROM orders WHERE pnr = ? AND _id = ?', [pnr, id]],
    ['SELECT _id FROM orders WHERE pnr = ? AND _id = ?', [pnr, 'not that id']],
    ['SELECT * FROM orders WHERE pnr = ? LIMIT 0', [pnr]],
    ['SELECT * FROM orders WHERE pnr = ? LIMIT 1 OFFSET 1', [pnr]],
    ['SELECT * FROM orders WHERE pnr = ?', ['no such pnr']],
    ['SELECT * FROM orders WHERE pnr = ?', [null]],
    ['SELECT * FROM orders LIMIT 5', []],
    ['SELECT * FROM orders WHERE channel = ? LIMIT 10 OFFSET 3', ['web']],
    ['SELECT pnr, channel FROM orders WHERE channel = ? ORDER BY pnr DESC', ['web']],
    ['SELECT pnr FROM orders ORDER BY createdAt, pnr LIMIT 15 OFFSET 40', []],
    ['SELECT * FROM orders WHERE payment.status = ? AND fare.total < ?', ['paid', 900]],
    ['SELECT * FROM orders WHERE status = ? ORDER BY fare.total DESC LIMIT 7', [status]],
    ['SELECT pnr, fare FROM orders WHERE fare.total > ? LIMIT 20', [500]],
    ['SELECT status, COUNT(*) AS n FROM orders GROUP BY status', []],
    ['SELECT DISTINCT status FROM orders', []],
    ['SELECT * FROM odd', []],
    ['SELECT b, s, "1" FROM odd', []],
  ];
}

async function streamed(sql: string, params: unknown[], json: boolean): Promise<unknown[]> {
  const rows: unknown[] = [];
  const stream = json ? db.queryStream(sql, params, { rows: 'json' }) : db.queryStream(sql, params);
  await stream.next();
  for await (const row of stream) rows.push(row);
  return rows;
}

describe('rows as JSON text', () => {
  it('are the JSON of the rows as objects, in one answer and streamed', async () => {
    const order = (await db.query('SELECT * FROM orders LIMIT 1')).documents[0] as Document;
    for (const [sql, params] of statements(order.pnr, order.status, order._id)) {
      const objects = await db.query(sql, params);
      const texts = await db.query(sql, params, { rows: 'json' });
      expect(texts.documents.map(rowJson), sql).toEqual(
        objects.documents.map((d) => JSON.stringify(d)),
      );
      expect(texts.plan).toBe(objects.plan);
      const streamObjects = await streamed(sql, params, false);
      const streamTexts = await streamed(sql, params, true);
      expect(streamTexts.map(rowJson), sql).toEqual(streamObjects.map((d) => JSON.stringify(d)));
    }
  });

  it('are written from the stored bytes where the plan reads by id', async () => {
    const { documents } = await db.query('SELECT pnr FROM orders LIMIT 3');
    const pnr = (documents[0] as Document).pnr;
    const point = await db.query('SELECT * FROM orders WHERE pnr = ?', [pnr], { rows: 'json' });
    expect(point.documents.length).toBe(1);
    expect(isJsonText(point.documents[0])).toBe(true);
    const { handle } = db.prepare('SELECT * FROM orders WHERE pnr = ?');
    const prepared = await db.execute(handle, [pnr], { rows: 'json' });
    expect(prepared.documents.map(rowJson)).toEqual(point.documents.map(rowJson));
    expect(isJsonText(prepared.documents[0])).toBe(true);
    const rows = await streamed('SELECT pnr, fare.total AS t FROM orders LIMIT 50', [], true);
    expect(rows.length).toBe(50);
    expect(rows.every(isJsonText)).toBe(true);
    const id = String(((await db.query('SELECT * FROM odd')).documents[1] as Document)._id);
    const tagged = await db.getTagged('odd', id, { rows: 'json' });
    const plain = await db.getTagged('odd', id);
    expect(isJsonText(tagged?.doc)).toBe(true);
    expect(tagged?.doc.json ?? '').toBe(JSON.stringify(plain?.doc));
    expect(tagged?.tag).toBe(plain?.tag);
  });

  it('stringify back to the row (a JsonText passed where objects were expected)', async () => {
    const id = String(((await db.query('SELECT * FROM odd')).documents[0] as Document)._id);
    const tagged = await db.getTagged('odd', id, { rows: 'json' });
    const plain = await db.getTagged('odd', id);
    expect(JSON.stringify({ doc: tagged?.doc })).toBe(JSON.stringify({ doc: plain?.doc }));
  });
});

/** A stream asked for as NDJSON: its meta, its text, and what each item after the meta was. */
async function ndjson(
  sql: string,
  params: unknown[],
  shard?: { kind: 'rows'; top: number; sortKeys: true },
): Promise<{ meta: QueryMeta; text: string; items: unknown[] }> {
  const stream = db.queryStream(sql, params, { rows: 'ndjson', ...(shard && { shard }) });
  const meta = (await stream.next()).value as QueryMeta;
  const items: unknown[] = [];
  let text = '';
  for await (const item of stream) {
    items.push(item);
    text += isJsonLines(item) ? Buffer.from(item.bytes).toString('utf8') : `${rowJson(item)}\n`;
  }
  return { meta, text, items };
}

describe('rows as NDJSON lines', () => {
  it('are the lines of the rows as objects, statement by statement', async () => {
    const order = (await db.query('SELECT * FROM orders LIMIT 1')).documents[0] as Document;
    const more: Array<[string, unknown[]]> = [
      ['SELECT * FROM orders', []],
      ['SELECT * FROM orders LIMIT 7 OFFSET 290', []],
      ['SELECT * FROM orders OFFSET 400', []],
      ['SELECT pnr, "1", _id FROM orders LIMIT 3 OFFSET 1', []],
    ];
    for (const [sql, params] of [...statements(order.pnr, order.status, order._id), ...more]) {
      const objects = await streamed(sql, params, false);
      const { meta, text } = await ndjson(sql, params);
      expect(text, sql).toBe(objects.map((d) => `${JSON.stringify(d)}\n`).join(''));
      expect(meta.count, sql).toBe(objects.length);
    }
  });

  it('come in chunks of at least NDJSON_CHUNK_BYTES, each of whole lines', async () => {
    for (const sql of ['SELECT * FROM orders', 'SELECT * FROM orders WHERE fare.total > 0']) {
      const { meta, items } = await ndjson(sql, []);
      expect(items.every(isJsonLines), sql).toBe(true);
      const chunks = items.filter(isJsonLines);
      // 300 orders of about 500 bytes: at least two chunks, the last one shorter.
      expect(chunks.length).toBeGreaterThanOrEqual(2);
      for (const [k, chunk] of chunks.entries()) {
        const text = Buffer.from(chunk.bytes).toString('utf8');
        if (k < chunks.length - 1)
          expect(chunk.bytes.length).toBeGreaterThanOrEqual(NDJSON_CHUNK_BYTES);
        expect(text.endsWith('\n')).toBe(true);
        expect(text.split('\n').length - 1).toBe(chunk.rows);
      }
      expect(chunks.reduce((n, c) => n + c.rows, 0)).toBe(meta.count);
    }
  });

  it('keep their rows apart where each carries its sort key', async () => {
    const sql = 'SELECT pnr FROM orders ORDER BY pnr LIMIT 5';
    const { items } = await ndjson(sql, [], { kind: 'rows', top: 5, sortKeys: true });
    expect(items).toHaveLength(5);
    expect(items.some(isJsonLines)).toBe(false);
    expect(items[0]).toMatchObject({ sortKey: expect.any(Array) });
  });

  it('read the snapshot they counted while writes land', async () => {
    await db.insert('moving', { n: 0 });
    const rows = Array.from({ length: 400 }, (_, n) => ({ n: n + 1, pad: 'p'.repeat(400) }));
    await db.collection('moving').insertMany(rows);
    const before = await streamed('SELECT * FROM moving', [], false);
    const stream = db.queryStream('SELECT * FROM moving', [], { rows: 'ndjson' });
    const meta = (await stream.next()).value as QueryMeta;
    const first = (await stream.next()).value;
    await db.query('DELETE FROM moving WHERE n > 10');
    await db.collection('moving').insertMany([{ n: 1000 }, { n: 1001 }]);
    let text = isJsonLines(first) ? Buffer.from(first.bytes).toString('utf8') : '';
    for await (const item of stream) {
      if (isJsonLines(item)) text += Buffer.from(item.bytes).toString('utf8');
    }
    expect(meta.count).toBe(401);
    expect(text).toBe(before.map((d) => `${JSON.stringify(d)}\n`).join(''));
    expect((await db.query('SELECT COUNT(*) AS n FROM moving')).documents).toEqual([{ n: 13 }]);
  });
});

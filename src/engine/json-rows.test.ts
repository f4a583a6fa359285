/**
 * Rows asked for as JSON text (`{ rows: 'json' }`) are exactly the JSON of the rows asked for
 * as objects, statement by statement, in one answer and in a stream; and the text is really
 * written from the stored bytes where the plan reads documents by id (a point lookup with no
 * filter left, every streamed row of a plain SELECT, a GET by `_id`), not decoded.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { Document } from '../types/index.js';
import { isJsonText, rowJson } from '../util/index.js';
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

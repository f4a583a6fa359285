/**
 * Equality on a unique index takes a short path (one index get, one document get): it must
 * answer exactly as the general path does, with the rest of WHERE, OFFSET, LIMIT 0, a
 * missing key, a null or non-scalar parameter and a WHERE on `_id`.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from './index.js';

let cleanup: () => void;
let db: Database;
let ids: string[];

beforeEach(async () => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir());
  db = await open(dir);
  const c = db.collection('p');
  ids = (await c.insertMany([{ k: 'a', n: 1 }, { k: 'b', n: 2 }, { n: 3 }])).ids;
  await c.createIndex({ paths: ['k'], unique: true });
});
afterEach(async () => {
  await db.close();
  cleanup();
});

const rows = async (sql: string, params: unknown[] = []) => {
  const result = await db.query(sql, params);
  return { plan: result.plan, documents: result.documents };
};

describe('point lookups on a unique index', () => {
  it('answer like the general path', async () => {
    expect(await rows('SELECT n FROM p WHERE k = ?', ['b'])).toEqual({
      plan: 'INDEX_SCAN(idx_p_k)',
      documents: [{ _id: ids[1], n: 2 }],
    });
    expect((await rows('SELECT * FROM p WHERE k = ?', ['a'])).documents).toEqual([
      { _id: ids[0], k: 'a', n: 1 },
    ]);
    expect((await rows('SELECT * FROM p WHERE k = ? AND n = 2', ['a'])).documents).toEqual([]);
    expect((await rows('SELECT * FROM p WHERE k = ? OFFSET 1', ['a'])).documents).toEqual([]);
    expect((await rows('SELECT * FROM p WHERE k = ? LIMIT 0', ['a'])).documents).toEqual([]);
    expect((await rows('SELECT * FROM p WHERE k = ?', ['zz'])).documents).toEqual([]);
    expect((await rows('SELECT * FROM p WHERE k = ?', [['a']])).documents).toEqual([]);
    expect((await rows('SELECT n FROM p WHERE k = ?', [null])).documents).toEqual([]);
  });

  it('check the rest of WHERE against _id too', async () => {
    const sql = 'SELECT n FROM p WHERE k = ? AND _id = ?';
    expect((await rows(sql, ['a', ids[0]])).documents).toEqual([{ _id: ids[0], n: 1 }]);
    expect((await rows(sql, ['a', ids[1]])).documents).toEqual([]);
  });
});

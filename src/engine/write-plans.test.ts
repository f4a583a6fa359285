/**
 * Proves that UPDATE and DELETE keep their WHERE plan per statement only while the
 * collection's definition holds: the same text run again after CREATE INDEX reads through
 * the new index, and after DROP INDEX scans again, changing the same rows either way. An
 * UPDATE changes each row's own decoded body: an object it assigns is copied per row, and a
 * row that cannot take the SET leaves every row as it was.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { databasePerTest } from '../../test/support/database.js';

const database = databasePerTest();
let db: ReturnType<typeof database>;

beforeEach(async () => {
  db = database();
  await db.collection('t').insertMany(Array.from({ length: 20 }, (_, i) => ({ i, k: i % 4 })));
});

const UPDATE = 'UPDATE t SET n = ? WHERE k = ?';
const DELETE = 'DELETE FROM t WHERE k = ?';

/** The rows of a SELECT without their ids. */
async function rowsOf(sql: string, params: unknown[] = []): Promise<unknown[]> {
  const result = await db.query(sql, params);
  return result.documents.map(({ _id, ...row }) => row);
}

async function valuesOfN(k: number): Promise<unknown[]> {
  const result = await db.query('SELECT n FROM t WHERE k = ? ORDER BY i', [k]);
  return result.documents.map((row) => row.n);
}

describe('UPDATE and DELETE plans', () => {
  it('are made again when an index is created or dropped between runs of one text', async () => {
    const scanned = await db.query(UPDATE, [1, 2]);
    expect(scanned.plan).toBe('COLLECTION_SCAN');
    expect(scanned.count).toBe(5);

    await db.query('CREATE INDEX t_k ON t (k)');
    const indexed = await db.query(UPDATE, [2, 2]);
    expect(indexed.plan).toContain('t_k');
    expect(indexed.count).toBe(5);
    expect(await valuesOfN(2)).toEqual([2, 2, 2, 2, 2]);

    await db.query('DROP INDEX t_k ON t');
    const again = await db.query(UPDATE, [3, 2]);
    expect(again.plan).toBe(scanned.plan);
    expect(await valuesOfN(2)).toEqual([3, 3, 3, 3, 3]);
    expect(await valuesOfN(1)).toEqual([null, null, null, null, null]);

    expect((await db.query(DELETE, [3])).plan).toBe('COLLECTION_SCAN');
    await db.query('CREATE INDEX t_k ON t (k)');
    const deleted = await db.query(DELETE, [1]);
    expect(deleted.plan).toContain('t_k');
    expect(deleted.count).toBe(5);
    expect((await db.query('SELECT COUNT(*) AS c FROM t')).documents).toEqual([{ c: 10 }]);
  });

  it('give each row its own copy of an object SET assigns', async () => {
    await db.query('UPDATE t SET o = ? WHERE k = ?', [{ a: 1, list: [1, 2] }, 0]);
    await db.query('UPDATE t SET o.a = 2 WHERE i = 0');
    expect(await rowsOf('SELECT i, o FROM t WHERE k = 0 ORDER BY i')).toEqual([
      { i: 0, o: { a: 2, list: [1, 2] } },
      { i: 4, o: { a: 1, list: [1, 2] } },
      { i: 8, o: { a: 1, list: [1, 2] } },
      { i: 12, o: { a: 1, list: [1, 2] } },
      { i: 16, o: { a: 1, list: [1, 2] } },
    ]);
  });

  it('leave every row unchanged when one row cannot take the SET', async () => {
    await db.query('UPDATE t SET s = 1 WHERE i = 3');
    await expect(db.query('UPDATE t SET s.x = 1 WHERE k = 3')).rejects.toThrow(/s/);
    expect(await rowsOf('SELECT i, s FROM t WHERE k = 3 ORDER BY i')).toEqual([
      { i: 3, s: 1 },
      { i: 7, s: null },
      { i: 11, s: null },
      { i: 15, s: null },
      { i: 19, s: null },
    ]);
  });
});

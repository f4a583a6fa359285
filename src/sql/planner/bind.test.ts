/**
 * Proves bound plans (issue 9): a cached plan is bound to each execution's parameters before
 * it runs, so an equality whose `?` holds an array or object (which no index lists) runs as
 * a collection scan and its plan string says so, for SELECT, streams, UPDATE and DELETE, while
 * the same SQL text with a scalar still goes through the index.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { databasePerTest } from '../../../test/support/database.js';
import type { QueryMeta } from '../../engine/index.js';

const db = databasePerTest();

beforeEach(async () => {
  await db().query('INSERT INTO t VALUES [{"v":[1,2]},{"v":{"x":1}},{"v":1},{"v":"a"}]');
  await db().query('CREATE INDEX by_v ON t (v)');
});

describe('bound plans', () => {
  it('scan and say so when a ? holds an array or object; the cached plan stays indexed', async () => {
    const sql = 'SELECT v FROM t WHERE v = ?';
    const scalar = await db().query(sql, [1]);
    expect(scalar.plan).toBe('INDEX_SCAN(by_v)');
    expect(scalar.documents.map((d) => d.v)).toEqual([1]);
    for (const value of [[1, 2], { x: 1 }]) {
      const result = await db().query(sql, [value]);
      expect(result.plan).toBe('COLLECTION_SCAN');
      expect(result.documents.map((d) => d.v)).toEqual([value]);
    }
    expect((await db().query(sql, ['a'])).plan).toBe('INDEX_SCAN(by_v)');
    const multi = await db().query('SELECT v FROM t WHERE v IN (?, ?)', ['a', [1, 2]]);
    expect(multi.plan).toBe('COLLECTION_SCAN');
    expect(multi.count).toBe(2);
  });

  it('apply to streams, UPDATE and DELETE', async () => {
    const stream = db().queryStream('SELECT v FROM t WHERE v = ?', [[1, 2]]);
    const meta = (await stream.next()).value as QueryMeta;
    await stream.return(undefined);
    expect(meta).toMatchObject({ plan: 'COLLECTION_SCAN', count: 1 });
    const update = await db().query('UPDATE t SET w = 1 WHERE v = ?', [{ x: 1 }]);
    expect(update).toMatchObject({ plan: 'COLLECTION_SCAN', affected: 1 });
    expect((await db().query('DELETE FROM t WHERE v = ?', ['a'])).plan).toBe('INDEX_SCAN(by_v)');
    const removed = await db().query('DELETE FROM t WHERE v = ?', [[1, 2]]);
    expect(removed).toMatchObject({ plan: 'COLLECTION_SCAN', affected: 1 });
  });
});

/**
 * Proves spec §2 for collection names that start with a digit (`2024.logs`, `2024-logs`,
 * `2024`): they work unquoted in FROM, JOIN, INSERT INTO, UPDATE, DELETE FROM, CREATE INDEX …
 * ON and DROP INDEX … ON, through db().query; anywhere else such a run is still the malformed
 * number it looks like, with the message and position it always had.
 */

import { describe, expect, it } from 'vitest';
import { databasePerTest } from '../../../test/support/database.js';

const db = databasePerTest();

describe('collection names that start with a digit', () => {
  it('work in every statement kind', async () => {
    for (const name of ['2024.logs', '2024-logs', '2024', '1e5', '0x.y']) {
      const insert = await db().query(`INSERT INTO ${name} VALUES {"k":1,"v":"a"}, {"k":2}`);
      expect(insert.affected, name).toBe(2);
      expect((await db().query(`SELECT * FROM ${name} WHERE k = 1`)).count, name).toBe(1);
      const create = await db().query(`CREATE INDEX by_k ON ${name} (k)`);
      expect(create.plan, name).toBe('CREATE INDEX');
      expect((await db().query(`SELECT k FROM ${name} WHERE k = 2`)).plan).toBe('INDEX_SCAN(by_k)');
      expect((await db().query(`UPDATE ${name} SET v = 'b' WHERE k = 2`)).affected, name).toBe(1);
      await db().query(`DROP INDEX by_k ON ${name}`);
      expect((await db().query(`DELETE FROM ${name} WHERE v = 'b'`)).affected, name).toBe(1);
      expect((await db().query(`SELECT COUNT(*) AS n FROM ${name}`)).documents).toEqual([{ n: 1 }]);
    }
    expect(db().collections().sort()).toEqual(['0x.y', '1e5', '2024', '2024-logs', '2024.logs']);
  });

  it('work in JOIN, whose paths name them in double quotes', async () => {
    await db().query('INSERT INTO 2024.orders VALUES {"pnr":"A","from":"OSL"}');
    await db().query('INSERT INTO 9airports VALUES {"code":"OSL","city":"Oslo"}');
    const joined = await db().query(
      'SELECT "2024".orders.pnr, "9airports".city FROM 2024.orders JOIN 9airports ON "2024".orders.from = "9airports".code',
    );
    expect(joined.plan).toBe('COLLECTION_SCAN + HASH_JOIN(9airports)');
    expect(joined.documents).toEqual([{ '2024.orders.pnr': 'A', '9airports.city': 'Oslo' }]);
  });

  it('are still malformed numbers where a value or path is expected', async () => {
    await db().query('INSERT INTO alpha VALUES {"a":1}');
    await expect(db().query('SELECT * FROM alpha WHERE a = 12abc')).rejects.toMatchObject({
      code: 'ERR_SQL_SYNTAX',
      message: "malformed number '12a' at 1:31",
    });
    await expect(db().query('SELECT * FROM alpha WHERE a = 1.')).rejects.toMatchObject({
      message: "malformed number '1.' at 1:31",
    });
    await expect(db().query('SELECT * FROM alpha LIMIT 2x')).rejects.toMatchObject({
      message: "malformed number '2x' at 1:27",
    });
    await expect(db().query('SELECT 2024.x FROM 2024')).rejects.toMatchObject({
      message: "malformed number '2024.' at 1:8",
    });
  });

  it('leave a number before a comment a number', async () => {
    await db().query('INSERT INTO alpha VALUES {"a":1}, {"a":2}');
    expect((await db().query('SELECT * FROM alpha LIMIT 1-- one\n')).count).toBe(1);
  });
});

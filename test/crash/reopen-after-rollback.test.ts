// Proves that a rolled-back write in a freshly opened file cannot break later writes.
// Regression tests for a bug the crash test (crash.test.ts) found: a writer restarted after a
// SIGKILL whose first write touching an index was refused failed every later write.
//
// The cause was: Store.subDb() opened a sub-database this process had not opened yet inside
// the current write job (an LMDB child transaction) and cached the handle at once. When that
// job rolled back (a unique violation in replace, a refused atomic insertMany) LMDB discarded
// the handle with the transaction, but the cache kept it. Later writes through it failed with
// "The dbi N was out of range", or, once another sub-database had been opened into the freed
// slot, silently wrote through it into that other sub-database. Fixed in store.ts: a handle
// opened inside a write job joins the shared cache only once its batch commits.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, open } from '../../src/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('writes after a rolled-back write in a reopened file', () => {
  let dir: string;
  let cleanup: () => void;
  let db: Database | undefined;

  beforeEach(() => {
    ({ dir, cleanup } = makeTempDir('docdb-crash-'));
  });

  afterEach(async () => {
    await db?.close();
    db = undefined;
    cleanup();
  });

  /** A file with a unique index on t.pnr holding 'A' and 'B', reopened as after a restart. */
  async function reopened(): Promise<{ db: Database; a: string; b: string }> {
    const first = await open(dir);
    const t = first.collection('t');
    await t.createIndex({ name: 'by_pnr', paths: ['pnr'], unique: true });
    const a = await t.insert({ pnr: 'A' });
    const b = await t.insert({ pnr: 'B' });
    await first.collection('other').insert({ x: 1 });
    await first.close();
    db = await open(dir);
    return { db, a, b };
  }

  // Before the fix: ERR_STORAGE_FAILED "The dbi 5 was out of range for the number of dbis"
  // on the insert, and on every write to `t` after it.
  it('a refused replace leaves later inserts and deletes working', async () => {
    const { db, a, b } = await reopened();
    const t = db.collection('t');
    await expect(t.replace(b, { pnr: 'A' })).rejects.toMatchObject({
      code: 'ERR_UNIQUE_VIOLATION',
    });
    const c = await t.insert({ pnr: 'C' });
    expect(await t.delete(a)).toBe(true);
    expect(t.findBy('pnr', 'C').documents.map((d) => d._id)).toEqual([c]);
  });

  // Before the fix: the insert was acknowledged, but its by_pnr entry was written into
  // collection `other` (whose sub-database took the freed handle slot): `t`'s index missed
  // the document for good, and `other` held an undecodable "document".
  it('a refused atomic insertMany does not send later index entries elsewhere', async () => {
    const { db } = await reopened();
    const t = db.collection('t');
    const refused = await t.insertMany([{ pnr: 'Z' }, { pnr: 'A' }], { atomic: true });
    expect(refused.errors.map((e) => e.code)).toEqual(['ERR_UNIQUE_VIOLATION']);
    expect(db.collection('other').count()).toBe(1);
    const c = await t.insert({ pnr: 'C' });
    await db.close();
    const after = await open(dir);
    try {
      expect([...after.collection('other').scan()].map((d) => d.x)).toEqual([1]);
      expect(
        after
          .collection('t')
          .findBy('pnr', 'C')
          .documents.map((d) => d._id),
      ).toEqual([c]);
      const stats = after.stats().collections.find((s) => s.name === 't');
      expect(stats?.indexes[0]?.entries).toBe(3);
    } finally {
      await after.close();
    }
  });
});

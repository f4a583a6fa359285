/**
 * Proves the data file's size cap (`maxFileBytes`) on real LMDB files: it is checked at its
 * limit and one past; writes past it are refused with ERR_STORAGE_FULL naming the cap and
 * the setting, storing nothing of the refused batch; the file stays near the cap; reads and
 * deletes go on; writes resume once documents are deleted, and after a reopen with a larger
 * cap; every acknowledged write is there after a reopen; the value trees of index keys with
 * many documents count toward it; the write right after a delete reuses the pages it freed.
 */

import * as fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { type DbError, isDbError } from '../errors/index.js';
import { DATA_FILE_CAP_BYTES_MIN } from '../util/index.js';

const MiB = 1024 * 1024;
const CAP_BYTES = 2 * MiB;
/**
 * How far past the cap the file may grow, in pages LMDB could not reuse: those a job that only
 * deletes takes (its copies of changed pages, its change-log entries), which a cap lets
 * through so that room can be made, and those of index value trees grown within a batch,
 * counted once it commits. The delete-and-refill cycles peak at 34 such pages and the value
 * trees' test at 25; before the last commit's freed pages counted as in use (and a delete was
 * followed by a commit of nothing), 47 and 56.
 */
const FILE_SLACK_BYTES = 40 * 4096;
const BATCH = 20;

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => cleanup());

function batch(round: number): unknown[] {
  return Array.from({ length: BATCH }, (_, i) => ({ round, i, text: 'x'.repeat(1_000) }));
}

async function refusal(write: () => Promise<unknown>): Promise<DbError | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    if (isDbError(error)) return error;
    throw error;
  }
}

/** Inserts batches until one is refused; returns the acknowledged ids and the refusal. */
async function fill(db: Database): Promise<{ ids: string[]; refused: DbError }> {
  const ids: string[] = [];
  for (let round = 0; round < 1_000; round++) {
    const refused = await refusal(async () => {
      ids.push(...(await db.collection('filler').insertMany(batch(round))).ids);
    });
    if (refused) return { ids, refused };
  }
  throw new Error(`${ids.length} documents went in and the cap never refused one`);
}

describe('the data file size cap', () => {
  it('takes DATA_FILE_CAP_BYTES_MIN and refuses one byte less or a fraction', async () => {
    const db = await open(dir, { maxFileBytes: DATA_FILE_CAP_BYTES_MIN });
    await db.collection('c').insert({ a: 1 });
    await db.close();
    for (const bad of [DATA_FILE_CAP_BYTES_MIN - 1, DATA_FILE_CAP_BYTES_MIN + 0.5, 0]) {
      const refused = await refusal(() => open(dir, { maxFileBytes: bad }));
      expect(refused?.code).toBe('ERR_BAD_ARGUMENT');
      expect(refused?.message).toContain('maxFileBytes');
    }
  });

  it('refuses writes past it naming the cap, keeps reads, and stores nothing of the refused batch', async () => {
    const db = await open(dir, { maxFileBytes: CAP_BYTES });
    const { ids, refused } = await fill(db);
    expect(refused.code).toBe('ERR_STORAGE_FULL');
    expect(refused.message).toMatch(/reached its size cap of 2 MiB/);
    expect(refused.message).toContain('storage.maxFileMiB');
    expect(refused.message).toContain('maxFileBytes');
    expect(refused.message).not.toMatch(/bytes free/);
    expect(refused.details).toMatchObject({ capBytes: CAP_BYTES });
    // The cap was what stopped it, well past an empty file and near the cap.
    expect(ids.length).toBeGreaterThan(500);
    expect(fs.statSync(db.file).size).toBeLessThanOrEqual(CAP_BYTES + FILE_SLACK_BYTES);

    const filler = db.collection('filler');
    expect(filler.count()).toBe(ids.length);
    expect(await filler.get(ids[0] as string)).toMatchObject({ round: 0, i: 0 });
    const counted = await db.query('SELECT COUNT(*) AS n FROM filler');
    expect(counted.documents).toEqual([{ n: ids.length }]);
    await db.close();
  });

  it('takes writes again once documents are deleted, and keeps the file near the cap', async () => {
    const db = await open(dir, { maxFileBytes: CAP_BYTES });
    const { ids } = await fill(db);
    const filler = db.collection('filler');
    // At the cap a delete still goes through, whatever the change log adds.
    expect(await filler.delete(ids.shift() as string)).toBe(true);
    expect(await filler.deleteMany(ids.splice(0, 300))).toBe(300);
    for (let round = 0; round < 5; round++) {
      ids.push(...(await filler.insertMany(batch(round))).ids);
    }
    // Filled again, the file reused the freed pages rather than growing past the cap.
    await fill(db);
    expect(fs.statSync(db.file).size).toBeLessThanOrEqual(CAP_BYTES + FILE_SLACK_BYTES);
    await db.close();
  });

  it('gives the write right after a delete the room it made, rather than growing the file', async () => {
    const db = await open(dir, { maxFileBytes: CAP_BYTES });
    const { ids } = await fill(db);
    const filler = db.collection('filler');
    expect(await filler.deleteMany(ids.splice(0, 400))).toBe(400);
    const afterDelete = fs.statSync(db.file).size;
    // Half as many, each its own job, in one batch: the first commit after the delete's, and
    // LMDB gives no transaction the pages the commit before it freed. (A bulk insert's one
    // change-log entry would take a run of pages, which scattered freed pages do not give.)
    const again = Array.from({ length: 200 }, (_, i) =>
      filler.insert({ i, text: 'y'.repeat(1_000) }),
    );
    expect(await Promise.all(again)).toHaveLength(200);
    expect(fs.statSync(db.file).size).toBeLessThanOrEqual(afterDelete + 8 * 4096);
    await db.close();
  });

  it('makes room on every delete-and-refill cycle: the change log stays within its share', async () => {
    const db = await open(dir, { maxFileBytes: CAP_BYTES });
    const filler = db.collection('filler');
    let { ids } = await fill(db);
    const firstFill = ids.length;
    for (let cycle = 0; cycle < 10; cycle++) {
      const half = Math.floor(ids.length / 2);
      expect(await filler.deleteMany(ids.slice(0, half))).toBe(half);
      ids = ids.slice(half);
      // Half the documents gone: at least a third of them fit again.
      for (let round = 0; round < Math.floor(half / 3 / BATCH); round++) {
        ids.push(...(await filler.insertMany(batch(round))).ids);
      }
      ids.push(...(await fill(db)).ids);
      // Refilled, the file holds about as many documents as at first: the log did not take
      // the room the deletes made.
      expect(ids.length, `cycle ${cycle}`).toBeGreaterThan(0.8 * firstFill);
    }
    expect(filler.count()).toBe(ids.length);
    expect(fs.statSync(db.file).size).toBeLessThanOrEqual(CAP_BYTES + FILE_SLACK_BYTES);
    await db.close();
  });

  it('keeps every acknowledged write across a reopen, and a larger cap takes more', async () => {
    let db = await open(dir, { maxFileBytes: CAP_BYTES });
    const { ids } = await fill(db);
    await db.close();

    db = await open(dir, { maxFileBytes: CAP_BYTES });
    expect(db.collection('filler').count()).toBe(ids.length);
    expect((await refusal(() => db.collection('filler').insertMany(batch(0))))?.code).toBe(
      'ERR_STORAGE_FULL',
    );
    await db.close();

    db = await open(dir, { maxFileBytes: 2 * CAP_BYTES });
    const more = await db.collection('filler').insertMany(batch(1));
    expect(more.ids).toHaveLength(BATCH);
    for (const id of [ids[0], ids.at(-1), more.ids[0]]) {
      expect(await db.collection('filler').get(id as string)).toBeDefined();
    }
    await db.close();
  });

  it('counts the value trees of index keys with many documents', async () => {
    // Under a few keys each, these indexes keep their ids in value trees of their own, which
    // LMDB's tree statistics leave out: counted by those alone, this file reached 2.7 times
    // its cap before a write was refused.
    const db = await open(dir, { maxFileBytes: CAP_BYTES });
    const few = db.collection('few');
    for (const field of ['a', 'b', 'c']) await few.createIndex({ paths: [field] });
    let refused: DbError | undefined;
    for (let round = 0; round < 1_000 && !refused; round++) {
      refused = await refusal(() =>
        few.insertMany(Array.from({ length: 100 }, (_, i) => ({ a: i % 3, b: i % 2, c: 'x' }))),
      );
    }
    expect(refused?.code).toBe('ERR_STORAGE_FULL');
    expect(fs.statSync(db.file).size).toBeLessThanOrEqual(CAP_BYTES + FILE_SLACK_BYTES);
    expect(db.stats().pages.used * db.stats().pageSizeBytes).toBeLessThanOrEqual(
      CAP_BYTES + FILE_SLACK_BYTES,
    );
    await db.close();
  });
});

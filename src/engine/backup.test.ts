/**
 * Proves hot backups and restores on real LMDB files: a backup taken while writes run opens
 * as an ordinary data file, its indexes answer what a scan answers, and it holds every write
 * acknowledged before it began; a damaged backup (a flipped byte, a truncated file or
 * stream, no manifest) is refused before anything is restored; a restore refuses a data
 * directory that holds data unless forced; and point-in-time recovery brings a dropped
 * collection back exactly as it was at the chosen seq, with nothing after it.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { isDbError } from '../errors/index.js';
import { takeBackup, verifyBackup } from './backup.js';
import { BACKUP_MANIFEST_BYTES_MAX, packBackup, unpackBackup } from './backup-archive.js';
import { type Database, open } from './database.js';
import { SegmentWriter } from './log-segments.js';
import { restoreBackup } from './restore.js';

const cleanups: Array<() => void> = [];
const open_: Database[] = [];

afterEach(async () => {
  for (const db of open_.splice(0)) await db.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
  const temp = makeTempDir('docdb-backup-');
  cleanups.push(temp.cleanup);
  return temp.dir;
}

async function openDb(dir: string, readOnly = false): Promise<Database> {
  const db = await open(dir, { readOnly });
  open_.push(db);
  return db;
}

async function closeDb(db: Database): Promise<void> {
  open_.splice(open_.indexOf(db), 1);
  await db.close();
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isDbError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a rejection');
}

const doc = (i: number) => ({ n: i % 97, tag: `t${i % 13}`, body: 'x'.repeat(200), i });

/** Every index of `c` answers each value's find exactly as a scan of all documents does. */
async function expectIndexesAgreeWithScan(db: Database, name: string): Promise<void> {
  const c = db.requireCollection(name);
  const scan = await db.query(`SELECT * FROM ${name}`);
  expect(scan.plan).toBe('COLLECTION_SCAN');
  const all = scan.documents as Array<Record<string, unknown>>;
  for (const field of ['n', 'tag'] as const) {
    const values = new Set(all.map((d) => d[field]));
    for (const value of values) {
      const found = c.findBy(field, value);
      expect(found.index).toBeDefined();
      const scanned = all.filter((d) => d[field] === value).map((d) => d._id);
      expect(found.documents.map((d) => d._id).sort()).toEqual(scanned.sort());
    }
  }
}

describe('hot backup', () => {
  it('taken under a concurrent write load, opens, passes an index-vs-scan check and holds every write acknowledged before it began', async () => {
    const db = await openDb(tempDir());
    const orders = db.collection('orders');
    await orders.createIndex({ paths: ['n'] });
    await orders.createIndex({ paths: ['tag'] });
    const acknowledged: string[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const docs = Array.from({ length: 1000 }, (_, k) => doc(batch * 1000 + k));
      acknowledged.push(...(await orders.insertMany(docs)).ids);
    }
    // Writers keep going for the whole backup: inserts, replaces and deletes.
    let writing = true;
    let during = 0;
    const load = (async () => {
      let i = 100_000;
      while (writing) {
        const { ids } = await orders.insertMany([doc(i++), doc(i++), doc(i++)]);
        await orders.replace(ids[0] as string, { ...doc(i++), replaced: true });
        await orders.delete(ids[1] as string);
        during++;
      }
    })();
    const out = path.join(tempDir(), 'backup');
    const manifest = await takeBackup(db, out);
    writing = false;
    await load;
    expect(during).toBeGreaterThan(0);

    const copy = await openDb(out, true);
    expect(copy.nodeState().lastSeq).toBe(manifest.lastSeq);
    const copied = copy.requireCollection('orders');
    expect(copied.count()).toBe(manifest.collections[0]?.count);
    expect(copied.count()).toBeGreaterThanOrEqual(acknowledged.length);
    for (const id of acknowledged) expect(await copied.get(id)).toBeDefined();
    await expectIndexesAgreeWithScan(copy, 'orders');
    expect(copy.stats().collections[0]?.indexes.map((i) => i.state)).toEqual(['ready', 'ready']);
  }, 60_000);

  it('writes a manifest that describes the copy and the log it carries', async () => {
    const db = await openDb(tempDir());
    await db.collection('a').insertMany([{ x: 1 }, { x: 2 }]);
    await db.collection('b').insert({ y: 1 });
    const out = path.join(tempDir(), 'b1');
    const manifest = await takeBackup(db, out, { withLog: true });
    expect(manifest).toMatchObject({
      backupFormat: 1,
      lastSeq: 2,
      collections: [
        { name: 'a', count: 2, indexes: [] },
        { name: 'b', count: 1, indexes: [] },
      ],
      log: { firstSeq: 1, lastSeq: 2 },
    });
    expect(manifest.files.map((f) => f.path)).toEqual([
      'data.docdb',
      'log/changes-000000000000001.ndjson',
    ]);
    expect(fs.readdirSync(out).sort()).toEqual(['data.docdb', 'log', 'manifest.json']);
    await expect(verifyBackup(out)).resolves.toEqual(manifest);
  });

  it('refuses a target directory that is not empty', async () => {
    const db = await openDb(tempDir());
    const out = tempDir();
    fs.writeFileSync(path.join(out, 'x'), 'x');
    const error = await rejection(takeBackup(db, out));
    expect(error.code).toBe('ERR_BACKUP_TARGET_EXISTS');
  });
});

describe('restore', () => {
  async function backupOf(docs: number): Promise<string> {
    const db = await openDb(tempDir());
    await db.collection('c').insertMany(Array.from({ length: docs }, (_, i) => doc(i)));
    const out = path.join(tempDir(), 'b');
    await takeBackup(db, out);
    await closeDb(db);
    return out;
  }

  it('restores into an empty directory and says what it restored', async () => {
    const backup = await backupOf(50);
    const target = path.join(tempDir(), 'data');
    const result = await restoreBackup(backup, target);
    expect(result).toMatchObject({ backupSeq: 1, lastSeq: 1, replayed: 0 });
    expect(result.collections).toEqual([{ name: 'c', count: 50 }]);
    const db = await openDb(target);
    expect(db.collection('c').count()).toBe(50);
  });

  it('refuses a data directory that holds data unless forced', async () => {
    const backup = await backupOf(5);
    const target = tempDir();
    const old = await openDb(target);
    await old.collection('other').insert({ z: 1 });
    await closeDb(old);
    const error = await rejection(restoreBackup(backup, target));
    expect(error.code).toBe('ERR_RESTORE_TARGET_NOT_EMPTY');
    expect(error.message).toContain('--force');
    await restoreBackup(backup, target, { force: true });
    const db = await openDb(target);
    expect(db.collections()).toEqual(['c']);
  });

  it('refuses to restore over a data file a process holds open', async () => {
    const backup = await backupOf(5);
    const target = tempDir();
    await openDb(target);
    const error = await rejection(restoreBackup(backup, target, { force: true }));
    expect(error.code).toBe('ERR_STORAGE_LOCKED');
  });

  it('refuses a backup with one flipped byte, before touching the target', async () => {
    const backup = await backupOf(200);
    const file = path.join(backup, 'data.docdb');
    const bytes = fs.readFileSync(file);
    const at = Math.floor(bytes.length / 2);
    bytes[at] = (bytes[at] as number) ^ 0x01;
    fs.writeFileSync(file, bytes);
    const target = path.join(tempDir(), 'data');
    const error = await rejection(restoreBackup(backup, target));
    expect(error.code).toBe('ERR_BACKUP_CORRUPT');
    expect(error.message).toMatch(/data\.docdb does not match its checksum/);
    expect(fs.existsSync(path.join(target, 'data.docdb'))).toBe(false);
  });

  it('refuses a truncated backup, and one without its manifest', async () => {
    const backup = await backupOf(200);
    const file = path.join(backup, 'data.docdb');
    const size = fs.statSync(file).size;
    fs.truncateSync(file, size - 4096);
    const truncated = await rejection(restoreBackup(backup, path.join(tempDir(), 'd')));
    expect(truncated.code).toBe('ERR_BACKUP_CORRUPT');
    expect(truncated.message).toContain(`is truncated: ${size - 4096} of its ${size} bytes`);
    fs.rmSync(path.join(backup, 'manifest.json'));
    const unfinished = await rejection(restoreBackup(backup, path.join(tempDir(), 'd')));
    expect(unfinished.code).toBe('ERR_BACKUP_INVALID');
  });

  it('restores from a backup stream saved to a file, and refuses one cut short', async () => {
    const backup = await backupOf(100);
    const chunks: Buffer[] = [];
    for await (const chunk of packBackup(backup)) chunks.push(chunk);
    const whole = Buffer.concat(chunks);
    const streamFile = path.join(tempDir(), 'backup.docdb-backup');
    fs.writeFileSync(streamFile, whole);
    const target = path.join(tempDir(), 'data');
    const result = await restoreBackup(streamFile, target);
    expect(result.collections).toEqual([{ name: 'c', count: 100 }]);

    fs.writeFileSync(streamFile, whole.subarray(0, whole.length - 100));
    const error = await rejection(restoreBackup(streamFile, path.join(tempDir(), 'd')));
    expect(error.code).toBe('ERR_BACKUP_CORRUPT');
    expect(error.message).toContain('truncated');
    const unpacked = path.join(tempDir(), 'u');
    const flipped = Buffer.from(whole);
    flipped[flipped.length - 10] = (flipped[flipped.length - 10] as number) ^ 0xff;
    const bad = await rejection(
      unpackBackup(
        (async function* () {
          yield flipped;
        })(),
        unpacked,
        'the stream',
      ),
    );
    expect(bad.code).toBe('ERR_BACKUP_CORRUPT');
  });
});

describe('the backup stream', () => {
  it('takes a manifest line of BACKUP_MANIFEST_BYTES_MAX bytes, and refuses one a byte longer', async () => {
    const db = await openDb(tempDir());
    await db.collection('c').insert({ a: 1 });
    const backup = path.join(tempDir(), 'b');
    await takeBackup(db, backup);
    const chunks: Buffer[] = [];
    for await (const chunk of packBackup(backup)) chunks.push(chunk);
    const whole = Buffer.concat(chunks);
    const end = whole.indexOf(0x0a);
    // JSON allows spaces after the value: pad the manifest line to a given length.
    const padded = (bytes: number) =>
      Buffer.concat([whole.subarray(0, end), Buffer.alloc(bytes - end, 0x20), whole.subarray(end)]);
    const stream = (bytes: Buffer) =>
      (async function* () {
        yield bytes;
      })();
    const atLimit = await unpackBackup(
      stream(padded(BACKUP_MANIFEST_BYTES_MAX)),
      path.join(tempDir(), 'u1'),
      'at the limit',
    );
    expect(atLimit.collections).toEqual([{ name: 'c', count: 1, indexes: [] }]);
    const past = await rejection(
      unpackBackup(
        stream(padded(BACKUP_MANIFEST_BYTES_MAX + 1)),
        path.join(tempDir(), 'u2'),
        'past it',
      ),
    );
    expect(past.code).toBe('ERR_BACKUP_INVALID');
  });
});

describe('point-in-time recovery', () => {
  it('write, back up, drop a collection: a restore to the seq before the drop has it back, and nothing after', async () => {
    const db = await openDb(tempDir());
    const archive = tempDir();
    const people = db.collection('people');
    await people.createIndex({ paths: ['n'], unique: true });
    await people.insertMany(Array.from({ length: 30 }, (_, i) => ({ n: i, name: `p${i}` })));
    const out = path.join(tempDir(), 'nightly');
    const manifest = await takeBackup(db, out);
    // After the backup: more writes, then the mistake, then more writes.
    const late = await people.insert({ n: 100, name: 'late' });
    await db.collection('other').insert({ k: 1 });
    const beforeDrop = db.nodeState().lastSeq;
    const expected = people.list({ limit: 1000 });
    await db.dropCollection('people');
    await db.collection('other').insert({ k: 2 });
    await db.collection('people').insert({ n: 1, name: 'new' });
    // What a node with backup.logArchiveDir keeps: the log, in segments.
    await new SegmentWriter(archive).append([...db.changesSince(manifest.lastSeq)]);

    const target = path.join(tempDir(), 'restored');
    const result = await restoreBackup(out, target, {
      point: { toSeq: beforeDrop },
      logDirs: [archive],
    });
    expect(result).toMatchObject({ backupSeq: manifest.lastSeq, lastSeq: beforeDrop, replayed: 2 });
    const restored = await openDb(target);
    const back = restored.requireCollection('people');
    expect(back.list({ limit: 1000 })).toEqual(expected);
    expect(await back.get(late)).toMatchObject({ name: 'late' });
    expect(back.listIndexes().map((i) => [i.name, i.unique])).toEqual([['idx_people_n', true]]);
    expect(
      restored
        .requireCollection('other')
        .list()
        .map((d) => d.k),
    ).toEqual([1]);
    expect(restored.nodeState().lastSeq).toBe(beforeDrop);
  });

  it('replays logs split over several directories: overlaps taken once, a gap named', async () => {
    const db = await openDb(tempDir());
    const c = db.collection('c');
    await c.insert({ v: 0 });
    const out = path.join(tempDir(), 'b');
    const manifest = await takeBackup(db, out);
    for (let v = 1; v <= 10; v++) await c.insert({ v });
    const entries = [...db.changesSince(manifest.lastSeq)];
    const [early, late, head, tail] = [tempDir(), tempDir(), tempDir(), tempDir()];
    await new SegmentWriter(early).append(entries.slice(0, 6));
    await new SegmentWriter(late).append(entries.slice(3));
    const whole = await restoreBackup(out, path.join(tempDir(), 'r1'), {
      point: { toSeq: manifest.lastSeq + 10 },
      logDirs: [late, early],
    });
    expect(whole).toMatchObject({ lastSeq: manifest.lastSeq + 10, replayed: 10 });
    const restored = await openDb(path.join(path.dirname(whole.file)));
    expect(restored.requireCollection('c').count()).toBe(11);

    await new SegmentWriter(head).append(entries.slice(0, 3));
    await new SegmentWriter(tail).append(entries.slice(5));
    const gap = await rejection(
      restoreBackup(out, path.join(tempDir(), 'r2'), {
        point: { toSeq: manifest.lastSeq + 10 },
        logDirs: [head, tail],
      }),
    );
    expect(gap.code).toBe('ERR_RESTORE_POINT_UNREACHABLE');
    expect(gap.message).toContain(`no entry ${manifest.lastSeq + 4}`);
    // Up to the gap the logs are whole: a point before it is reached.
    const before = await restoreBackup(out, path.join(tempDir(), 'r3'), {
      point: { toSeq: manifest.lastSeq + 3 },
      logDirs: [head, tail],
    });
    expect(before).toMatchObject({ replayed: 3 });
  });

  it('stops by time, never inside a write of several entries, and names a point the logs cannot reach', async () => {
    const db = await openDb(tempDir());
    const archive = tempDir();
    const c = db.collection('c');
    await c.insertMany([{ v: 1 }, { v: 2 }, { v: 3 }]);
    const out = path.join(tempDir(), 'b');
    const manifest = await takeBackup(db, out);
    await db.query('UPDATE c SET v = 0');
    const entries = [...db.changesSince(manifest.lastSeq)];
    expect(entries.map((e) => e.endSeq)).toEqual([4, 4, 4]);
    await new SegmentWriter(archive).append(entries);

    const inside = await restoreBackup(out, path.join(tempDir(), 'r1'), {
      point: { toSeq: 3 },
      logDirs: [archive],
    });
    expect(inside).toMatchObject({ lastSeq: 1, replayed: 0, stoppedBefore: { seq: 2, endSeq: 4 } });

    const byTime = await restoreBackup(out, path.join(tempDir(), 'r2'), {
      point: { toTimeMs: (entries[0]?.atMs as number) - 1 },
      logDirs: [archive],
    });
    expect(byTime).toMatchObject({ lastSeq: 1, replayed: 0 });

    const error = await rejection(
      restoreBackup(out, path.join(tempDir(), 'r3'), { point: { toSeq: 9 }, logDirs: [archive] }),
    );
    expect(error.code).toBe('ERR_RESTORE_POINT_UNREACHABLE');
    expect(error.message).toContain('reach seq 4, not 9');
  });
});

/**
 * The write path's guarantees after a power cut, without a special file system: the disk a
 * cut leaves is built from real files. At a checkpoint the data file's bytes are what the
 * disk holds (it was just flushed); after more acknowledged writes the write-ahead log holds
 * them, while the data file's later pages may or may not have reached the disk, each on its
 * own. An open of any such mix gives back every acknowledged write, with indexes and log
 * whole; a torn last frame of the log is left out; a read-only open recovers first. The FUSE
 * power-cut part of the crash suite (test/crash) cuts a running writer; this one runs
 * everywhere.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { seededRandom } from '../util/index.js';
import { readCheckpointRecord } from './checkpoint.js';
import { checkpointInterval, walExtent } from './durability.js';
import { DATA_FILE_NAME } from './index.js';
import { namedTrees, openEnv } from './lmdb-env.js';
import { listWalSegments, readWal, walDirectory } from './wal.js';

const tempDir = tempDirPerTest();

/** The native LMDB environment's calls a test makes fail. */
interface NativeEnv {
  commitTxn: () => void;
  abortTxn: () => void;
}

const PAGE = 4096;

/** The files of a data directory as a disk would hold them: name to bytes. */
type Disk = Map<string, Buffer>;

function readDisk(dir: string): Disk {
  const disk: Disk = new Map();
  const file = path.join(dir, DATA_FILE_NAME);
  disk.set(DATA_FILE_NAME, fs.readFileSync(file));
  const wal = walDirectory(file);
  for (const name of fs.readdirSync(wal)) {
    disk.set(path.join(path.basename(wal), name), fs.readFileSync(path.join(wal, name)));
  }
  return disk;
}

function writeDisk(disk: Disk): string {
  const dir = tempDir();
  for (const [name, bytes] of disk) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), bytes);
  }
  return dir;
}

/**
 * The data file a cut leaves: each page that changed since the checkpoint is the later one
 * or the checkpoint's, at random (torn on page boundaries), and pages the file grew by are
 * there or zeros.
 */
function tornDataFile(atCheckpoint: Buffer, later: Buffer, seed: number): Buffer {
  const random = seededRandom(seed);
  const torn = Buffer.from(later);
  for (let at = 0; at < later.length; at += PAGE) {
    const before = atCheckpoint.subarray(at, at + PAGE);
    const after = later.subarray(at, at + PAGE);
    if (before.equals(after) || random() < 0.5) continue;
    if (before.length === PAGE) before.copy(torn, at);
    else torn.fill(0, at, at + PAGE);
  }
  return torn;
}

/** Every document of every collection, by collection and id. */
function contents(db: Database): Map<string, unknown> {
  const all = new Map<string, unknown>();
  for (const name of db.collections()) {
    for (const doc of db.collection(name).list({ limit: 10_000 })) {
      all.set(`${name}/${(doc as { _id: string })._id}`, doc);
    }
  }
  return all;
}

/** Writes of every kind, acknowledged one by one and in groups. */
async function writeMore(db: Database, round: number): Promise<void> {
  const orders = db.collection('orders');
  const ids = (
    await orders.insertMany(
      Array.from({ length: 40 }, (_, i) => ({ round, i, status: i % 2 ? 'open' : 'paid' })),
    )
  ).ids;
  await Promise.all(
    ids.slice(0, 10).map((id, i) => orders.replace(id, { round, i, status: 'shipped' })),
  );
  for (const id of ids.slice(10, 15)) await orders.delete(id);
  await db.collection('notes').insert({ round, text: 'ä'.repeat(round + 1) });
}

describe('after a power cut', () => {
  it('gives back every acknowledged write, whatever of the data file reached the disk', async () => {
    const dir = tempDir();
    const db = await open(dir);
    await writeMore(db, 0);
    await db.collection('orders').createIndex({ paths: ['status'] });
    await db.checkpoint();
    // writeMore writes documents of the shapes round 0 did: no new shape makes a checkpoint.
    const atCheckpoint = fs.readFileSync(path.join(dir, DATA_FILE_NAME));
    for (let round = 1; round <= 5; round++) await writeMore(db, round);
    expect(readCheckpointRecord(path.join(dir, DATA_FILE_NAME))?.metaPages).toEqual(
      atCheckpoint.subarray(0, 2 * PAGE),
    );
    const acknowledged = contents(db);
    const lastSeq = db.nodeState().lastSeq;
    const later = readDisk(dir);
    await db.close();

    for (const seed of [1, 2, 3, 4]) {
      const disk = new Map(later);
      const data = later.get(DATA_FILE_NAME) as Buffer;
      disk.set(DATA_FILE_NAME, tornDataFile(atCheckpoint, data, seed));
      const crashed = writeDisk(disk);
      const reopened = await open(crashed);
      try {
        const recovery = reopened.recovery();
        expect(recovery.replayed, `seed ${seed}`).toBeGreaterThan(0);
        expect(recovery.stopped).toBeUndefined();
        expect(contents(reopened)).toEqual(acknowledged);
        expect(reopened.nodeState().lastSeq).toBe(lastSeq);
        const shipped = reopened.collection('orders').findBy('status', 'shipped');
        expect(shipped.index).toBeDefined();
        expect(shipped.documents.length).toBe(60);
        const report = await reopened.verify();
        expect(report.problems).toEqual([]);
        expect(report.ok).toBe(true);
        // New writes go on after the recovered ones, and survive a clean reopen.
        await reopened.collection('notes').insert({ after: true });
      } finally {
        await reopened.close();
      }
      const again = await open(crashed);
      expect(again.recovery()).toMatchObject({ restored: false, replayed: 0 });
      expect(again.collection('notes').count()).toBe(7);
      await again.close();
    }
  });

  it('gives back a write that added a document shape, whose structure the log does not hold', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    const db = await open(dir);
    await writeMore(db, 0);
    await db.checkpoint();
    const atCheckpoint = fs.readFileSync(file);
    await writeMore(db, 1);
    await db.collection('notes').insert({ shape: 'not seen before', round: 1 });
    await writeMore(db, 2);
    const acknowledged = contents(db);
    const later = readDisk(dir);
    // The disk holds the data file as at its last checkpoint, each later page or not.
    const checkpointed = readCheckpointRecord(file)?.metaPages;
    const unchanged = checkpointed?.equals(atCheckpoint.subarray(0, 2 * PAGE)) === true;
    const base = unchanged ? atCheckpoint : (later.get(DATA_FILE_NAME) as Buffer);
    await db.close();

    for (const seed of [1, 2, 3, 4]) {
      const disk = new Map(later);
      disk.set(DATA_FILE_NAME, tornDataFile(base, later.get(DATA_FILE_NAME) as Buffer, seed));
      const reopened = await open(writeDisk(disk));
      try {
        expect(reopened.recovery().stopped, `seed ${seed}`).toBeUndefined();
        expect(contents(reopened)).toEqual(acknowledged);
      } finally {
        await reopened.close();
      }
    }
  });

  it('leaves out a torn last group of the log, which was never acknowledged', async () => {
    const dir = tempDir();
    const db = await open(dir);
    await writeMore(db, 0);
    await db.checkpoint();
    const atCheckpoint = fs.readFileSync(path.join(dir, DATA_FILE_NAME));
    // Documents of shapes the file knows: a new shape is stored with a checkpoint of its own,
    // and the data file copied above would no longer be the last checkpoint's.
    const notes = db.collection('notes');
    for (let i = 0; i < 5; i++) await notes.insert({ round: i, text: 'after' });
    const acknowledged = contents(db);
    const lastWrite = await notes.insert({ round: 9, text: 'last' });
    const disk = readDisk(dir);
    const [segment] = listWalSegments(walDirectory(path.join(dir, DATA_FILE_NAME)));
    await db.close();

    // The last frame written, its tail never reached the disk.
    const name = path.join(`${DATA_FILE_NAME}-wal`, path.basename(segment?.file as string));
    const bytes = Buffer.from(disk.get(name) as Buffer);
    let end = bytes.length;
    while (end > 0 && bytes[end - 1] === 0) end--;
    bytes.fill(0, end - 8, end);
    disk.set(name, bytes);
    disk.set(DATA_FILE_NAME, atCheckpoint);
    const crashed = writeDisk(disk);

    const reopened = await open(crashed);
    try {
      expect(reopened.recovery().stopped).toMatch(/checksum does not match/);
      expect(contents(reopened)).toEqual(acknowledged);
      expect(await reopened.collection('notes').get(lastWrite)).toBeUndefined();
      expect((await reopened.verify()).ok).toBe(true);
    } finally {
      await reopened.close();
    }
  });

  it('gives back every write of a log that passed its segment size under concurrent writers', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    const db = await open(dir, { checkpointBytes: 512 * 1024 * 1024 });
    const notes = db.collection('notes');
    await notes.insert({ round: -1, text: '' });
    await db.checkpoint();
    const atCheckpoint = fs.readFileSync(file);
    // 48 documents of 700 KB from callers a turn apart: groups commit while earlier ones
    // flush, and the log passes 16 MiB twice, its next segment begun behind waiting frames.
    const text = 'x'.repeat(700 * 1024);
    const writes: Promise<string>[] = [];
    for (let i = 0; i < 48; i++) {
      writes.push(notes.insert({ round: i, text: `${i}${text}` }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(writes);
    expect(listWalSegments(walDirectory(file)).length).toBeGreaterThanOrEqual(3);
    const acknowledged = contents(db);
    const later = readDisk(dir);
    await db.close();

    const disk = new Map(later);
    disk.set(DATA_FILE_NAME, tornDataFile(atCheckpoint, later.get(DATA_FILE_NAME) as Buffer, 5));
    const reopened = await open(writeDisk(disk));
    try {
      expect(reopened.recovery().stopped).toBeUndefined();
      expect(reopened.recovery().replayed).toBe(48);
      expect(contents(reopened)).toEqual(acknowledged);
      expect((await reopened.verify()).ok).toBe(true);
    } finally {
      await reopened.close();
    }
  });

  it('never gives back a write whose commit failed after its group was logged', async () => {
    const dir = tempDir();
    const db = await open(dir);
    const notes = db.collection('notes');
    await notes.insert({ round: 0, text: 'first' });
    await db.checkpoint();
    const atCheckpoint = fs.readFileSync(path.join(dir, DATA_FILE_NAME));
    // A segment begun: the next group's frame is written at once.
    await notes.insert({ round: 0, text: 'second' });
    const seq = db.nodeState().lastSeq;
    // LMDB refuses the next commit (as a full disk would), after the group's frame was
    // written to the log ahead of it.
    const native = (db as unknown as { store: { handles: { env: { env: NativeEnv } } } }).store
      .handles.env.env;
    const commit = native.commitTxn;
    let calls = 0;
    Object.defineProperty(native, 'commitTxn', {
      configurable: true,
      value: () => {
        // The first commit is the write's own child transaction's; the second, the batch's.
        if (++calls === 1) return commit.call(native);
        delete (native as Partial<NativeEnv>).commitTxn;
        native.abortTxn();
        throw new Error('No space left on device');
      },
    });
    await expect(notes.insert({ round: 1, text: 'refused' })).rejects.toMatchObject({
      code: 'ERR_STORAGE_FULL',
    });
    const afterRefusal = readDisk(dir);
    await notes.insert({ round: 2, text: 'taken' });
    expect(db.nodeState().lastSeq).toBe(seq + 1);
    const acknowledged = contents(db);
    const later = readDisk(dir);
    await db.close();

    for (const [disk, notesThere] of [
      [afterRefusal, ['first', 'second']],
      [later, ['first', 'second', 'taken']],
    ] as const) {
      disk.set(DATA_FILE_NAME, atCheckpoint);
      const reopened = await open(writeDisk(disk));
      try {
        const texts = reopened
          .collection('notes')
          .list({ limit: 10 })
          .map((doc) => (doc as { text: string }).text);
        expect(texts).toEqual(notesThere);
        expect(reopened.nodeState().lastSeq).toBe(seq + notesThere.length - 2);
        expect((await reopened.verify()).ok).toBe(true);
      } finally {
        await reopened.close();
      }
    }
    expect(contents(await open(dir, { readOnly: true }))).toEqual(acknowledged);
  });

  it('keeps the file within a few checkpoints of pages under a long run of updates', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    const db = await open(dir, { checkpointBytes: 2 * 1024 * 1024 });
    try {
      const notes = db.collection('notes');
      const ids = (
        await notes.insertMany(
          Array.from({ length: 200 }, (_, i) => ({ i, text: 'a'.repeat(300) })),
        )
      ).ids;
      const sizes: number[] = [];
      for (let round = 0; round < 4; round++) {
        for (let i = 0; i < 1000; i++) {
          await notes.replace(ids[i % ids.length] as string, { i, text: 'b'.repeat(300) });
        }
        sizes.push(fs.statSync(file).size);
      }
      // Each update writes a few pages the pinned checkpoint keeps from reuse; checkpoints,
      // begun by the pages written, let them be reused, so the file grows by about the
      // change log's entries only (3,000 of about 400 bytes), not by the pages rewritten.
      const grown = (sizes[3] as number) - (sizes[0] as number);
      expect(grown, `sizes ${sizes.join(', ')}`).toBeLessThan(5 * 1024 * 1024);
      expect(readCheckpointRecord(file)?.seq).toBeGreaterThan(200);
    } finally {
      await db.close();
    }
  });

  it('is recovered by a read-only open too, which then reads every acknowledged write', async () => {
    const dir = tempDir();
    const db = await open(dir);
    await writeMore(db, 0);
    await db.checkpoint();
    const atCheckpoint = fs.readFileSync(path.join(dir, DATA_FILE_NAME));
    await writeMore(db, 1);
    const acknowledged = contents(db);
    const disk = readDisk(dir);
    await db.close();
    disk.set(DATA_FILE_NAME, atCheckpoint);
    const crashed = writeDisk(disk);
    const file = path.join(crashed, DATA_FILE_NAME);
    expect(readCheckpointRecord(file)?.clean).toBe(false);
    const checkpointSeq = readCheckpointRecord(file)?.seq ?? 0;
    expect(readWal(walDirectory(file), checkpointSeq).entries.length).toBeGreaterThan(0);

    const reader = await open(crashed, { readOnly: true });
    try {
      expect(contents(reader)).toEqual(acknowledged);
    } finally {
      await reader.close();
    }
    // The recovery closed the file cleanly: the log is empty and the record clean.
    expect(readCheckpointRecord(file)?.clean).toBe(true);
    expect(listWalSegments(walDirectory(file))).toEqual([]);
  });

  it('takes no room for the log once a checkpoint holds every write', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    const logBytes = () =>
      listWalSegments(walDirectory(file)).reduce((sum, s) => sum + fs.statSync(s.file).size, 0);
    const db = await open(dir);
    // The first round's new collections take checkpoints of their own; the second's writes
    // are held by the log alone.
    await writeMore(db, 0);
    await writeMore(db, 1);
    // The open segment holds its frames and a MiB of zeros ahead of them at least: on a
    // nearly full disk, room the next start needs for its writer lock.
    expect(logBytes()).toBeGreaterThan(1024 * 1024);
    await db.checkpoint();
    expect(logBytes()).toBeLessThan(64);
    // Written after the cut, at its start: a crash now gives them back from the log.
    await writeMore(db, 2);
    const acknowledged = contents(db);
    const checkpointSeq = readCheckpointRecord(file)?.seq ?? 0;
    expect(readWal(walDirectory(file), checkpointSeq).entries.length).toBeGreaterThan(0);
    const crashed = writeDisk(readDisk(dir));
    await db.close();
    expect(logBytes()).toBeLessThan(64);
    expect(readCheckpointRecord(file)?.clean).toBe(true);

    const recovered = await open(crashed);
    try {
      expect(recovered.recovery().replayed).toBeGreaterThan(0);
      expect(contents(recovered)).toEqual(acknowledged);
    } finally {
      await recovered.close();
    }

    const reopened = await open(dir);
    try {
      expect(contents(reopened)).toEqual(acknowledged);
      expect(reopened.recovery().replayed).toBe(0);
    } finally {
      await reopened.close();
    }
  });

  it('moves between the log and a size cap (LMDB flushing each commit) with nothing lost', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    const db = await open(dir);
    await writeMore(db, 0);
    await db.close();
    expect(readCheckpointRecord(file)?.clean).toBe(true);
    const capped = await open(dir, { maxFileBytes: 64 * 1024 * 1024 });
    await capped.collection('notes').insert({ capped: true });
    const acknowledged = contents(capped);
    // Not closed: LMDB flushed the commit itself, so the file is taken as it is.
    const disk = readDisk(dir);
    await capped.close();
    const reopened = await open(writeDisk(disk));
    try {
      expect(reopened.recovery()).toMatchObject({ restored: false, replayed: 0 });
      expect(contents(reopened)).toEqual(acknowledged);
    } finally {
      await reopened.close();
    }
  });

  it('shows the change log, its feed and its waiters a commit only once it is durable', async () => {
    const db = await open(tempDir());
    try {
      const notes = db.collection('notes');
      await notes.insert({ round: 0, text: 'first' });
      const before = db.nodeState().lastSeq;
      const waited = db.store.whenCommittedAfter(before);
      let woke = false;
      void waited.then(() => {
        woke = true;
      });
      const written = notes.insert({ round: 1, text: 'second' });
      // The write's batch ran in this turn's check phase, before this callback: committed in
      // LMDB, its flush still on libuv's threads.
      await new Promise((resolve) => setImmediate(resolve));
      expect(db.nodeState().lastSeq).toBe(before + 1);
      expect([...db.changesSince(before)]).toEqual([]);
      expect(woke).toBe(false);
      await written;
      expect([...db.changesSince(before)].map((e) => e.seq)).toEqual([before + 1]);
      expect(await waited).toBe(before + 1);
    } finally {
      await db.close();
    }
  });

  it('deletes at open a tree a stop left emptied but not deleted', async () => {
    const dir = tempDir();
    const db = await open(dir);
    let disk: Disk;
    try {
      await db
        .collection('s')
        .insertMany(Array.from({ length: 600 }, (_, i) => ({ i, pad: 'p'.repeat(300) })));
      await db.collection('kept').insert({ kept: true });
      // A stream reads the collection's tree, so dropping it only empties it (Handles.drop);
      // the disk is taken before any later write deletes it.
      const stream = db.queryStream('SELECT * FROM s', [], { rows: 'ndjson' });
      await stream.next();
      await db.collection('s').drop();
      disk = readDisk(dir);
      await stream.return(undefined);
    } finally {
      await db.close();
    }
    const stopped = writeDisk(disk);
    const left = treesOf(path.join(stopped, DATA_FILE_NAME));
    expect(left.filter(isCollectionTree)).toHaveLength(2);

    const reopened = await open(stopped);
    try {
      expect(reopened.recovery().treesDropped).toBe(1);
      expect(reopened.collection('kept').count()).toBe(1);
      expect(reopened.collections()).toEqual(['kept']);
      expect((await reopened.verify()).ok).toBe(true);
    } finally {
      await reopened.close();
    }
    const after = treesOf(path.join(stopped, DATA_FILE_NAME));
    expect(after.filter(isCollectionTree)).toHaveLength(1);
    expect(after).toEqual(left.filter((name) => after.includes(name)));
  });
});

/** A collection's tree (`c<N>`), not the catalog's or the change log's. */
function isCollectionTree(name: string): boolean {
  return /^c[0-9]+$/.test(name);
}

/** The names of a closed data file's trees. */
function treesOf(file: string): string[] {
  const env = openEnv(file, true);
  try {
    return namedTrees(env);
  } finally {
    void env.close();
  }
}

describe('the checkpoint interval', () => {
  it("shrinks to a quarter of the free room on a disk with little of it, and the log's zeros ahead too", () => {
    const MiB = 1024 * 1024;
    expect(checkpointInterval(64 * MiB, undefined)).toBe(64 * MiB);
    expect(checkpointInterval(64 * MiB, 100 * 1024 * MiB)).toBe(64 * MiB);
    expect(checkpointInterval(64 * MiB, 8 * MiB)).toBe(2 * MiB);
    expect(checkpointInterval(64 * MiB, 0)).toBe(256 * 1024);
    expect(checkpointInterval(MiB, 2 * MiB)).toBe(512 * 1024);
    // The log's zeros ahead shrink with the room alone, not with a small interval setting.
    expect(walExtent(undefined)).toBe(MiB);
    expect(walExtent(100 * 1024 * MiB)).toBe(MiB);
    expect(walExtent(8 * MiB)).toBe(128 * 1024);
    expect(walExtent(0)).toBe(16 * 1024);
  });
});

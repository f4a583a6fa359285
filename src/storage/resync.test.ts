/**
 * Proves a follower's snapshot load (resync) on real files: a node that held other data ends
 * with exactly the source's collections, documents, ids, index definitions and index lookups
 * (stale indexes stay stale, even a unique one its documents break), its log empty at the
 * snapshot's seq so the source's next entry applies and a gap does not; cached plans, holds,
 * waiters and follows see the new state; a crash mid-load leaves the mark, which a new load
 * clears by starting over; the load passes a follower's write gate while client writes are
 * refused; and the log's last term: `nodeState().lastTerm` is the term of the newest entry,
 * or the floor's once trims emptied the log, and `termAt(seq)` answers each retained seq.
 */

import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import {
  type ChangeEntry,
  type Document,
  type FileSnapshot,
  type LogPosition,
  type SnapshotLoad,
  Store,
} from './index.js';

const tempDir = tempDirPerTest();

describe('the last term and termAt', () => {
  it('are 0 before anything was written, then follow the writes and the terms', async () => {
    const db = await open(tempDir());
    expect(db.nodeState()).toEqual({ term: 1, lastSeq: 0, seqFloor: 0, lastTerm: 0 });
    expect(db.store.termAt(0)).toBe(0);
    expect(db.store.termAt(1)).toBeUndefined();
    await db.collection('c').insert({ n: 1 });
    expect(db.nodeState()).toMatchObject({ lastSeq: 1, lastTerm: 1 });
    // A new term moves the node, not its newest entry: that one was written in term 1.
    await db.store.setTerm(3);
    expect(db.nodeState()).toMatchObject({ term: 3, lastSeq: 1, lastTerm: 1 });
    await db.collection('c').insert({ n: 2 });
    await db.collection('c').insert({ n: 3 });
    expect(db.nodeState()).toEqual({
      term: 3,
      lastSeq: 3,
      seqFloor: 0,
      lastTerm: 3,
      lastChain: db.store.chainAt(3),
    });
    expect(db.store.chainAt(3)).toMatch(/^[0-9a-f]{32}$/);
    expect([0, 1, 2, 3, 4].map((seq) => db.store.termAt(seq))).toEqual([0, 1, 3, 3, undefined]);
    expect(db.store.termRuns()).toEqual([
      { term: 1, from: 1 },
      { term: 3, from: 2 },
    ]);
    expect(db.store.termAt(-1)).toBeUndefined();
    expect(db.store.termAt(1.5)).toBeUndefined();
    await db.close();
  });

  it("keep the term history and the floor's term and link through checkpoints and a reopen", async () => {
    const dir = tempDir();
    const store = Store.open(dir);
    const insert = () =>
      store.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({}, undefined)]));
    await insert();
    await insert();
    await store.setTerm(2);
    await insert();
    await store.setTerm(5);
    await insert();
    const chains = [1, 2, 3, 4].map((seq) => store.chainAt(seq));
    await store.checkpoint(2);
    expect(store.nodeState()).toEqual({
      term: 5,
      lastSeq: 4,
      seqFloor: 2,
      lastTerm: 5,
      lastChain: chains[3],
    });
    // The history keeps the terms of trimmed entries; their links go with them.
    expect([1, 2, 3, 4, 5].map((seq) => store.termAt(seq))).toEqual([1, 1, 2, 5, undefined]);
    expect([1, 2, 3, 4].map((seq) => store.chainAt(seq))).toEqual([undefined, ...chains.slice(1)]);
    // Trimmed empty: the last term and link are the floor's, of the last entry trimmed.
    await store.checkpoint(0);
    const trimmed = { term: 5, lastSeq: 4, seqFloor: 4, lastTerm: 5, lastChain: chains[3] };
    expect(store.nodeState()).toEqual(trimmed);
    expect(store.termAt(4)).toBe(5);
    expect(store.termAt(3)).toBe(2);
    expect(store.chainAt(3)).toBeUndefined();
    await store.close();
    const reopened = Store.open(dir);
    expect(reopened.nodeState()).toEqual(trimmed);
    expect(reopened.termRuns()).toEqual([
      { term: 1, from: 1 },
      { term: 2, from: 3 },
      { term: 5, from: 4 },
    ]);
    expect(reopened.termAt(4)).toBe(5);
    await reopened.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({}, undefined)]));
    expect(reopened.nodeState()).toMatchObject({ lastSeq: 5, lastTerm: 5 });
    await reopened.close();
  });

  it('keep the floor term when writes trim the log to its byte bound', async () => {
    const db = await open(tempDir(), { changeLogRetainBytes: 64 * 1024 });
    const filler = 'x'.repeat(2000);
    for (let batch = 0; batch < 30; batch++) {
      if (batch === 10) await db.store.setTerm(2);
      await db.collection('c').insertMany(Array.from({ length: 20 }, (_, i) => ({ i, filler })));
    }
    const { seqFloor, lastSeq } = db.nodeState();
    expect(seqFloor).toBeGreaterThan(10);
    expect(db.store.termAt(seqFloor)).toBe(2);
    expect([10, 11].map((seq) => db.store.termAt(seq))).toEqual([1, 2]);
    expect(db.store.termAt(lastSeq)).toBe(2);
    expect(db.nodeState().lastTerm).toBe(2);
    await db.close();
  });

  it('come with a file snapshot: the term of the entry at its seq', async () => {
    const db = await open(tempDir());
    const empty = db.openFileSnapshot();
    expect({ seq: empty.seq, term: empty.term, lastTerm: empty.lastTerm }).toEqual({
      seq: 0,
      term: 1,
      lastTerm: 0,
    });
    empty.release();
    await db.collection('c').insert({});
    await db.store.setTerm(4);
    // The leader of term 4 wrote nothing yet: its newest entry is of term 1.
    const snapshot = db.openFileSnapshot();
    expect({ seq: snapshot.seq, term: snapshot.term, lastTerm: snapshot.lastTerm }).toEqual({
      seq: 1,
      term: 4,
      lastTerm: 1,
    });
    snapshot.release();
    await db.close();
  });
});

/** The source: ready, multikey, composite and stale indexes (a stale unique one broken), term 2. */
async function sourceWrites(db: Database): Promise<void> {
  await db.store.setTerm(2);
  const orders = db.collection('orders');
  await orders.createIndex({ paths: ['pnr'], unique: true });
  await orders.createIndex({ paths: ['tags[*]'], name: 'tags' });
  await orders.createIndex({ paths: ['city', 'n'], name: 'city_n' });
  await orders.insertMany(
    Array.from({ length: 7 }, (_, n) => ({
      pnr: `P${n}`,
      tags: [`t${n % 3}`, 'all'],
      city: n % 2 ? 'Oslo' : 'Rome',
      n,
    })),
  );
  await db.query('UPDATE orders SET status = ? WHERE n < ?', ['open', 3]);
  const legacy = db.collection('legacy');
  await legacy.createIndex({ paths: ['code'], unique: true, name: 'code' });
  await legacy.insert({ code: 'A' });
  // A load that skipped the indexes: 'code' is stale, and its documents now break it.
  await legacy.insertMany([{ code: 'A' }, { code: 'B' }], { skipIndexes: true });
  await db.collection('empty').createIndex({ paths: ['x'], name: 'x' });
}

/** Other data, with a longer log than the source's (a node that must drop entries). */
async function otherWrites(db: Database): Promise<void> {
  await db.collection('orders').insertMany([
    { pnr: 'X', n: 100 },
    { pnr: 'Y', n: 101 },
  ]);
  await db.collection('old').createIndex({ paths: ['a'], name: 'a' });
  for (let a = 0; a < 15; a++) await db.collection('old').insert({ a });
}

/** What a node holds: collections, index definitions with their sizes, documents with ids. */
function contents(db: Database) {
  return db.stats().collections.map((c) => ({
    ...c,
    // A stale index holds whatever its last writes left: only its definition is compared.
    indexes: c.indexes.map((i) => (i.state === 'stale' ? { ...i, entries: undefined } : i)),
    documents: [...db.collection(c.name).scan()],
  }));
}

/**
 * Sends a snapshot's collections and documents to a load, `batch` documents a call; stops
 * after `batchesMax` inserts (a load cut short).
 */
async function fill(
  load: SnapshotLoad,
  snapshot: FileSnapshot,
  batch: number,
  batchesMax = Number.POSITIVE_INFINITY,
): Promise<void> {
  let batches = 0;
  for (const collection of snapshot.collections) {
    await load.addCollection(collection.name, collection.indexes);
    let documents: Array<{ id: string; doc: Document }> = [];
    for (const document of snapshot.documents(collection.name)) {
      documents.push(document);
      if (documents.length < batch) continue;
      await load.insert(collection.name, documents);
      documents = [];
      if (++batches >= batchesMax) return;
    }
    if (documents.length > 0) await load.insert(collection.name, documents);
  }
}

function startFrom(target: Database, snapshot: FileSnapshot): Promise<SnapshotLoad> {
  const { seq, term, lastTerm, lastChain, runs } = snapshot;
  return target.store.startSnapshotLoad({ seq, term, lastTerm, lastChain, runs });
}

/** Loads `source`'s snapshot into `target`, `batch` documents a call. */
async function loadFrom(source: Database, target: Database, batch = 3): Promise<LogPosition> {
  const snapshot = source.openFileSnapshot();
  try {
    const load = await startFrom(target, snapshot);
    await fill(load, snapshot, batch);
    return await load.finish();
  } finally {
    snapshot.release();
  }
}

const ID = '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f';

describe('a snapshot load', () => {
  it("replaces every collection, document and index with the source's, at its seq", async () => {
    const source = await open(tempDir());
    const dir = tempDir();
    const target = await open(dir);
    await sourceWrites(source);
    await otherWrites(target);
    const seq = source.nodeState().lastSeq;
    expect(target.nodeState().lastSeq).toBeGreaterThan(seq);
    // Plans and selections cached over the old data must not outlive it.
    const byPnr = 'SELECT * FROM orders WHERE pnr = ?';
    const byN = 'SELECT n FROM orders WHERE n > ?';
    expect((await target.query(byPnr, ['X'])).plan).toBe('COLLECTION_SCAN');
    for (let i = 0; i < 2; i++) await target.query(byN, [0]);

    const expected = {
      term: 2,
      lastSeq: seq,
      seqFloor: seq,
      lastTerm: 2,
      lastChain: source.store.chainAt(seq),
    };
    expect(await loadFrom(source, target)).toEqual(expected);
    expect(target.nodeState()).toEqual(expected);
    expect(target.store.snapshotLoadPending()).toBeUndefined();
    expect(target.collections()).toEqual(['empty', 'legacy', 'orders']);
    expect(contents(target)).toEqual(contents(source));
    expect([...target.changesSince(0)]).toEqual([]);
    // The source's term history comes along: terms below the snapshot's seq are known.
    expect(target.store.termRuns()).toEqual(source.store.termRuns());
    expect(target.store.termAt(seq)).toBe(2);
    expect(target.store.termAt(1)).toBe(source.store.termAt(1));
    expect(target.store.chainAt(seq)).toBe(source.store.chainAt(seq));
    expect(target.store.chainAt(seq - 1)).toBeUndefined();

    const lookups: Array<[string, unknown[], string]> = [
      [byPnr, ['P4'], 'INDEX_SCAN(idx_orders_pnr)'],
      [
        'SELECT * FROM orders WHERE city = ? AND n = ?',
        ['Oslo', 3],
        'INDEX_SCAN_COMPOSITE(city_n)',
      ],
      ['SELECT * FROM orders WHERE tags[1] = ?', ['all'], 'INDEX_SCAN(tags)'],
      [byN, [0], 'COLLECTION_SCAN'],
      // Stale: the planner passes it by, as on the source.
      ['SELECT * FROM legacy WHERE code = ?', ['A'], 'COLLECTION_SCAN'],
    ];
    for (const [sql, params, plan] of lookups) {
      const found = await target.query(sql, params);
      expect(found.plan, sql).toBe(plan);
      expect(found.documents, sql).toEqual((await source.query(sql, params)).documents);
      expect(found.count, sql).toBeGreaterThan(0);
    }

    // The log continues at the snapshot's seq: the source's next entries apply, a gap not.
    await source.collection('orders').insert({ pnr: 'P7', tags: ['t1'], n: 7 });
    await source.query('DELETE FROM orders WHERE pnr = ?', ['P0']);
    const [next, after] = [...source.changesSince(seq)] as [ChangeEntry, ChangeEntry];
    await expect(target.store.applyEntries([after])).rejects.toMatchObject({
      code: 'ERR_CHANGE_OUT_OF_ORDER',
      details: { expectedSeq: seq + 1, seq: seq + 2 },
    });
    expect(await target.store.applyEntries([next, after])).toBe(seq + 2);
    expect(contents(target)).toEqual(contents(source));
    expect(target.nodeState()).toEqual({
      ...expected,
      lastSeq: seq + 2,
      lastChain: source.store.chainAt(seq + 2),
    });
    expect([...target.changesSince(seq)]).toEqual([...source.changesSince(seq)]);
    await target.close();

    const reopened = await open(dir);
    expect(reopened.nodeState()).toEqual({
      ...expected,
      lastSeq: seq + 2,
      lastChain: source.store.chainAt(seq + 2),
    });
    expect(contents(reopened)).toEqual(contents(source));
    await reopened.close();
    await source.close();
  });

  it('passes the write gate of a follower, which refuses client writes', async () => {
    const source = await open(tempDir());
    const target = await open(tempDir());
    await sourceWrites(source);
    await otherWrites(target);
    target.gate.setRole('follower', '10.0.0.1:5500');
    await loadFrom(source, target, 1000);
    expect(contents(target)).toEqual(contents(source));
    await expect(target.collection('orders').insert({ pnr: 'Z' })).rejects.toMatchObject({
      code: 'ERR_NODE_READ_ONLY',
      details: { role: 'follower' },
    });
    await source.close();
    await target.close();
  });

  it('cut short by a crash leaves its mark after a restart; a new load starts over', async () => {
    const source = await open(tempDir());
    await sourceWrites(source);
    const dir = tempDir();
    const target = await open(dir);
    await otherWrites(target);
    const before = target.nodeState();
    const snapshot = source.openFileSnapshot();
    const load = await startFrom(target, snapshot);
    // Under way: everything old is gone, the log is empty at the old position, and the node
    // takes no client writes nor entries (they would land in a history the load discards).
    const old = { ...before, seqFloor: before.lastSeq };
    expect(target.store.snapshotLoadPending()).toEqual({ seq: snapshot.seq, term: 2 });
    expect(target.nodeState()).toEqual(old);
    expect(target.collections()).toEqual([]);
    expect([...target.changesSince(0)]).toEqual([]);
    await expect(target.collection('orders').insert({})).rejects.toMatchObject({
      code: 'ERR_NODE_READ_ONLY',
      details: { loadingSeq: snapshot.seq },
    });
    await expect(
      target.store.applyEntries([...source.changesSince(0)].slice(0, 1)),
    ).rejects.toMatchObject({ code: 'ERR_NODE_READ_ONLY' });
    await fill(load, snapshot, 2, 2);
    await target.close();

    const reopened = await open(dir);
    expect(reopened.store.snapshotLoadPending()).toEqual({ seq: snapshot.seq, term: 2 });
    expect(reopened.nodeState()).toEqual(old);
    // Two batches went in: legacy's first and orders' first; legacy's rest was no full batch.
    expect(reopened.collection('legacy').count()).toBe(3);
    expect(reopened.collection('orders').count()).toBe(2);
    await expect(reopened.collection('orders').insert({})).rejects.toMatchObject({
      code: 'ERR_NODE_READ_ONLY',
    });
    snapshot.release();
    await loadFrom(source, reopened, 2);
    expect(reopened.store.snapshotLoadPending()).toBeUndefined();
    expect(contents(reopened)).toEqual(contents(source));
    await reopened.close();
    const again = await open(dir);
    expect(again.store.snapshotLoadPending()).toBeUndefined();
    await again.close();
    await source.close();
  });

  it('refuses calls once finished or replaced by a newer load, and bad arguments', async () => {
    const target = await open(tempDir());
    await expect(target.store.startSnapshotLoad({ seq: -1, term: 1 })).rejects.toMatchObject({
      code: 'ERR_BAD_ARGUMENT',
    });
    await expect(
      target.store.startSnapshotLoad({ seq: 1, term: 1, lastTerm: 2 }),
    ).rejects.toMatchObject({
      code: 'ERR_BAD_ARGUMENT',
    });
    expect(target.store.snapshotLoadPending()).toBeUndefined();

    const first = await target.store.startSnapshotLoad({ seq: 3, term: 1 });
    await first.addCollection('a', []);
    await first.insert('a', [{ id: ID, doc: { n: 1 } }]);
    const second = await target.store.startSnapshotLoad({ seq: 5, term: 1 });
    expect(target.collections()).toEqual([]);
    await expect(first.insert('a', [{ id: ID, doc: { n: 1 } }])).rejects.toMatchObject({
      code: 'ERR_BAD_ARGUMENT',
    });
    await expect(first.finish()).rejects.toMatchObject({ code: 'ERR_BAD_ARGUMENT' });
    const index = { name: 'k', paths: ['k'], unique: true, state: 'ready' as const };
    await second.addCollection('B', [index]);
    await expect(second.addCollection('b', [])).rejects.toMatchObject({
      code: 'ERR_BAD_ARGUMENT',
    });
    await expect(second.insert('a', [])).rejects.toMatchObject({
      code: 'ERR_COLLECTION_NOT_FOUND',
    });
    await expect(second.insert('b', [{ id: 'nope', doc: {} }])).rejects.toMatchObject({
      code: 'ERR_DOCUMENT_ID_INVALID',
    });
    await expect(
      second.addCollection('c', [{ ...index, state: 'gone' as 'ready' }]),
    ).rejects.toMatchObject({ code: 'ERR_BAD_ARGUMENT' });
    await second.insert('b', [{ id: ID, doc: { k: 1 } }]);
    expect(await second.finish()).toEqual({ term: 1, lastSeq: 5, seqFloor: 5, lastTerm: 1 });
    await expect(second.insert('b', [])).rejects.toMatchObject({ code: 'ERR_BAD_ARGUMENT' });
    expect(await target.collection('b').get(ID)).toEqual({ _id: ID, k: 1 });

    // The node's term is never lowered; the last term is the snapshot's entry's.
    await target.store.setTerm(4);
    const third = await target.store.startSnapshotLoad({ seq: 2, term: 2, lastTerm: 1 });
    expect(await third.finish()).toEqual({ term: 4, lastSeq: 2, seqFloor: 2, lastTerm: 1 });
    expect(target.collections()).toEqual([]);
    // Local writes continue the log after the snapshot's seq.
    await target.collection('c').insert({});
    expect([...target.changesSince(0)].map((e) => [e.seq, e.term])).toEqual([[3, 4]]);
    expect(target.nodeState()).toMatchObject({ term: 4, lastSeq: 3, seqFloor: 2, lastTerm: 4 });
    expect(target.store.termRuns()).toEqual([
      { term: 1, from: 2 },
      { term: 4, from: 3 },
    ]);
    await target.close();
  });

  it('wakes waiters its seq passes, loses holds and stops follows of the old history', async () => {
    const source = await open(tempDir());
    await sourceWrites(source);
    const seq = source.nodeState().lastSeq;
    const store = Store.open(tempDir());
    for (let i = 0; i < 3; i++) {
      await store.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({ i }, undefined)]));
    }
    const hold = store.holdChanges(1);
    const follow = store.followChanges(3).next();
    const below = store.whenCommittedAfter(3);
    const stop = new AbortController();
    let aboveWoke = false;
    const above = store.whenCommittedAfter(seq + 5, stop.signal).then((lastSeq) => {
      aboveWoke = true;
      return lastSeq;
    });
    const version = store.catalogVersion;
    const snapshot = source.openFileSnapshot();
    // What a follow read is no longer this node's history: it must start over (it may be
    // told before the load's start is acknowledged, once the load committed).
    const followStopped = expect(follow).rejects.toMatchObject({ code: 'ERR_CHANGES_TRIMMED' });
    const load = await store.startSnapshotLoad(snapshot);
    await followStopped;
    expect(hold.lost).toBe(true);
    await fill(load, snapshot, 4);
    snapshot.release();
    expect(await load.finish()).toMatchObject({ lastSeq: seq, lastTerm: 2 });
    // Plans cached under the old catalog are not reused.
    expect(store.catalogVersion).not.toBe(version);
    expect(await below).toBe(seq);
    await new Promise((resolve) => setImmediate(resolve));
    expect(aboveWoke).toBe(false);
    stop.abort();
    expect(await above).toBe(seq);

    // A follow from the snapshot's seq takes what is applied after it.
    const tail = store.followChanges(seq);
    const first = tail.next();
    await source.collection('orders').insert({ pnr: 'P9' });
    await store.applyEntries([...source.changesSince(seq)]);
    expect((await first).value).toMatchObject({ seq: seq + 1, op: 'insert' });
    await tail.return(undefined);
    hold.release();
    await store.close();
    await source.close();
  });
});

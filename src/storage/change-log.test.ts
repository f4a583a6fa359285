/**
 * Proves the change log's contract for replication on real files: a follower that applies a
 * leader's entries (grouped as the leader wrote them) ends with the same documents, indexes
 * and log; entries apply only in seq order and never from an older term; the term is
 * persisted and never lowered; readers are woken by commits (no polling) and see entries
 * trimmed under them as ERR_CHANGES_TRIMMED; holds keep a follower's entries through trims
 * until the log outgrows its bound; a file snapshot is one consistent state with its seq;
 * format-3 files with version-0 entries still read.
 */

import * as path from 'node:path';
import { open as lmdbOpen } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { decodeValue, encodeValue } from './codec/index.js';
import { type ChangeEntry, DATA_FILE_NAME, Store } from './index.js';

const tempDir = tempDirPerTest();

/** Every entry after `seq`, grouped as written: a write's entries share their endSeq. */
function groups(db: Database, seq: number): ChangeEntry[][] {
  const out: ChangeEntry[][] = [];
  let group: ChangeEntry[] = [];
  for (const entry of db.changesSince(seq)) {
    group.push(entry);
    if (entry.endSeq === undefined || entry.endSeq === entry.seq) {
      out.push(group);
      group = [];
    }
  }
  expect(group).toEqual([]);
  return out;
}

/** What a node holds: documents, index definitions and sizes, and its change log. */
function contents(db: Database) {
  const stats = db.stats();
  return {
    collections: stats.collections.map((c) => ({
      ...c,
      documents: [...db.collection(c.name).scan()],
    })),
    log: [...db.changesSince(0)],
    state: db.nodeState(),
  };
}

async function leaderWrites(db: Database): Promise<void> {
  const orders = db.collection('orders');
  await orders.createIndex({ paths: ['pnr'], unique: true });
  await orders.createIndex({ paths: ['tags[*]'], name: 'tags' });
  const first = await orders.insert({ pnr: 'A', tags: ['x', 'y'], n: 1 });
  await orders.insertMany([
    { pnr: 'B', tags: ['y'], n: 2 },
    { pnr: 'C', n: 3 },
  ]);
  await orders.replace(first, { pnr: 'A', tags: ['z'], n: 10 });
  await db.query('UPDATE orders SET status = ? WHERE n < ?', ['open', 5]);
  await orders.insertMany([{ pnr: 'D', n: 4 }], { skipIndexes: true });
  await orders.rebuildIndex('tags');
  await db.query("DELETE FROM orders WHERE pnr = 'B'");
  await db.collection('scratch').insert({ a: 1 });
  await db.collection('scratch').createIndex({ paths: ['a'], name: 'a' });
  await db.collection('scratch').dropIndex('a');
  await db.dropCollection('scratch');
  await db.collection('after').insert({ last: true });
}

describe('a follower applying the leader entries', () => {
  it('ends with the same documents, indexes and change log', async () => {
    const leader = await open(tempDir());
    const follower = await open(tempDir());
    await leaderWrites(leader);
    const written = groups(leader, 0);
    // The UPDATE of two documents is one write of two entries, marked to apply together.
    expect(written.some((g) => g.length === 2 && g.every((e) => e.op === 'replace'))).toBe(true);
    for (const group of written) await follower.store.applyEntries(group);
    expect(contents(follower)).toEqual(contents(leader));
    // The skipIndexes load and the rebuild travelled as entries: the state matches too.
    const ops = [...leader.changesSince(0)].map((e) => e.op);
    expect(ops).toContain('rebuildIndexes');
    expect(
      [...leader.changesSince(0)].find((e) => e.op === 'insert' && e.skipIndexes),
    ).toBeTruthy();
    await leader.close();
    await follower.close();
  });

  it('applies past the write gate of a follower, which refuses client writes', async () => {
    const leader = await open(tempDir());
    const follower = await open(tempDir());
    follower.gate.setRole('follower', '10.0.0.1:5500');
    await leader.collection('c').insert({ k: 1 });
    await follower.store.applyEntries([...leader.changesSince(0)]);
    expect(follower.collection('c').count()).toBe(1);
    await expect(follower.collection('c').insert({ k: 2 })).rejects.toMatchObject({
      code: 'ERR_NODE_READ_ONLY',
    });
    await leader.close();
    await follower.close();
  });

  it('refuses a gap or a repeat, and applies nothing of that write', async () => {
    const leader = await open(tempDir());
    const follower = await open(tempDir());
    for (let i = 0; i < 3; i++) await leader.collection('c').insert({ i });
    const [one, two, three] = [...leader.changesSince(0)] as [
      ChangeEntry,
      ChangeEntry,
      ChangeEntry,
    ];
    await expect(follower.store.applyEntries([two])).rejects.toMatchObject({
      code: 'ERR_CHANGE_OUT_OF_ORDER',
      details: { expectedSeq: 1, seq: 2 },
    });
    await follower.store.applyEntries([one]);
    await expect(follower.store.applyEntries([one])).rejects.toMatchObject({
      code: 'ERR_CHANGE_OUT_OF_ORDER',
    });
    // A bad entry in a group leaves the whole group unapplied.
    await expect(follower.store.applyEntries([two, { ...three, seq: 9 }])).rejects.toMatchObject({
      code: 'ERR_CHANGE_OUT_OF_ORDER',
    });
    expect(follower.nodeState().lastSeq).toBe(1);
    expect(follower.collection('c').count()).toBe(1);
    await follower.store.applyEntries([two, three]);
    expect(follower.collection('c').count()).toBe(3);
    await leader.close();
    await follower.close();
  });

  it('reports a change it cannot apply as ERR_CHANGE_INVALID', async () => {
    const follower = await open(tempDir());
    const entry: ChangeEntry = {
      op: 'delete',
      collection: 'c',
      id: '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f',
      seq: 1,
      term: 1,
      atMs: 0,
    };
    await expect(follower.store.applyEntries([entry])).rejects.toMatchObject({
      code: 'ERR_CHANGE_INVALID',
    });
    expect(follower.nodeState().lastSeq).toBe(0);
    await follower.close();
  });
});

describe('terms', () => {
  it('persists a higher term, stamps new entries with it and never goes back', async () => {
    const dir = tempDir();
    const db = await open(dir);
    await db.collection('c').insert({ before: true });
    expect(await db.store.setTerm(3)).toBe(3);
    await db.collection('c').insert({ after: true });
    expect([...db.changesSince(0)].map((e) => e.term)).toEqual([1, 3]);
    await expect(db.store.setTerm(2)).rejects.toMatchObject({ code: 'ERR_CHANGE_STALE_TERM' });
    await db.close();
    const reopened = await open(dir);
    expect(reopened.nodeState().term).toBe(3);
    await reopened.close();
  });

  it('takes a newer term from an applied entry and refuses an entry older than the one before it', async () => {
    const follower = await open(tempDir());
    const entry = (seq: number, term: number): ChangeEntry => ({
      op: 'insert',
      collection: 'c',
      documents: [{ id: `0193a4f2-7c1e-7d3a-9b2e-00000000000${seq}`, doc: { seq } }],
      seq,
      term,
      atMs: 0,
    });
    await follower.store.applyEntries([entry(1, 1)]);
    await follower.store.applyEntries([entry(2, 4)]);
    expect(follower.nodeState().term).toBe(4);
    await expect(follower.store.applyEntries([entry(3, 2)])).rejects.toMatchObject({
      code: 'ERR_CHANGE_STALE_TERM',
      details: { term: 2, previousTerm: 4 },
    });
    expect(follower.nodeState()).toMatchObject({ lastSeq: 2, term: 4 });
    // A node already in a newer term (it met a newer leader) still applies that leader's
    // history of older terms.
    await follower.store.setTerm(6);
    await follower.store.applyEntries([entry(3, 5)]);
    expect(follower.nodeState()).toMatchObject({ lastSeq: 3, term: 6, lastTerm: 5 });
    await follower.close();
  });
});

describe('readers are told of commits', () => {
  it('a follow yields what is there, then each new entry as it commits', async () => {
    const db = await open(tempDir());
    await db.collection('c').insert({ n: 1 });
    const stop = new AbortController();
    const tail = db.followChanges(0, stop.signal);
    expect((await tail.next()).value).toMatchObject({ seq: 1, op: 'insert' });
    // Nothing more yet: the next entry arrives when a commit adds it, with no timer involved.
    const next = tail.next();
    let arrived = false;
    void next.then(() => {
      arrived = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(arrived).toBe(false);
    await db.collection('c').insertMany([{ n: 2 }, { n: 3 }]);
    expect((await next).value).toMatchObject({
      seq: 2,
      documents: [{ doc: { n: 2 } }, { doc: { n: 3 } }],
    });
    stop.abort();
    expect((await tail.next()).done).toBe(true);
    await db.close();
  });

  it('a follow reads large inserts a few at a time and misses none', async () => {
    // A step ends at 1,024 documents, not only at 64 entries, so a feed holds few at once.
    const db = await open(tempDir());
    for (let k = 0; k < 5; k++) {
      await db.collection('c').insertMany(Array.from({ length: 700 }, (_, n) => ({ k, n })));
    }
    await db.collection('c').insert({ last: true });
    const stop = new AbortController();
    const seqs: number[] = [];
    for await (const entry of db.followChanges(0, stop.signal)) {
      seqs.push(entry.seq);
      if (entry.seq === 6) stop.abort();
    }
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    await db.close();
  });

  it('a follow from a trimmed seq is ERR_CHANGES_TRIMMED naming the floor', async () => {
    const store = Store.open(tempDir());
    for (let i = 0; i < 5; i++) {
      await store.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({ i }, undefined)]));
    }
    await store.checkpoint(2);
    await expect(store.followChanges(1).next()).rejects.toMatchObject({
      code: 'ERR_CHANGES_TRIMMED',
      details: { since: 1, seqFloor: 3 },
    });
    expect((await store.followChanges(3).next()).value).toMatchObject({ seq: 4 });
    await store.close();
  });

  it('closing the file wakes a waiting reader with ERR_STORAGE_CLOSED', async () => {
    const db = await open(tempDir());
    const waiting = db.followChanges(0).next();
    await db.close();
    await expect(waiting).rejects.toMatchObject({ code: 'ERR_STORAGE_CLOSED' });
  });
});

describe('retention holds', () => {
  const filler = 'x'.repeat(2000);

  async function writeBatches(store: Store, batches: number): Promise<void> {
    for (let b = 0; b < batches; b++) {
      await store.write((txn) =>
        txn.insertDocuments(
          'c',
          Array.from({ length: 20 }, (_, i) => txn.prepareDocument({ b, i, filler }, undefined)),
        ),
      );
    }
  }

  it('keep the entries a follower needs through checkpoints and size trims', async () => {
    const store = Store.open(tempDir(), { changeLogRetainBytes: 256 * 1024 });
    await writeBatches(store, 2);
    const hold = store.holdChanges(1);
    await writeBatches(store, 12);
    // Past the byte bound, yet within 4 times it: entry 2 onwards stays for the holder.
    expect(store.nodeState().seqFloor).toBeLessThanOrEqual(1);
    await store.checkpoint(0);
    expect(store.nodeState().seqFloor).toBe(1);
    expect([...store.changesAfter(0)][0]?.seq).toBe(2);
    hold.move(10);
    await store.checkpoint(0);
    expect(store.nodeState().seqFloor).toBe(10);
    expect(hold.lost).toBe(false);
    hold.release();
    await store.checkpoint(0);
    expect(store.nodeState().seqFloor).toBe(14);
    await store.close();
  });

  it('break when the log outgrows its bound several times over', async () => {
    const store = Store.open(tempDir(), { changeLogRetainBytes: 64 * 1024 });
    await writeBatches(store, 1);
    const hold = store.holdChanges(1);
    await writeBatches(store, 40);
    expect(hold.lost).toBe(true);
    expect(store.nodeState().seqFloor).toBeGreaterThan(1);
    await expect(store.followChanges(hold.seq).next()).rejects.toMatchObject({
      code: 'ERR_CHANGES_TRIMMED',
    });
    await store.close();
  });
});

describe('file snapshots', () => {
  it('hold every collection, index and document at one seq, whatever commits after', async () => {
    const db = await open(tempDir());
    await leaderWrites(db);
    const seq = db.nodeState().lastSeq;
    const snapshot = db.openFileSnapshot();
    // Its unique index is stale, so a later write of a pnr is a load that skips indexes too.
    await db.collection('orders').insertMany([{ pnr: 'LATE' }], { skipIndexes: true });
    await db.collection('later').insert({});
    expect(snapshot.seq).toBe(seq);
    expect(snapshot.term).toBe(1);
    expect(snapshot.collections.map((c) => c.name)).toEqual(['after', 'orders']);
    expect(snapshot.collections[1]?.indexes).toEqual([
      // The skipIndexes load left both stale; only 'tags' was rebuilt.
      { name: 'idx_orders_pnr', paths: ['pnr'], unique: true, state: 'stale' },
      { name: 'tags', paths: ['tags[*]'], unique: false, state: 'ready' },
    ]);
    const pnrs = [...snapshot.documents('orders')].map((d) => d.doc.pnr);
    expect(pnrs).toEqual(['A', 'C', 'D']);
    expect([...snapshot.documents('later')]).toEqual([]);
    snapshot.release();
    await db.close();
  });
});

describe('format 3 files', () => {
  it('read their version-0 entries and are marked format 4 on a writing open', async () => {
    const dir = tempDir();
    const db = await open(dir);
    const id = await db.collection('c').insert({ name: 'old', n: 1 });
    await db.close();
    // Rewrite the file as format 3 wrote it: the same stored entry without its version.
    const env = lmdbOpen<Buffer, Buffer>({
      path: path.join(dir, DATA_FILE_NAME),
      noSubdir: true,
      maxDbs: 8,
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const catalog = env.openDB<Buffer, Buffer>('catalog', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const changes = env.openDB<Buffer, Buffer>('changes', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const [key, value] = [...changes.getRange({})].map((e) => [e.key, e.value])[0] as [
      Buffer,
      Buffer,
    ];
    // This build stores the entry behind its hash-chain link (0xc1 and 16 bytes).
    expect(value[0]).toBe(0xc1);
    const { v, ...entry } = decodeValue<Record<string, unknown>>(value.subarray(17));
    expect(v).toBe(1);
    expect((entry.documents as Array<{ doc: unknown }>)[0]?.doc).toBeInstanceOf(Uint8Array);
    const { termRuns, ...meta } = decodeValue<Record<string, unknown>>(
      catalog.get(Buffer.from('meta')) as Buffer,
    );
    expect(termRuns).toEqual([{ term: 1, from: 1 }]);
    env.transactionSync(() => {
      changes.putSync(key, encodeValue(entry));
      catalog.putSync(Buffer.from('meta'), encodeValue({ ...meta, format: 3 }));
    });
    await env.close();

    const reader = await open(dir, { readOnly: true });
    expect([...reader.changesSince(0)]).toMatchObject([
      { op: 'insert', seq: 1, documents: [{ id, doc: { name: 'old', n: 1 } }] },
    ]);
    await reader.close();
    const writer = await open(dir);
    // The term history, which format 3 did not keep, is read off the entries.
    expect(writer.store.termRuns()).toEqual([{ term: 1, from: 1 }]);
    await writer.store.setTerm(2);
    await writer.collection('c').insert({ name: 'new' });
    expect([...writer.changesSince(0)].map((e) => e.op === 'insert' && e.documents)).toMatchObject([
      [{ doc: { name: 'old' } }],
      [{ doc: { name: 'new' } }],
    ]);
    // The old entry has no link; the new one links from the start of the chain.
    expect([1, 2].map((seq) => writer.store.chainAt(seq) !== undefined)).toEqual([false, true]);
    expect(writer.store.termRuns()).toEqual([
      { term: 1, from: 1 },
      { term: 2, from: 2 },
    ]);
    await writer.close();
    const raw = lmdbOpen<Buffer, Buffer>({
      path: path.join(dir, DATA_FILE_NAME),
      noSubdir: true,
      maxDbs: 8,
      readOnly: true,
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const rawCatalog = raw.openDB<Buffer, Buffer>('catalog', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    expect(
      decodeValue<{ format: number }>(rawCatalog.get(Buffer.from('meta')) as Buffer).format,
    ).toBe(4);
    await raw.close();
  });
});

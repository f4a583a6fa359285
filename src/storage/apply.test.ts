/**
 * Proves a follower's apply of a leader's stored entries (replication protocol 3): a file
 * whose shared structures are the first of the leader's takes the rest and stores the
 * entries byte for byte as the leader does (and reads them after a reopen); a file with structures of its own reads them with
 * the leader's and stores them in its own encoding, with the same documents and links; entries
 * that join a run before its write runs commit with it; and a bad entry fails the whole run,
 * structures taken for it included.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { LeaderStructures } from './apply.js';
import { type PeerEntry, readPeerEntry } from './change-entry.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<Database> {
  return (await databaseIn()).db;
}

async function databaseIn(): Promise<{ db: Database; dir: string }> {
  const { dir, cleanup } = makeTempDir('docdb-apply-');
  const db = await open(dir);
  cleanups.push(async () => {
    await db.close();
    cleanup();
  });
  return { db, dir };
}

/** A leader with a few writes of two shapes, its entries as it stores them, its structures. */
async function leaderLog() {
  const leader = await database();
  const c = leader.collection('c');
  await c.insertMany([
    { a: 1, b: 'x' },
    { a: 2, b: 'y' },
  ]);
  await c.createIndex({ paths: ['a'] });
  const [first] = c.list({ limit: 1 });
  await c.replace(String(first?._id), { a: 3, nested: { k: [1, 2] } });
  const structures = new LeaderStructures();
  structures.take(0, leader.store.sharedStructures());
  const entries = [...leader.store.storedChangesAfter(0)].map((e) => readPeerEntry(e.bytes));
  return { leader, entries, structures };
}

function rows(db: Database) {
  return db.collection('c').list();
}

describe("a follower's apply of stored entries", () => {
  it('stores them byte for byte once it takes the leader structures', async () => {
    const { leader, entries, structures } = await leaderLog();
    const follower = await database();
    expect(await follower.store.applyPeerEntries(() => entries, structures)).toBe(3);
    expect(follower.store.sharedStructures()).toEqual(leader.store.sharedStructures());
    const stored = (db: Database) =>
      [...db.store.storedChangesAfter(0)].map((e) => Buffer.from(e.bytes));
    expect(stored(follower)).toEqual(stored(leader));
    expect(rows(follower)).toEqual(rows(leader));
    expect([...follower.changesSince(0)]).toEqual([...leader.changesSince(0)]);
  });

  it('reads what it stored byte for byte again after a reopen, and goes on taking entries', async () => {
    const { leader, entries, structures } = await leaderLog();
    const { db, dir } = await databaseIn();
    await db.store.applyPeerEntries(() => entries.slice(0, 2), structures);
    await db.close();
    const follower = await open(dir);
    cleanups.push(() => follower.close());
    expect(follower.store.sharedStructures()).toEqual(leader.store.sharedStructures());
    await follower.store.applyPeerEntries(() => entries.slice(2), structures);
    expect(rows(follower)).toEqual(rows(leader));
    expect([...follower.changesSince(0)]).toEqual([...leader.changesSince(0)]);
  });

  it('reads them with the leader structures into its own encoding when it has its own', async () => {
    const { leader, entries, structures } = await leaderLog();
    const follower = await database();
    // A shape of its own first (id 0 here, another shape's id on the leader).
    await follower.collection('other').insert({ z: true });
    await follower.collection('other').drop();
    const own = [...follower.store.sharedStructures()];
    const before = follower.nodeState().lastSeq;
    const rebased = entries.map((e) => rebase(e, before));
    await follower.store.applyPeerEntries(() => rebased, structures);
    expect(follower.store.sharedStructures().slice(0, own.length)).toEqual(own);
    expect(rows(follower)).toEqual(rows(leader));
    const applied = [...follower.changesSince(before)];
    const want = [...leader.changesSince(0)].map((e) => ({ ...e, seq: e.seq + before }));
    expect(applied).toEqual(want);
  });

  it('commits the entries that join a run before its write runs with it', async () => {
    const { entries, structures } = await leaderLog();
    const follower = await database();
    const run: PeerEntry[] = [entries[0] as PeerEntry];
    const applied = follower.store.applyPeerEntries(() => run, structures);
    run.push(...entries.slice(1));
    expect(await applied).toBe(3);
    expect(follower.nodeState().lastSeq).toBe(3);
  });

  it('fails the whole run on a bad entry, structures taken for it included', async () => {
    const { entries, structures } = await leaderLog();
    const follower = await database();
    // The index applies; the replace of a document it never had fails: its data is not the
    // leader's, and nothing of the run stays.
    const run = [rebase(entries[1] as PeerEntry, -1), rebase(entries[2] as PeerEntry, -1)];
    await expect(follower.store.applyPeerEntries(() => run, structures)).rejects.toMatchObject({
      code: 'ERR_CHANGE_INVALID',
    });
    expect(follower.nodeState().lastSeq).toBe(0);
    expect(follower.store.sharedStructures()).toEqual([]);
    expect(follower.collection('c').count()).toBe(0);
  });
});

/** The entry moved `by` seqs on (its bytes as they were: they are not stored verbatim here). */
function rebase(peer: PeerEntry, by: number): PeerEntry {
  return { ...peer, entry: { ...peer.entry, seq: peer.entry.seq + by } };
}

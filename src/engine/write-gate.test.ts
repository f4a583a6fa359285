/**
 * Proves the write gate on a real file: a read-only node (planned handover) and a follower
 * refuse every writer the engine offers — the embedded API, SQL (queries and streams), the
 * sample-data loader and compaction the CLI runs, the rebuilds of the admin API — with
 * ERR_NODE_READ_ONLY naming why and the leader, store nothing, keep every read, flush and
 * checkpoint; a write queued before the switch is refused when it runs; replication's apply
 * (on the store, not through the engine) is the one way past. And the commit barrier the gate
 * holds (replication's syncFollowers): a write that logged a change resolves only once the
 * barrier set when it was queued resolves, with the log's last seq; one that logged nothing
 * never waits; a barrier that rejects fails the committed write.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open, seedOrders } from './index.js';

let dir: string;
let cleanup: () => void;
let db: Database;
let id: string;

/** A fresh file holding collection c with one document and the index k. */
async function fixture(): Promise<void> {
  ({ dir, cleanup } = makeTempDir());
  db = await open(dir);
  const c = db.collection('c');
  await c.createIndex({ paths: ['k'], name: 'k' });
  id = await c.insert({ k: 'a' });
}

async function teardown(): Promise<void> {
  await db.close();
  cleanup();
}

beforeEach(fixture);
afterEach(teardown);

/** Every write the engine offers, each against the data the test starts with. */
function writers(): Array<[string, () => Promise<unknown>]> {
  const c = () => db.collection('c');
  const drain = async (sql: string) => {
    for await (const _ of db.queryStream(sql)) {
      // A write yields its meta only.
    }
  };
  return [
    ['insert', () => c().insert({ k: 'b' })],
    ['insertMany', () => c().insertMany([{ k: 'b' }])],
    ['replace', () => c().replace(id, { k: 'z' })],
    ['delete', () => c().delete(id)],
    ['deleteMany', () => c().deleteMany([id])],
    ['createIndex', () => c().createIndex({ paths: ['other'] })],
    ['dropIndex', () => c().dropIndex('k')],
    ['rebuildIndexes', () => c().rebuildIndexes()],
    ['rebuildIndex', () => c().rebuildIndex('k')],
    ['drop', () => c().drop()],
    ['dropCollection', () => db.dropCollection('c')],
    ['compact', () => db.compact('c')],
    ['seed', () => seedOrders(db, { count: 3 })],
    ['SQL INSERT', () => db.query('INSERT INTO c VALUES {"k": "b"}')],
    ['SQL UPDATE', () => db.query("UPDATE c SET k = 'z'")],
    ['SQL DELETE', () => db.query('DELETE FROM c')],
    ['SQL CREATE INDEX', () => db.query('CREATE INDEX i2 ON c (other)')],
    ['SQL DROP INDEX', () => db.query('DROP INDEX k ON c')],
    ['streamed SQL DELETE', () => drain('DELETE FROM c')],
  ];
}

async function expectAllRefused(error: object): Promise<void> {
  const before = db.nodeState();
  for (const [name, write] of writers()) {
    await expect(write(), name).rejects.toMatchObject(error);
  }
  expect(db.nodeState()).toEqual(before);
  expect([...db.collection('c').scan()]).toEqual([{ _id: id, k: 'a' }]);
  expect(db.collections()).toEqual(['c']);
  expect(
    db
      .collection('c')
      .listIndexes()
      .map((i) => i.name),
  ).toEqual(['k']);
}

async function expectReadsWork(): Promise<void> {
  expect(await db.collection('c').get(id)).toEqual({ _id: id, k: 'a' });
  expect(db.collection('c').findBy('k', 'a').documents).toHaveLength(1);
  expect((await db.query("SELECT * FROM c WHERE k = 'a'")).count).toBe(1);
  expect(db.stats().collections[0]?.count).toBe(1);
  await db.flush();
  await db.checkpoint();
}

describe('the write gate', () => {
  it('lets every writer through on a writable node', async () => {
    expect(db.gate.state).toEqual({ role: 'none', readOnly: false });
    for (let i = 0; i < writers().length; i++) {
      const [name, write] = writers()[i] as [string, () => Promise<unknown>];
      const lastSeq = db.nodeState().lastSeq;
      await expect(write(), name).resolves.not.toThrow();
      if (name !== 'compact') expect(db.nodeState().lastSeq, name).toBeGreaterThan(lastSeq);
      await teardown();
      await fixture();
    }
  });

  it('refuses every writer during a handover, reads go on', async () => {
    db.gate.setReadOnly(true);
    await expectAllRefused({
      code: 'ERR_NODE_READ_ONLY',
      message: 'this node is read-only (handover)',
      details: { role: 'none' },
    });
    await expectReadsWork();
    db.gate.setReadOnly(false);
    await expect(db.collection('c').insert({ k: 'b' })).resolves.toEqual(expect.any(String));
  });

  it('refuses every writer on a follower, naming the leader', async () => {
    db.gate.setRole('follower', '10.0.0.1:5500');
    await expectAllRefused({
      code: 'ERR_NODE_READ_ONLY',
      message: 'this node is a follower; send writes to the leader at 10.0.0.1:5500',
      details: { role: 'follower', leader: '10.0.0.1:5500' },
    });
    await expectReadsWork();
  });

  it('refuses every writer while the node starts its replication, whatever its role', async () => {
    db.gate.setStarting(true);
    await expectAllRefused({
      code: 'ERR_NODE_READ_ONLY',
      message:
        'this node is starting its replication: it takes no writes until it knows whether it leads',
      details: { role: 'none' },
    });
    db.gate.setRole('leader');
    await expect(db.collection('c').insert({ k: 'b' })).rejects.toMatchObject({
      code: 'ERR_NODE_READ_ONLY',
    });
    await expectReadsWork();
    db.gate.setStarting(false);
    expect(db.gate.state).toEqual({ role: 'leader', readOnly: false });
    await expect(db.collection('c').insert({ k: 'b' })).resolves.toEqual(expect.any(String));
  });

  it('refuses a write queued before the node turned read-only, when it runs', async () => {
    const queued = db.collection('c').insert({ k: 'late' });
    db.gate.setReadOnly(true);
    await expect(queued).rejects.toMatchObject({ code: 'ERR_NODE_READ_ONLY' });
    expect(db.collection('c').count()).toBe(1);
  });

  it('refuses a bad role or flag with ERR_BAD_ARGUMENT', () => {
    expect(() => db.gate.setRole('primary' as never)).toThrow(/leader, follower or none/);
    expect(() => db.gate.setReadOnly('yes' as never)).toThrow(/true or false/);
  });
});

describe("replication's way past the gate", () => {
  it("applies a leader's entries on a follower that refuses client writes", async () => {
    const other = makeTempDir();
    const follower = await open(other.dir);
    try {
      follower.gate.setRole('follower', '10.0.0.1:5500');
      await expect(follower.collection('c').insert({ k: 'b' })).rejects.toMatchObject({
        code: 'ERR_NODE_READ_ONLY',
      });
      await follower.store.applyEntries([...db.changesSince(0)]);
      expect(follower.nodeState().lastSeq).toBe(db.nodeState().lastSeq);
      expect(await follower.collection('c').get(id)).toEqual({ _id: id, k: 'a' });
    } finally {
      await follower.close();
      other.cleanup();
    }
  });
});

describe('the commit barrier', () => {
  /** A barrier that records each seq it is given and resolves only when `release` is called. */
  function heldBarrier() {
    const seqs: number[] = [];
    const waiting: Array<() => void> = [];
    db.gate.setCommitBarrier((seq) => {
      seqs.push(seq);
      return new Promise<void>((resolve) => waiting.push(resolve));
    });
    const release = () => {
      for (const resolve of waiting.splice(0)) resolve();
    };
    return { seqs, release };
  }

  it('holds a write that logged a change until it resolves, with the last seq', async () => {
    const barrier = heldBarrier();
    let acknowledged = false;
    const write = db
      .collection('c')
      .insert({ k: 'b' })
      .then(() => {
        acknowledged = true;
      });
    await vi.waitFor(() => expect(barrier.seqs).toHaveLength(1));
    // Committed (readers see it) but not acknowledged while the followers lack it.
    expect(db.collection('c').count()).toBe(2);
    expect(barrier.seqs).toEqual([db.nodeState().lastSeq]);
    expect(acknowledged).toBe(false);
    barrier.release();
    await write;
    expect(acknowledged).toBe(true);
  });

  it('holds SQL writes alike', async () => {
    const barrier = heldBarrier();
    const write = db.query("UPDATE c SET k = 'z'");
    await vi.waitFor(() => expect(barrier.seqs).toHaveLength(1));
    barrier.release();
    await expect(write).resolves.toMatchObject({ affected: 1 });
  });

  it('never holds a write that logged nothing', async () => {
    await db.collection('c').delete(id);
    const barrier = heldBarrier();
    await expect(db.collection('c').delete(id)).resolves.toBe(false);
    await expect(db.compact('c')).resolves.toMatchObject({ collection: 'c' });
    expect(barrier.seqs).toEqual([]);
  });

  it('fails a committed write whose barrier rejects', async () => {
    db.gate.setCommitBarrier(() => Promise.reject(new Error('followers did not answer')));
    await expect(db.collection('c').insert({ k: 'b' })).rejects.toThrow(/did not answer/);
    expect(db.collection('c').count()).toBe(2);
  });

  it('waits for the barrier set when the write was queued, not one set later', async () => {
    const queued = db.collection('c').insert({ k: 'b' });
    heldBarrier();
    await expect(queued).resolves.toEqual(expect.any(String));
    db.gate.setCommitBarrier(undefined);
    await expect(db.collection('c').insert({ k: 'c' })).resolves.toEqual(expect.any(String));
  });
});

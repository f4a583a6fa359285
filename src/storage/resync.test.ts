/**
 * Proves the log's last term: `nodeState().lastTerm` is the term of the newest entry, or the
 * floor's term once trims emptied the log (kept across a reopen), and `termAt(seq)` answers
 * the term of each retained entry and of the floor, nothing below or past the log.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { Store } from './index.js';

let cleanups: Array<() => void>;

function tempDir(): string {
  const { dir, cleanup } = makeTempDir();
  cleanups.push(cleanup);
  return dir;
}

beforeEach(() => {
  cleanups = [];
});

afterEach(() => {
  for (const cleanup of cleanups) cleanup();
});

describe('the last term and termAt', () => {
  it('are 0 before anything was written, then follow the writes and the terms', async () => {
    const db = await open(tempDir());
    expect(db.nodeState()).toEqual({ term: 1, lastSeq: 0, seqFloor: 0, lastTerm: 0 });
    expect(db.termAt(0)).toBe(0);
    expect(db.termAt(1)).toBeUndefined();
    await db.collection('c').insert({ n: 1 });
    expect(db.nodeState()).toMatchObject({ lastSeq: 1, lastTerm: 1 });
    // A new term moves the node, not its newest entry: that one was written in term 1.
    await db.setTerm(3);
    expect(db.nodeState()).toMatchObject({ term: 3, lastSeq: 1, lastTerm: 1 });
    await db.collection('c').insert({ n: 2 });
    await db.collection('c').insert({ n: 3 });
    expect(db.nodeState()).toEqual({ term: 3, lastSeq: 3, seqFloor: 0, lastTerm: 3 });
    expect([0, 1, 2, 3, 4].map((seq) => db.termAt(seq))).toEqual([0, 1, 3, 3, undefined]);
    expect(db.termAt(-1)).toBeUndefined();
    expect(db.termAt(1.5)).toBeUndefined();
    await db.close();
  });

  it('keep the term of the entry at the floor through checkpoints and a reopen', async () => {
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
    await store.checkpoint(2);
    expect(store.nodeState()).toEqual({ term: 5, lastSeq: 4, seqFloor: 2, lastTerm: 5 });
    expect([1, 2, 3, 4, 5].map((seq) => store.termAt(seq))).toEqual([
      undefined,
      1,
      2,
      5,
      undefined,
    ]);
    // Trimmed empty: the last term is the floor's, the term of the last entry trimmed.
    await store.checkpoint(0);
    expect(store.nodeState()).toEqual({ term: 5, lastSeq: 4, seqFloor: 4, lastTerm: 5 });
    expect(store.termAt(4)).toBe(5);
    expect(store.termAt(3)).toBeUndefined();
    await store.close();
    const reopened = Store.open(dir);
    expect(reopened.nodeState()).toEqual({ term: 5, lastSeq: 4, seqFloor: 4, lastTerm: 5 });
    expect(reopened.termAt(4)).toBe(5);
    await reopened.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({}, undefined)]));
    expect(reopened.nodeState()).toMatchObject({ lastSeq: 5, lastTerm: 5 });
    await reopened.close();
  });

  it('keep the floor term when writes trim the log to its byte bound', async () => {
    const db = await open(tempDir(), { changeLogRetainBytes: 64 * 1024 });
    const filler = 'x'.repeat(2000);
    for (let batch = 0; batch < 30; batch++) {
      if (batch === 10) await db.setTerm(2);
      await db.collection('c').insertMany(Array.from({ length: 20 }, (_, i) => ({ i, filler })));
    }
    const { seqFloor, lastSeq } = db.nodeState();
    expect(seqFloor).toBeGreaterThan(10);
    expect(db.termAt(seqFloor)).toBe(2);
    expect(db.termAt(seqFloor - 1)).toBeUndefined();
    expect(db.termAt(lastSeq)).toBe(2);
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
    await db.setTerm(4);
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

/**
 * Where a follower's catch-up starts, on real logs: the log after its seq when its last term
 * agrees with the leader's entry there; a snapshot with a rollback after the last seq both
 * share when it does not, or when the follower is ahead; a plain snapshot when it is behind
 * the trimmed log with an older term, and a rollback of everything when its term shows a
 * history the leader never had.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { type Database, open } from '../engine/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { planCatchUp } from './catch-up.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(changeLogRetainBytes?: number): Promise<Database> {
  const { dir, cleanup } = makeTempDir('docdb-catch-up-');
  const db = await open(dir, changeLogRetainBytes ? { changeLogRetainBytes } : {});
  cleanups.push(cleanup, () => db.close());
  return db;
}

describe('planCatchUp', () => {
  it('streams the log when the histories agree, and rolls back where they part', async () => {
    const db = await database();
    for (let i = 0; i < 3; i++) await db.collection('c').insert({ i }); // seqs 1-3, term 1
    await db.setTerm(2);
    for (let i = 3; i < 5; i++) await db.collection('c').insert({ i }); // seqs 4-5, term 2
    expect(planCatchUp(db, { seq: 0, lastTerm: 0 })).toEqual({ catchUp: 'log', after: 0 });
    expect(planCatchUp(db, { seq: 3, lastTerm: 1 })).toEqual({ catchUp: 'log', after: 3 });
    expect(planCatchUp(db, { seq: 5, lastTerm: 2 })).toEqual({ catchUp: 'log', after: 5 });
    // The old leader of term 1 wrote seq 4 too, which this leader has from term 2.
    expect(planCatchUp(db, { seq: 4, lastTerm: 1 })).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 3,
    });
    // A follower ahead of this leader, in an older term.
    expect(planCatchUp(db, { seq: 7, lastTerm: 1 })).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 3,
    });
    expect(planCatchUp(db, { seq: 6, lastTerm: 2 })).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 5,
    });
    expect(planCatchUp(db, { seq: 5, lastTerm: 2, resync: true })).toEqual({
      catchUp: 'snapshot',
      after: 0,
    });
  });

  it('sends a snapshot behind the trimmed log, with a rollback of all when the term shows a parted history', async () => {
    const db = await database(64 * 1024);
    const text = 'x'.repeat(1000);
    for (let i = 0; i < 150; i++) await db.collection('c').insert({ i, text });
    await db.setTerm(2);
    await db.collection('c').insert({ last: true });
    const { seqFloor } = db.nodeState();
    expect(seqFloor).toBeGreaterThan(1);
    expect(db.termAt(seqFloor)).toBe(1);
    expect(planCatchUp(db, { seq: 1, lastTerm: 1 })).toEqual({ catchUp: 'snapshot', after: 0 });
    expect(planCatchUp(db, { seq: 1, lastTerm: 2 })).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 0,
    });
  });
});

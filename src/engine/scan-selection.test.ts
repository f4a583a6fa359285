/**
 * Scans that decode only the paths a statement reads, and the writer's in-memory copy of
 * those paths: results must always equal what whole documents give, across writes (which
 * make the copy stale), early stops, results a caller mutates, and scans that interleave.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from './index.js';

let dir: string;
let cleanup: () => void;
let db: Database;

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = await open(dir);
  await db.collection('o').insertMany(
    Array.from({ length: 300 }, (_, i) => ({
      n: i,
      status: ['new', 'paid', 'void'][i % 3],
      fare: { total: i * 10, currency: 'EUR' },
      legs: [{ to: i % 2 ? 'CDG' : 'JFK' }, { to: 'LHR' }],
    })),
  );
});
afterEach(async () => {
  await db.close();
  cleanup();
});

const GROUPS =
  'SELECT status, COUNT(*) AS n, SUM(fare.total) AS s FROM o GROUP BY status ORDER BY status';

/**
 * Runs a query three times and checks the answers agree: the first scan reads the file, the
 * second (a repeat with no write between) keeps the selection, the third reads what it kept.
 */
async function thrice(sql: string, params: unknown[] = []) {
  const answers = [];
  for (let i = 0; i < 3; i++) answers.push((await db.query(sql, params)).documents);
  expect(answers[1]).toEqual(answers[0]);
  expect(answers[2]).toEqual(answers[0]);
  return answers[2] as Record<string, unknown>[];
}

const groups = () => thrice(GROUPS);

describe('selected scans', () => {
  it('see every kind of write made after an earlier scan of the same paths', async () => {
    expect(await groups()).toEqual([
      { status: 'new', n: 100, s: 148500 },
      { status: 'paid', n: 100, s: 149500 },
      { status: 'void', n: 100, s: 150500 },
    ]);
    await db.collection('o').insert({ status: 'new', fare: { total: 5 } });
    await db.query("UPDATE o SET status = 'paid' WHERE n = 0");
    await db.query('DELETE FROM o WHERE n = 2');
    expect(await groups()).toEqual([
      { status: 'new', n: 100, s: 148505 },
      { status: 'paid', n: 101, s: 149500 },
      { status: 'void', n: 99, s: 150480 },
    ]);
    const filter = 'SELECT n FROM o WHERE legs[0].to = ? AND fare.total < ? ORDER BY n';
    expect((await thrice(filter, ['JFK', 50])).map((d) => d.n)).toEqual([0, 4]);
    await db.query('UPDATE o SET legs = [{"to": "JFK"}] WHERE n = 1');
    expect((await thrice(filter, ['JFK', 50])).map((d) => d.n)).toEqual([0, 1, 4]);
    // Other parameters over the same paths read the same kept selection.
    expect((await db.query(filter, ['CDG', 40])).documents.map((d) => d.n)).toEqual([3]);
  });

  it('return whole documents for SELECT * and never share objects a caller can change', async () => {
    const all = await thrice('SELECT * FROM o WHERE fare.total < ? ORDER BY n', [20]);
    expect(all.map((d) => d.legs)).toEqual([
      [{ to: 'JFK' }, { to: 'LHR' }],
      [{ to: 'CDG' }, { to: 'LHR' }],
    ]);
    const fares = 'SELECT fare FROM o WHERE n < 2 ORDER BY n';
    for (let i = 0; i < 3; i++) {
      const answer = await db.query(fares);
      (answer.documents[0]?.fare as { total: number }).total = -1;
    }
    const again = await db.query(fares);
    expect(again.documents.map((d) => d.fare)).toEqual([
      { total: 0, currency: 'EUR' },
      { total: 10, currency: 'EUR' },
    ]);
  });

  it('give the same answer after a scan that LIMIT stopped early', async () => {
    const some = await db.query("SELECT n FROM o WHERE status = 'void' LIMIT 2");
    expect(some.documents.map((d) => d.n)).toEqual([2, 5]);
    await db.query("SELECT n FROM o WHERE status = 'void' LIMIT 2");
    expect(await thrice("SELECT COUNT(*) AS c FROM o WHERE status = 'void'")).toEqual([{ c: 100 }]);
  });

  it('interleave: two scans of one collection stepped in turn each read their own documents', () => {
    const a = db.collection('o').scan();
    const b = db.collection('o').scan();
    const seenA: number[] = [];
    const seenB: number[] = [];
    for (;;) {
      const x = a.next();
      const y = b.next();
      if (x.done || y.done) break;
      seenA.push(x.value.n as number);
      seenB.push(y.value.n as number);
    }
    const expected = Array.from({ length: 300 }, (_, i) => i);
    expect(seenA).toEqual(expected);
    expect(seenB).toEqual(expected);
  });

  it('a reader process answers the same as the writer', async () => {
    const before = await groups();
    const reader = await open(dir, { readOnly: true });
    try {
      const read = await reader.query(
        'SELECT status, COUNT(*) AS n, SUM(fare.total) AS s FROM o GROUP BY status ORDER BY status',
      );
      expect(read.documents).toEqual(before);
    } finally {
      await reader.close();
    }
  });
});

describe('streams', () => {
  it('stream every document as the first request of a freshly opened file', async () => {
    await db.close();
    db = await open(dir);
    const stream = db.queryStream('SELECT * FROM o WHERE fare.total >= ?', [0]);
    const meta = await stream.next();
    expect(meta.value).toMatchObject({ plan: 'COLLECTION_SCAN', count: 300 });
    let documents = 0;
    for await (const document of stream) {
      expect(document).toHaveProperty('legs');
      documents++;
    }
    expect(documents).toBe(300);
  });
});

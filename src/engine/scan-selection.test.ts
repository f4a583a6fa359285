/**
 * Scans that decode only the paths a statement reads, and the writer's in-memory copy of
 * those paths: results must always equal what whole documents give, across writes (which
 * the copy follows), early stops, results a caller mutates, and scans that interleave.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { Rng } from '../util/index.js';
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

/** A document of the model kept beside the database in the tests that follow writes. */
interface Modelled {
  n: number;
  status: string;
  fare: { total: number };
}

/** What GROUPS answers over the model's documents. */
function modelGroups(docs: Iterable<Modelled>) {
  const groups = new Map<string, { status: string; n: number; s: number }>();
  for (const d of docs) {
    const group = groups.get(d.status) ?? { status: d.status, n: 0, s: 0 };
    group.n++;
    group.s += d.fare.total;
    groups.set(d.status, group);
  }
  return [...groups.values()].sort((a, b) => (a.status < b.status ? -1 : 1));
}

/** A random UUIDv4 text: it sorts anywhere among the collection's ids. */
function randomId(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** Makes `n` unique on o and reads o's documents into a model. */
async function uniqueNModel(): Promise<Map<string, Modelled>> {
  await db.collection('o').createIndex({ paths: ['n'], unique: true });
  const model = new Map<string, Modelled>();
  for await (const d of db.queryStream('SELECT * FROM o')) {
    if ('_id' in d) model.set(d._id as string, d as unknown as Modelled);
  }
  return model;
}

/** Checks GROUPS and a filter on fare.total below `under` against the model. */
async function expectAnswersOf(model: Map<string, Modelled>, under: number): Promise<void> {
  expect((await db.query(GROUPS)).documents).toEqual(modelGroups(model.values()));
  const expected = [...model.values()].filter((d) => d.fare.total < under).map((d) => d.n);
  const answer = await db.query('SELECT n FROM o WHERE fare.total < ? ORDER BY n', [under]);
  expect(answer.documents.map((d) => d.n)).toEqual(expected.sort((a, b) => a - b));
}

describe('a kept selection follows the writes after it', () => {
  it('answers as the documents are after every mix of inserts, updates, deletes and refusals', async () => {
    const orders = db.collection('o');
    const model = await uniqueNModel();
    const rng = new Rng(13);
    let next = 1000;
    for (let round = 0; round < 60; round++) {
      // Several writes per round, queued together so that one batch commits them all.
      const writes: Promise<unknown>[] = [];
      for (let w = rng.int(4) + 1; w > 0; w--) {
        const ids = [...model.keys()];
        const choice = rng.int(5);
        if (choice === 0) {
          const doc = {
            _id: randomId(rng),
            n: next++,
            status: rng.pick(['new', 'paid', 'x']),
            fare: { total: rng.int(3000) },
          };
          model.set(doc._id, doc);
          writes.push(orders.insert(doc));
        } else if (choice === 1) {
          const doc = { n: next++, status: 'late', fare: { total: rng.int(3000) } };
          writes.push(orders.insert(doc).then((id) => model.set(id, doc)));
        } else if (choice === 2 && ids.length > 0) {
          const id = rng.pick(ids);
          const doc = {
            ...(model.get(id) as Modelled),
            status: rng.pick(['new', 'void']),
            fare: { total: rng.int(3000) },
          };
          model.set(id, doc);
          writes.push(orders.replace(id, doc));
        } else if (choice === 3 && ids.length > 0) {
          const id = rng.pick(ids);
          model.delete(id);
          writes.push(orders.delete(id));
        } else {
          // Refused by the unique index: its job rolls back alone, inside the same batch.
          const taken = (model.get(rng.pick(ids)) as Modelled).n;
          writes.push(
            expect(orders.insert({ n: taken, status: 'dup', fare: { total: 1 } })).rejects.toThrow(
              /unique/,
            ),
          );
        }
      }
      await Promise.all(writes);
      await expectAnswersOf(model, rng.int(3000));
    }
  });

  it('answers right through deletes one at a time, past the point where it sheds them', async () => {
    await groups();
    const orders = db.collection('o');
    const ids = (await db.query("SELECT _id, n FROM o WHERE status = 'void' ORDER BY n")).documents;
    let total = 150500;
    for (const [i, doc] of ids.slice(0, 60).entries()) {
      await orders.delete(doc._id as string);
      total -= (doc.n as number) * 10;
      if (i % 10 === 9) {
        expect(await groups()).toEqual([
          { status: 'new', n: 100, s: 148500 },
          { status: 'paid', n: 100, s: 149500 },
          { status: 'void', n: 99 - i, s: total },
        ]);
      }
    }
  });

  it('answers right after a batch that puts many documents among the stored ids', async () => {
    await groups();
    const rng = new Rng(5);
    const orders = db.collection('o');
    await Promise.all(
      Array.from({ length: 40 }, () =>
        orders.insert({ _id: randomId(rng), status: 'new', fare: { total: 1 } }),
      ),
    );
    await orders.insert({ _id: randomId(rng), status: 'void', fare: { total: 2 } });
    expect(await groups()).toEqual([
      { status: 'new', n: 140, s: 148540 },
      { status: 'paid', n: 100, s: 149500 },
      { status: 'void', n: 101, s: 150502 },
    ]);
  });

  it('answers as the documents are through statements over many documents, bulk inserts among the stored ids and compactions', async () => {
    const orders = db.collection('o');
    const model = await uniqueNModel();
    const rng = new Rng(29);
    let next = 1000;
    const made = (): Modelled => ({
      n: next++,
      status: rng.pick(['a', 'b', 'c']),
      fare: { total: rng.int(5000) },
    });
    for (let round = 0; round < 80; round++) {
      const writes: Promise<unknown>[] = [];
      for (let w = rng.int(4) + 1; w > 0; w--) {
        const choice = rng.int(6);
        if (choice === 0) {
          const docs = Array.from({ length: rng.int(20) + 1 }, () => ({
            _id: randomId(rng),
            ...made(),
          }));
          for (const d of docs) model.set(d._id, d);
          writes.push(orders.insertMany(docs));
        } else if (choice === 1) {
          const low = rng.int(next);
          for (const d of model.values()) if (d.n >= low && d.n < low + 30) d.status = 'u';
          writes.push(
            db.query("UPDATE o SET status = 'u' WHERE n >= ? AND n < ?", [low, low + 30]),
          );
        } else if (choice === 2) {
          const low = rng.int(next);
          for (const [id, d] of model) if (d.n >= low && d.n < low + 15) model.delete(id);
          writes.push(db.query('DELETE FROM o WHERE n >= ? AND n < ?', [low, low + 15]));
        } else if (choice === 3) {
          const ids = [...model.keys()];
          const doomed = [...new Set(Array.from({ length: rng.int(10) + 1 }, () => rng.pick(ids)))];
          for (const id of doomed) model.delete(id);
          writes.push(orders.deleteMany(doomed));
        } else if (choice === 4 && round % 20 === 0) {
          writes.push(db.compact('o'));
        } else {
          const doc = made();
          writes.push(orders.insert(doc).then((id) => model.set(id, doc)));
        }
      }
      await Promise.all(writes);
      await expectAnswersOf(model, rng.int(5000));
    }
  });

  it('lets a scan that was reading it when a write committed finish on what it began with', async () => {
    const everything = 'SELECT n FROM o WHERE fare.total >= ?';
    await db.query(everything, [0]);
    await db.query(everything, [0]);
    const stream = db.queryStream(everything, [0]);
    const seen: number[] = [];
    for await (const row of stream) {
      if (!('n' in row)) continue;
      seen.push(row.n as number);
      if (seen.length === 10) {
        await db.query('DELETE FROM o WHERE n = 200');
        await db.query('UPDATE o SET fare.total = -1 WHERE n = 250');
        await db.collection('o').insert({ n: 300, fare: { total: 1 } });
      }
    }
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i));
    const after = await db.query(everything, [0]);
    const ns = after.documents.map((d) => d.n as number).sort((a, b) => a - b);
    expect(ns).toHaveLength(299);
    expect(ns).not.toContain(200);
    expect(ns).not.toContain(250);
    expect(ns).toContain(300);
  });

  it('gives object values written at a kept path whole, not a stale scalar', async () => {
    await groups();
    await db.query('UPDATE o SET status = {"code": "held"} WHERE n = 3');
    const held = await thrice("SELECT n, status FROM o WHERE n < 6 AND status != 'new' ORDER BY n");
    expect(held.map((d) => d.status)).toEqual(['paid', 'void', { code: 'held' }, 'paid', 'void']);
  });

  it('starts over when the collection is dropped and made again under the same name', async () => {
    await groups();
    await db.collection('o').drop();
    await db.collection('o').insert({ status: 'new', fare: { total: 7 } });
    expect(await groups()).toEqual([{ status: 'new', n: 1, s: 7 }]);
  });

  it('survives a compaction and the bulk load of many documents in one batch', async () => {
    await groups();
    await db.compact('o');
    const many = Array.from({ length: 20_000 }, (_, i) => ({ status: 'bulk', fare: { total: i } }));
    await db.collection('o').insertMany(many);
    const answer = await groups();
    expect(answer.find((g) => g.status === 'bulk')).toEqual({
      status: 'bulk',
      n: 20_000,
      s: 199_990_000,
    });
    expect(answer.reduce((sum, g) => sum + (g.n as number), 0)).toBe(20_300);
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

/**
 * Index reads (point lookup, equality, range, a JOIN's FROM side) decode only the paths their
 * statement reads when no row needs the whole document: every answer must equal the one the
 * same statement gives from whole documents (reading `_id` forces whole decodes), with absent
 * paths, arrays, positions and a multikey (`[*]`) index among what is projected and read.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type CollectionView, parse, planNodes, planSelect } from '../sql/index.js';
import { Rng } from '../util/index.js';
import { type Database, open } from './index.js';

let cleanup: () => void = () => {};
let db: Database;

const CODES = ['CDG', 'JFK', 'LHR', 'NRT'];

/** An order of many shapes: fields missing, arrays of any length, objects where scalars were. */
function order(rng: Rng, n: number): Record<string, unknown> {
  const doc: Record<string, unknown> = { n, status: rng.pick(['new', 'paid', 'void']) };
  if (rng.chance(0.9)) {
    doc.fare = rng.chance(0.1)
      ? [{ total: 1 }]
      : { total: rng.int(50) * 10, currency: rng.chance(0.5) ? 'EUR' : null };
  }
  if (rng.chance(0.9)) {
    doc.legs = Array.from({ length: rng.int(3) }, () =>
      rng.chance(0.9) ? { to: rng.pick(CODES), seat: [rng.int(40), 'A'] } : 'open',
    );
  }
  if (rng.chance(0.5)) doc.tags = rng.chance(0.5) ? ['x', { y: [1, 2] }] : { y: 'z' };
  return doc;
}

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir());
  db = await open(dir);
  const rng = new Rng(25);
  const orders = db.collection('o');
  await orders.insertMany(Array.from({ length: 400 }, (_, n) => order(rng, n)));
  await orders.createIndex({ paths: ['n'], unique: true });
  await orders.createIndex({ paths: ['status'] });
  await orders.createIndex({ paths: ['fare.total'] });
  await orders.createIndex({ paths: ['legs[*].to'] });
  await db
    .collection('a')
    .insertMany(CODES.map((code, k) => ({ code, city: `city ${k}`, tz: [k, { h: k }] })));
});
afterAll(async () => {
  await db.close();
  cleanup();
});

const COLUMNS =
  'n, fare, fare.total, fare.currency, legs, legs[0].to, legs[1].seat[0], tags, tags.y, missing.path';

async function answers(sql: string, params: unknown[]) {
  return (await db.query(sql, params)).documents;
}

describe('index reads that decode only the statement’s paths', () => {
  it('answer as whole documents do, through every index access', async () => {
    const cases: Array<[string, unknown[], string]> = [
      ['n = ?', [7], 'INDEX_SCAN(idx_o_n)'],
      ['n = ?', [4000], 'INDEX_SCAN(idx_o_n)'],
      ['status = ? LIMIT 30', ['paid'], 'INDEX_SCAN(idx_o_status)'],
      ["status = 'new' AND legs[0].to = 'CDG'", [], 'INDEX_SCAN(idx_o_status)'],
      ['fare.total >= ? AND fare.total < ?', [100, 200], 'INDEX_RANGE_SCAN(idx_o_fare_total)'],
      ["fare.total > 300 AND tags.y = 'z'", [], 'INDEX_RANGE_SCAN(idx_o_fare_total)'],
      ['legs[1].to = ?', ['JFK'], 'INDEX_SCAN(idx_o_legs_'],
    ];
    for (const [where, params, plan] of cases) {
      const sparse = await db.query(`SELECT ${COLUMNS} FROM o WHERE ${where}`, params);
      const whole = await answers(`SELECT _id, ${COLUMNS} FROM o WHERE ${where}`, params);
      expect(sparse.plan, where).toContain(plan);
      expect(sparse.documents, where).toEqual(whole);
    }
  });

  it('stream what a query answers (streams read index rows sparse, then documents whole)', async () => {
    for (const [sql, params] of [
      ['SELECT * FROM o WHERE status = ? LIMIT 30', ['void']],
      ['SELECT n, legs, tags.y FROM o WHERE fare.total >= ? AND fare.total < ?', [100, 300]],
      ['SELECT * FROM o WHERE n = ?', [12]],
    ] as const) {
      const streamed = [];
      for await (const item of db.queryStream(sql, [...params])) streamed.push(item);
      const [meta, ...documents] = streamed;
      expect(meta).toMatchObject({
        count: documents.length,
        plan: expect.stringMatching(/^INDEX_/),
      });
      expect(documents, sql).toEqual(await answers(sql, [...params]));
    }
  });

  it('answer a JOIN as whole documents do', async () => {
    const on =
      'FROM o JOIN a ON o.legs[0].to = a.code WHERE o.fare.total >= ? AND o.fare.total < ?';
    const columns = 'o.n, o.legs, o.tags.y, o.missing, a.city, a.tz[1].h';
    for (const bounds of [
      [0, 250],
      [250, 1000],
    ]) {
      const sparse = await answers(`SELECT ${columns} ${on}`, bounds);
      const whole = await answers(`SELECT o._id, ${columns} ${on}`, bounds);
      expect(sparse.length).toBeGreaterThan(0);
      expect(sparse).toEqual(whole.map(({ 'o._id': _id, ...rest }) => rest));
    }
    const grouped = `SELECT a.city, COUNT(*) AS n, SUM(o.fare.total) AS s ${on} GROUP BY a.city`;
    const groupedWhole = `SELECT a.city, COUNT(o._id) AS n, SUM(o.fare.total) AS s ${on} GROUP BY a.city`;
    expect(await answers(grouped, [0, 1000])).toEqual(await answers(groupedWhole, [0, 1000]));
  });

  it('plan a JOIN’s FROM side sparse, without `_id`, only when no row needs more', () => {
    const index = {
      paths: ['fare.total'],
      unique: false,
      multikey: false,
      state: 'ready',
    } as const;
    const views: CollectionView[] = [
      { name: 'o', indexes: [{ ...index, name: 'idx_o_fare_total', paths: ['fare.total'] }] },
      { name: 'a', indexes: [] },
    ];
    const access = (sql: string) => {
      const statement = parse(sql).statement;
      if (statement.kind !== 'select') throw new Error('a SELECT');
      const plan = planSelect(statement, views);
      const node = planNodes(plan.root).at(-1);
      if (!node || !('selection' in node)) throw new Error('an access path');
      return { id: node.id, paths: node.selection?.map((p) => p.text) };
    };
    const from = 'FROM o JOIN a ON o.legs[0].to = a.code WHERE o.fare.total > 5';
    expect(access(`SELECT o.n, a.city ${from}`)).toEqual({
      id: 'none',
      paths: ['legs[0].to', 'n', 'fare.total'],
    });
    for (const whole of [
      `SELECT * ${from}`,
      `SELECT o._id, a.city ${from}`,
      `SELECT o.n, a._id ${from}`,
      `SELECT o.n ${from} ORDER BY o.n`,
    ]) {
      expect(access(whole), whole).toEqual({ id: 'afterFilter', paths: undefined });
    }
  });
});

describe('index reads that prove WHERE skip its recheck, and only then', () => {
  it('still reject what a key cannot tell apart: cut keys, a lone surrogate', async () => {
    const c = db.collection('keys');
    const long = 'x'.repeat(1500);
    await c.insertMany([
      { k: `${long}a`, n: 1 },
      { k: `${long}b`, n: 2 },
      { k: 'a\ufffd', n: 4 },
      { k: 5, n: 5 },
      { k: '5', n: 6 },
      { k: true, n: 7 },
    ]);
    await c.createIndex({ paths: ['k'] });
    const ns = async (where: string, params: unknown[]) => {
      const result = await db.query(`SELECT n FROM keys WHERE ${where}`, params);
      expect(result.plan).toMatch(/^INDEX_/);
      return result.documents.map((d) => d.n);
    };
    expect(await ns('k = ?', [`${long}b`])).toEqual([2]);
    // A lone surrogate is keyed as U+FFFD: the index gives n 4, the recheck drops it.
    expect(await ns('k = ?', ['a\ud800'])).toEqual([]);
    expect(await ns('k = ?', ['a\ufffd'])).toEqual([4]);
    expect(await ns('k = ?', [5])).toEqual([5]);
    expect(await ns('k = ?', ['5'])).toEqual([6]);
    expect(await ns('k = ?', [true])).toEqual([7]);
    expect(await ns('k >= ? AND k < ?', [4, 6])).toEqual([5]);
    expect(await ns('k > ?', [long])).toEqual([1, 2]);
  });
});

/**
 * What a router asks of a shard (ADR 0014), on real databases: sort keys beside each sorted
 * row, whole and streamed, even when the projection drops the ORDER BY path; a partial
 * aggregate whose parts, merged with the semantics' aggregates, give exactly what one node
 * holding every document answers, whatever ORDER BY, DISTINCT, OFFSET and LIMIT the text has;
 * a row window (`top`) that replaces the text's OFFSET and LIMIT; warnings for the user's
 * own text; and clear refusals when a plan does not fit.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { aggregateOf, compareSortKeys, GroupKeys } from '../sql/semantics/index.js';
import { type Database, type KeyedRow, open, type QueryMeta, type ShardPlan } from './index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<Database> {
  const { dir, cleanup } = makeTempDir('docdb-shard-query-');
  const db = await open(dir);
  cleanups.push(cleanup, () => db.close());
  return db;
}

const STATUSES = ['ok', 'late', 'gone', null];

function docs(from: number, to: number) {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    return {
      i,
      status: STATUSES[i % 4],
      n: i % 7 === 0 ? 'not a number' : i % 5 === 0 ? null : (i * 13) % 29,
    };
  });
}

describe('sort keys for a router', () => {
  it('answers each row sort key, whole and streamed, when the projection drops the path', async () => {
    const db = await database();
    await db.collection('c').insertMany(docs(0, 30));
    const sql = 'SELECT i FROM c WHERE i < ? ORDER BY n DESC LIMIT 10';
    const plan = { kind: 'rows', top: 10, sortKeys: true } as const;
    const result = await db.query(sql, [25], { shard: plan });
    expect(result.documents).toHaveLength(10);
    const keys = result.sortKeys as unknown[][];
    expect(keys).toHaveLength(10);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k] as unknown[];
      const doc = result.documents[k] as { _id: string; i: number };
      expect(key[1]).toBe(doc._id);
      if (k > 0) expect(compareSortKeys(keys[k - 1] as unknown[], key, [true])).toBeLessThan(0);
    }
    const streamed: KeyedRow[] = [];
    let meta: QueryMeta | undefined;
    for await (const value of db.queryStream(sql, [25], { shard: plan })) {
      if (!meta) meta = value as QueryMeta;
      else streamed.push(value as KeyedRow);
    }
    expect(meta?.count).toBe(10);
    expect(streamed.map((r) => r.doc)).toEqual(result.documents);
    expect(streamed.map((r) => r.sortKey)).toEqual(keys);
    // An ORDER BY over a unique index lookup sorts too (the point-lookup path never serves a
    // sorted statement), so it answers its sort key: each shard holds its own unique values,
    // and a router may merge several such rows.
    await db.collection('c').createIndex({ paths: ['i'], unique: true, name: 'by_i' });
    const point = await db.query('SELECT i FROM c WHERE i = ? ORDER BY n', [4], {
      shard: { kind: 'rows', sortKeys: true },
    });
    expect(point.plan).toBe('INDEX_SCAN(by_i)');
    expect(point.sortKeys).toEqual([[(4 * 13) % 29, point.documents[0]?._id]]);
    // Without ORDER BY there is nothing to merge by: no keys.
    expect(
      (await db.query('SELECT i FROM c', [], { shard: { kind: 'rows', sortKeys: true } })).sortKeys,
    ).toBeUndefined();
  });
});

describe('partial aggregates for a router', () => {
  const sql =
    'SELECT status, COUNT(*), COUNT(n), SUM(n), AVG(n), MIN(n), MAX(n) FROM c WHERE i >= ? GROUP BY status';

  it('merge to what one node holding every document answers', async () => {
    const whole = await database();
    const parts = [await database(), await database(), await database()];
    await whole.collection('c').insertMany(docs(0, 90));
    await parts[0]?.collection('c').insertMany(docs(0, 40));
    await parts[1]?.collection('c').insertMany(docs(40, 90));
    await parts[2]?.collection('c').insert({ i: -1, status: 'only-here', n: 3 });
    const expected = (await whole.query(sql, [3])).documents;
    const results = await Promise.all(
      parts.map((p) => p.query(sql, [3], { shard: { kind: 'partial' } })),
    );
    // The router's merge: states per group key, merged, then finished.
    const fns = ['COUNT*', 'COUNT', 'SUM', 'AVG', 'MIN', 'MAX'].map((f) =>
      aggregateOf(f.replace('*', '') as never, f.endsWith('*')),
    );
    const keys = new GroupKeys();
    const groups = new Map<unknown, { group: unknown[]; states: unknown[] }>();
    for (const result of results) {
      expect(result.plan).toBe('COLLECTION_SCAN + AGGREGATE');
      for (const part of result.documents as unknown as Array<{
        group: unknown[];
        states: unknown[];
      }>) {
        const key = keys.keyOf(part.group);
        const held = groups.get(key);
        if (!held) groups.set(key, { group: part.group, states: [...part.states] });
        else held.states = held.states.map((s, k) => fns[k]?.merge(s, part.states[k]));
      }
    }
    const merged = [...groups.values()].map(({ group, states }) => ({
      status: group[0],
      'COUNT(*)': fns[0]?.finish(states[0]),
      'COUNT(n)': fns[1]?.finish(states[1]),
      'SUM(n)': fns[2]?.finish(states[2]),
      'AVG(n)': fns[3]?.finish(states[3]),
      'MIN(n)': fns[4]?.finish(states[4]),
      'MAX(n)': fns[5]?.finish(states[5]),
    }));
    // The one-node answer has no 'only-here' group: the third part's document is i = -1.
    const byStatus = (rows: unknown[]) =>
      [...(rows as Array<{ status: unknown }>)].sort((a, b) =>
        String(a.status).localeCompare(String(b.status)),
      );
    expect(byStatus(merged)).toEqual(byStatus(expected));
  });

  it('answers initial states for no rows without GROUP BY, so COUNT merges to 0', async () => {
    const db = await database();
    await db.collection('c2').insert({ i: 1, n: 2 });
    const result = await db.query('SELECT COUNT(*), AVG(n) FROM c2 WHERE i > 5', [], {
      shard: { kind: 'partial' },
    });
    expect(result.documents).toEqual([{ group: [], states: [0, { sum: 0, count: 0 }] }]);
  });

  it('ignores ORDER BY, DISTINCT, OFFSET and LIMIT: they apply after the merge', async () => {
    const db = await database();
    await db.collection('c').insertMany(docs(0, 20));
    const bare = await db.query('SELECT status, COUNT(*) FROM c GROUP BY status', [], {
      shard: { kind: 'partial' },
    });
    expect(bare.count).toBe(4);
    const texts: Array<[string, unknown[]]> = [
      [
        'SELECT status, COUNT(*) FROM c GROUP BY status ORDER BY status DESC LIMIT ? OFFSET ?',
        [1, 2],
      ],
      ['SELECT DISTINCT status, COUNT(*) FROM c GROUP BY status LIMIT 1 OFFSET ?', [3]],
    ];
    for (const [sql, params] of texts) {
      const part = await db.query(sql, params, { shard: { kind: 'partial' } });
      expect(part.plan).toBe(bare.plan);
      expect(part.documents).toEqual(bare.documents);
    }
  });
});

describe("a shard's row window for a router", () => {
  it('answers the first `top` rows in order, ignoring OFFSET and LIMIT, whole and streamed', async () => {
    const db = await database();
    await db.collection('c').insertMany(docs(0, 30));
    const sql = 'SELECT i FROM c WHERE i >= ? ORDER BY i DESC LIMIT ? OFFSET ?';
    const plan = { kind: 'rows', top: 5, sortKeys: true } as const;
    const whole = await db.query(sql, [3, 2, 3], { shard: plan });
    // The user's LIMIT 2 OFFSET 3 is the router's to apply; the shard answers rows 1 to 5.
    expect(whole.documents.map((d) => d.i)).toEqual([29, 28, 27, 26, 25]);
    expect(whole.plan).toBe('COLLECTION_SCAN');
    expect(whole.sortKeys?.map((k) => k[0])).toEqual([29, 28, 27, 26, 25]);
    const streamed: unknown[] = [];
    for await (const value of db.queryStream(sql, [3, 2, 3], { shard: plan })) {
      streamed.push(value);
    }
    expect((streamed[0] as QueryMeta).count).toBe(5);
    expect(streamed.slice(1).map((r) => (r as KeyedRow).doc.i)).toEqual([29, 28, 27, 26, 25]);
    // Without `top` every row comes, still without the OFFSET.
    const all = await db.query(sql, [3, 2, 3], { shard: { kind: 'rows' } });
    expect(all.count).toBe(27);
    expect(all.sortKeys).toBeUndefined();
  });

  it('keeps the plans of one text apart: as written, a partial part and row windows', async () => {
    const db = await database();
    await db.collection('c').insertMany(docs(0, 12));
    const rows = 'SELECT i FROM c ORDER BY i LIMIT 2 OFFSET 1';
    const sum = 'SELECT COUNT(*) FROM c LIMIT 1';
    for (let turn = 0; turn < 2; turn++) {
      expect((await db.query(rows)).documents.map((d) => d.i)).toEqual([1, 2]);
      const top3 = await db.query(rows, [], { shard: { kind: 'rows', top: 3 } });
      expect(top3.documents.map((d) => d.i)).toEqual([0, 1, 2]);
      const top5 = await db.query(rows, [], { shard: { kind: 'rows', top: 5 } });
      expect(top5.documents.map((d) => d.i)).toEqual([0, 1, 2, 3, 4]);
      expect((await db.query(sum)).documents).toEqual([{ 'COUNT(*)': 12 }]);
      const part = await db.query(sum, [], { shard: { kind: 'partial' } });
      expect(part.documents).toEqual([{ group: [], states: [12] }]);
    }
  });

  it("carries the node's warnings for the user's own text", async () => {
    const db = await database();
    await db.collection('c').insertMany(docs(0, 5));
    const sql = 'SELECT * FROM c WHERE "nosuchfield" = 1 ORDER BY i LIMIT 2 OFFSET 1';
    const { warnings } = await db.query(sql);
    expect(warnings).toHaveLength(1);
    const part = await db.query(sql, [], { shard: { kind: 'rows', top: 3, sortKeys: true } });
    expect(part.warnings).toEqual(warnings);
  });
});

describe('shard plans that do not fit', () => {
  it('are refused, saying why', async () => {
    const db = await database();
    await db.collection('c').insertMany(docs(0, 5));
    const refusals: Array<[string, unknown, string]> = [
      ['SELECT i FROM c', { kind: 'partial' }, 'needs aggregates or GROUP BY'],
      ['SELECT COUNT(*) FROM c', { kind: 'partial', top: 3 }, "field 'top' is for kind 'rows'"],
      [
        'SELECT COUNT(*) FROM c',
        { kind: 'partial', sortKeys: true },
        "field 'sortKeys' is for kind 'rows'",
      ],
      ['SELECT i FROM c', { kind: 'rows', top: -1 }, "'top' must be a non-negative integer"],
      ['SELECT i FROM c', { kind: 'rows', top: 1.5 }, "'top' must be a non-negative integer"],
      ['SELECT i FROM c', { kind: 'final' }, "kind \"final\" is unknown; use 'partial' or 'rows'"],
      ['DELETE FROM c WHERE i = 1', { kind: 'rows' }, 'not DELETE'],
    ];
    for (const [sql, shard, message] of refusals) {
      await expect(
        db.query(sql, [], { shard: shard as ShardPlan }),
        JSON.stringify(shard),
      ).rejects.toMatchObject({
        code: 'ERR_BAD_ARGUMENT',
        message: expect.stringContaining(message),
      });
    }
    // Refused before anything ran: the DELETE deleted nothing.
    expect((await db.query('SELECT COUNT(*) AS n FROM c')).documents).toEqual([{ n: 5 }]);
  });
});

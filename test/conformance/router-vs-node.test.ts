/**
 * The conformance property of issue 11 (STYLE habit 5): the same generated documents loaded
 * into one node and, through the router, into three shards; the same generated SELECTs (WHERE
 * on the shard key or not, ORDER BY, LIMIT/OFFSET, GROUP BY, COUNT/SUM/AVG/MIN/MAX, DISTINCT,
 * JOIN on a replicated collection) must answer the same rows on both: in the same order when
 * the order is total (ORDER BY on rows, whose ties break by `_id`; ORDER BY every GROUP BY
 * column), as a multiset otherwise, and the same count when a LIMIT cuts an unordered answer.
 * Prices are integers, so sums do not depend on the order of addition. A second property takes
 * the shared SQL generators (test/sql/generators.ts): each run's documents go to a new
 * collection hash-sharded on `m`, and random WHERE clauses (on the shard key or not) must
 * select the same documents and counts. Real nodes on sockets.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DocdbClient, type Document } from '../../src/client/index.js';
import { type ClusterConfig, Router } from '../../src/cluster/index.js';
import { formatId, newId } from '../../src/util/index.js';
import { docsArb, render, type Where, whereOfDepth } from '../sql/generators.js';
import { type Harness, startHarness } from '../support/app-harness.js';

/** Runs of the property. Raise it to hunt: DOCDB_PROPERTY_RUNS=1000. */
const NUM_RUNS = Number(process.env.DOCDB_PROPERTY_RUNS ?? 150);

const CODES = ['AMS', 'BER', 'CDG', 'DUB'];
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 1, 2, true, null];

const orderArb: fc.Arbitrary<Document> = fc.record(
  {
    pnr: fc.constantFrom(...KEYS),
    price: fc.oneof(fc.integer({ min: -5, max: 40 }), fc.constant(null), fc.constant('9')),
    origin: fc.constantFrom(...CODES, 'ZZZ', null),
    tag: fc.constantFrom('x', 'y', 1, false),
    n: fc.integer({ min: 0, max: 3 }),
  },
  { requiredKeys: ['pnr'] },
);

const COLUMNS = ['pnr', 'price', 'origin', 'tag', 'n'];

interface Generated {
  sql: string;
  params: unknown[];
  /** How the two answers must agree. */
  compare: 'exact' | 'bag' | 'count';
}

const where = fc.oneof(
  fc.constant({ text: '', params: [] as unknown[] }),
  fc.constantFrom(...KEYS).map((k) => ({ text: ' WHERE pnr = ?', params: [k] })),
  fc
    .subarray(KEYS.slice(0, 8), { minLength: 1, maxLength: 3 })
    .map((ks) => ({ text: ` WHERE pnr IN (${ks.map(() => '?').join(', ')})`, params: ks })),
  fc.integer({ min: 0, max: 30 }).map((v) => ({ text: ' WHERE price > ?', params: [v] })),
  fc.constantFrom(...CODES).map((c) => ({ text: ' WHERE origin = ? OR n = 1', params: [c] })),
);

const window = fc.record({
  limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
  offset: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
});

function windowText(w: { limit?: number | undefined; offset?: number | undefined }) {
  return `${w.limit !== undefined ? ` LIMIT ${w.limit}` : ''}${w.offset !== undefined ? ` OFFSET ${w.offset}` : ''}`;
}

const rowSelect: fc.Arbitrary<Generated> = fc
  .record({
    distinct: fc.boolean(),
    columns: fc.subarray(COLUMNS, { minLength: 1, maxLength: 3 }),
    star: fc.boolean(),
    where,
    orderBy: fc.subarray(COLUMNS, { minLength: 0, maxLength: 2 }),
    descending: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
    window,
  })
  .map((g) => {
    const distinct = g.distinct && !g.star;
    const list = g.star && !distinct ? '*' : g.columns.join(', ');
    const order = g.orderBy.map((c, i) => `${c}${g.descending[i] ? ' DESC' : ''}`).join(', ');
    const sql = `SELECT ${distinct ? 'DISTINCT ' : ''}${list} FROM orders${g.where.text}${order ? ` ORDER BY ${order}` : ''}${windowText(g.window)}`;
    // DISTINCT keeps the first of equal rows in sort order: the order is total only when the
    // ORDER BY covers what is projected; ties otherwise break by `_id`, the same everywhere.
    const total = order !== '' && (!distinct || g.columns.every((c) => g.orderBy.includes(c)));
    const cut = g.window.limit !== undefined || g.window.offset !== undefined;
    return { sql, params: g.where.params, compare: total ? 'exact' : cut ? 'count' : 'bag' };
  });

const AGGREGATES = [
  'COUNT(*)',
  'COUNT(price)',
  'SUM(price)',
  'AVG(price)',
  'MIN(price)',
  'MAX(tag)',
];

const aggregateSelect: fc.Arbitrary<Generated> = fc
  .record({
    groupBy: fc.subarray(['origin', 'tag', 'n', 'pnr'], { minLength: 0, maxLength: 2 }),
    aggregates: fc.subarray(AGGREGATES, { minLength: 1, maxLength: 3 }),
    where,
    sorted: fc.boolean(),
    descending: fc.boolean(),
    distinct: fc.boolean(),
    window,
  })
  .map((g) => {
    const items = [...g.groupBy, ...g.aggregates].join(', ');
    const sorted = g.sorted && g.groupBy.length > 0;
    const order = sorted
      ? ` ORDER BY ${g.groupBy.map((c) => `${c}${g.descending ? ' DESC' : ''}`).join(', ')}`
      : '';
    const sql = `SELECT ${g.distinct ? 'DISTINCT ' : ''}${items} FROM orders${g.where.text}${g.groupBy.length > 0 ? ` GROUP BY ${g.groupBy.join(', ')}` : ''}${order}${windowText(g.window)}`;
    const cut = g.window.limit !== undefined || g.window.offset !== undefined;
    return {
      sql,
      params: g.where.params,
      compare: sorted || g.groupBy.length === 0 ? 'exact' : cut ? 'count' : 'bag',
    };
  });

const joinSelect: fc.Arbitrary<Generated> = fc
  .record({ where, window, descending: fc.boolean() })
  .map((g) => ({
    sql: `SELECT orders.pnr, orders.price, airports.city FROM orders JOIN airports ON orders.origin = airports.code${g.where.text.replaceAll('pnr', 'orders.pnr').replaceAll('price', 'orders.price').replaceAll('origin', 'orders.origin').replaceAll(' n ', ' orders.n ')} ORDER BY orders.price${g.descending ? ' DESC' : ''}${windowText(g.window)}`,
    params: g.where.params,
    compare: 'exact' as const,
  }));

const bag = (docs: readonly Document[]) => docs.map((d) => JSON.stringify(d)).sort();

describe('router vs one node, on generated documents and SQL', () => {
  const nodes: Array<{ harness: Harness; url: string }> = [];
  let single: DocdbClient;
  let router: Router;

  beforeAll(async () => {
    for (const name of ['reference', 's1', 's2', 's3']) {
      const harness = await startHarness({ nodeName: name });
      nodes.push({ harness, url: await harness.app.listen({ port: 0, host: '127.0.0.1' }) });
    }
    const config: ClusterConfig = {
      version: 1,
      router: { port: 6000 },
      shards: nodes.slice(1).map((n, i) => ({ name: `s${i + 1}`, endpoint: n.url })),
      collections: {
        orders: { strategy: 'hash', path: 'pnr' },
        airports: { strategy: 'replicated' },
      },
    };
    single = connect((nodes[0] as { url: string }).url);
    router = new Router(config);
    const orders = fc
      .sample(orderArb, { numRuns: 160, seed: 11 })
      .map((d) => ({ _id: formatId(newId()), ...d }));
    const airports = CODES.map((code, i) => ({ _id: formatId(newId()), code, city: `c${i}` }));
    for (const target of [single, router]) {
      await target.bulk('orders', orders);
      await target.bulk('airports', airports);
    }
  });

  afterAll(async () => {
    await single.close();
    await router.close();
    for (const node of nodes) await node.harness.close();
  });

  /** The same documents and counts, on one node and through the router, for each WHERE. */
  async function compareWheres(name: string, docs: Document[], wheres: Where[]) {
    for (const w of wheres) {
      for (const key of [false, true]) {
        const params: unknown[] = [];
        let text = render(w, params, { notLike: true });
        if (key) {
          text = `m = ? AND (${text})`;
          params.unshift(docs[0]?.m);
        }
        const sql = `SELECT * FROM ${name} WHERE ${text}`;
        const expected = (await single.query(sql, params)).documents;
        const actual = (await router.query(sql, params)).documents;
        expect(bag(actual), sql).toEqual(bag(expected));
        const count = `SELECT COUNT(*) AS n, MIN(n) AS lo FROM ${name} WHERE ${text}`;
        expect((await router.query(count, params)).documents, count).toEqual(
          (await single.query(count, params)).documents,
        );
      }
    }
  }

  it('selects what one node selects for random WHERE clauses on random documents', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        docsArb,
        fc.array(whereOfDepth(2), { minLength: 1, maxLength: 4 }),
        async (generated, wheres) => {
          const name = `w${run++}`;
          router.config.collections[name] = { strategy: 'hash', path: 'm' };
          // Every document needs a scalar shard key to be placed.
          const docs = generated.map((d, i) => ({ ...d, m: d.m === undefined ? i % 4 : d.m }));
          await single.bulk(name, docs);
          const stored = await router.bulk(name, docs);
          expect(stored.errors).toEqual([]);
          try {
            await compareWheres(name, docs, wheres);
          } finally {
            // A data file holds at most 256 collections: each run drops its own.
            await single.dropCollection(name);
            await router.dropCollection(name);
          }
        },
      ),
      {
        numRuns: Math.ceil(NUM_RUNS / 3),
        seed: Number(process.env.DOCDB_PROPERTY_SEED ?? 20261124),
      },
    );
  });

  it('answers every generated SELECT as one node does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(rowSelect, rowSelect, aggregateSelect, joinSelect), async (g) => {
        const expected = (await single.query(g.sql, g.params)).documents;
        const actual = (await router.query(g.sql, g.params)).documents;
        if (g.compare === 'exact') expect(actual, g.sql).toEqual(expected);
        else if (g.compare === 'bag') expect(bag(actual), g.sql).toEqual(bag(expected));
        else expect(actual.length, g.sql).toBe(expected.length);
        const streamed: unknown[] = [];
        for await (const value of router.queryStream(g.sql, g.params)) streamed.push(value);
        expect(streamed.slice(1).length, g.sql).toBe(actual.length);
      }),
      { numRuns: NUM_RUNS, seed: Number(process.env.DOCDB_PROPERTY_SEED ?? 20261124) },
    );
  });
});

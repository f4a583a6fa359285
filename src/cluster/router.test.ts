/**
 * Proves the router's SELECT against real nodes on sockets (buildApp over temp databases, no
 * fakes): three shards holding a hash collection and a replicated one, and a fourth node
 * holding every document as the reference. Equality and IN on the shard key go to the owners
 * only (SINGLE_SHARD), everything else scatters and merges to the reference's answer: ORDER BY
 * with LIMIT/OFFSET, aggregates and GROUP BY (AVG from partial states), DISTINCT, JOIN on a
 * replicated collection. Unknown collections, unroutable JOINs and a shard that is down are
 * refused with their codes. Documents carry the same `_id` everywhere, as ties sort by it.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { refusedUrl } from '../../test/support/refused.js';
import { connect, type Document } from '../client/index.js';
import { isDbError } from '../errors/index.js';
import { formatId, newId } from '../util/index.js';
import type { ClusterConfig } from './config.js';
import { shardFor } from './hash.js';
import { Router } from './router.js';

interface Node {
  harness: Harness;
  url: string;
}

async function startNode(name: string): Promise<Node> {
  const harness = await startHarness({ nodeName: name });
  const url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, url };
}

const CITIES = ['AMS', 'BER', 'CDG', 'DUB', 'EDI', null];

/** Orders with repeats, nulls, missing fields and mixed types, so merges meet ties. */
function orders(): Document[] {
  const docs: Document[] = [];
  for (let i = 0; i < 60; i++) {
    const doc: Document = {
      _id: formatId(newId()),
      pnr: `P${i % 23}`,
      seq: i,
      origin: CITIES[i % CITIES.length],
    };
    if (i % 7 !== 0) doc.price = i % 5 === 0 ? `${i}` : (i * 37) % 101;
    if (i % 4 === 0) doc.tag = i % 8 === 0 ? 'x' : 1;
    docs.push(doc);
  }
  return docs;
}

const AIRPORTS: Document[] = CITIES.filter((c) => c !== null).map((code, i) => ({
  _id: formatId(newId()),
  code,
  city: `city-${i}`,
}));

/** Multisets compare equal as sorted JSON texts. */
const bag = (docs: readonly Document[]) => docs.map((d) => JSON.stringify(d)).sort();

describe('Router: SELECT over three shards', () => {
  let shards: Node[];
  let reference: Node;
  let router: Router;
  let config: ClusterConfig;

  beforeAll(async () => {
    shards = await Promise.all(['s1', 's2', 's3'].map(startNode));
    reference = await startNode('reference');
    config = {
      version: 1,
      router: { port: 6000 },
      shards: shards.map((s, i) => ({ name: `s${i + 1}`, endpoint: s.url })),
      collections: {
        orders: { strategy: 'hash', path: 'pnr' },
        airports: { strategy: 'replicated' },
        legs: { strategy: 'hash', path: 'pnr' },
        tickets: { strategy: 'hash', path: 'seq' },
      },
    };
    const ref = connect(reference.url);
    const docs = orders();
    await ref.bulk('orders', docs);
    await ref.bulk('airports', AIRPORTS);
    for (const [i, shard] of shards.entries()) {
      const client = connect(shard.url);
      const mine = docs.filter((d) => shardFor(d.pnr, config.shards).name === `s${i + 1}`);
      expect(mine.length).toBeGreaterThan(0);
      await client.bulk('orders', mine);
      await client.bulk('airports', AIRPORTS);
      await client.bulk('legs', [{ pnr: 'P1', leg: 1 }]);
      await client.bulk('tickets', [{ seq: 1 }]);
      await client.close();
    }
    await ref.close();
    router = new Router(config);
  });

  afterAll(async () => {
    await router.close();
    for (const node of [...shards, reference]) await node.harness.close();
  });

  /** The router's rows and the reference node's rows for one statement. */
  async function both(sql: string, params: unknown[] = []) {
    const ref = connect(reference.url);
    try {
      const expected = (await ref.query(sql, params)).documents;
      const routed = await router.query(sql, params);
      return { expected, actual: routed.documents, routed };
    } finally {
      await ref.close();
    }
  }

  it('sends an equality on the shard key to its owner only', async () => {
    const { expected, actual, routed } = await both('SELECT * FROM orders WHERE pnr = ?', ['P5']);
    const owner = shardFor('P5', config.shards).name;
    expect(routed.plan).toMatch(new RegExp(`^SINGLE_SHARD\\(${owner}\\): `));
    expect(bag(actual)).toEqual(bag(expected));
    expect(actual.length).toBeGreaterThan(0);
  });

  it('sends IN on the shard key to the owners only, and scatters the rest', async () => {
    const keys = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6'];
    const owners = new Set(keys.map((k) => shardFor(k, config.shards).name));
    const sql = `SELECT pnr, seq FROM orders WHERE pnr IN (${keys.map((k) => `'${k}'`).join(', ')}) AND seq > 3`;
    const { expected, actual, routed } = await both(sql);
    expect(bag(actual)).toEqual(bag(expected));
    expect(
      routed.plan.startsWith(owners.size === 1 ? 'SINGLE_SHARD' : `SCATTER(${owners.size})`),
    ).toBe(true);
    const all = await both('SELECT * FROM orders WHERE seq >= 10');
    expect(all.routed.plan).toMatch(/^SCATTER\(3\): /);
    expect(bag(all.actual)).toEqual(bag(all.expected));
  });

  it('merges ORDER BY with LIMIT and OFFSET exactly as one node orders them', async () => {
    for (const sql of [
      'SELECT * FROM orders ORDER BY price',
      'SELECT pnr, price FROM orders ORDER BY price DESC, pnr LIMIT 7 OFFSET 5',
      'SELECT seq FROM orders ORDER BY origin, seq DESC LIMIT 10',
      'SELECT * FROM orders ORDER BY tag DESC OFFSET 50',
      'SELECT seq FROM orders WHERE seq > ? ORDER BY seq LIMIT ? OFFSET ?',
    ]) {
      const params = sql.includes('?') ? [4, 6, 3] : [];
      const { expected, actual } = await both(sql, params);
      expect(actual, sql).toEqual(expected);
    }
  });

  it('applies OFFSET and LIMIT once without ORDER BY (count of a multiset)', async () => {
    const { expected, actual } = await both('SELECT * FROM orders LIMIT 10 OFFSET 45');
    expect(actual.length).toBe(expected.length);
  });

  it('combines aggregates and GROUP BY from partial states, then sorts and limits', async () => {
    for (const sql of [
      'SELECT COUNT(*), COUNT(price), SUM(price), AVG(price), MIN(price), MAX(price) FROM orders',
      'SELECT COUNT(*) AS n, AVG(price) FROM orders WHERE seq > 1000',
      'SELECT origin, COUNT(*) AS n, AVG(price) AS mean FROM orders GROUP BY origin ORDER BY n DESC, origin',
      'SELECT tag AS t, MAX(price) FROM orders GROUP BY tag ORDER BY t LIMIT 2 OFFSET 1',
      'SELECT DISTINCT COUNT(*) AS n FROM orders GROUP BY origin ORDER BY n, origin',
    ]) {
      const { expected, actual } = await both(sql);
      expect(actual, sql).toEqual(expected);
    }
    const grouped = await both('SELECT pnr, SUM(seq) FROM orders GROUP BY pnr');
    expect(bag(grouped.actual)).toEqual(bag(grouped.expected));
  });

  it('deduplicates DISTINCT again across shards', async () => {
    const { expected, actual } = await both('SELECT DISTINCT origin FROM orders ORDER BY origin');
    expect(actual).toEqual(expected);
    const unsorted = await both('SELECT DISTINCT tag FROM orders');
    expect(bag(unsorted.actual)).toEqual(bag(unsorted.expected));
    const limited = await both(
      'SELECT DISTINCT origin, tag FROM orders ORDER BY origin DESC, tag LIMIT 4 OFFSET 2',
    );
    expect(limited.actual).toEqual(limited.expected);
  });

  it('reads a replicated collection from one shard, and JOINs it on every shard', async () => {
    const one = await both('SELECT * FROM airports ORDER BY code');
    expect(one.routed.plan).toMatch(/^SINGLE_SHARD\(s1\): /);
    expect(one.actual).toEqual(one.expected);
    const sql =
      'SELECT orders.seq, airports.city FROM orders JOIN airports ON orders.origin = airports.code ORDER BY orders.seq LIMIT 12';
    const joined = await both(sql);
    expect(joined.routed.plan).toMatch(/^SCATTER\(3\): /);
    expect(joined.actual).toEqual(joined.expected);
  });

  it('allows a JOIN on both shard keys and refuses one across shards, saying why', async () => {
    const ok = await router.query(
      'SELECT orders.seq, legs.leg FROM orders JOIN legs ON orders.pnr = legs.pnr',
    );
    expect(ok.plan).toMatch(/^SCATTER\(3\): /);
    await expect(
      router.query('SELECT * FROM orders JOIN tickets ON orders.seq = tickets.seq'),
    ).rejects.toMatchObject({ code: 'ERR_CLUSTER_JOIN_UNROUTABLE', status: 400 });
    await expect(
      router.query('SELECT * FROM airports JOIN orders ON airports.code = orders.origin'),
    ).rejects.toThrow(/replicated/);
  });

  it('streams the same rows as the whole answer, meta first with their count', async () => {
    for (const sql of [
      'SELECT * FROM orders ORDER BY price DESC',
      'SELECT pnr, price FROM orders ORDER BY price, pnr LIMIT 7 OFFSET 5',
      "SELECT * FROM orders WHERE pnr = 'P3'",
      'SELECT * FROM orders LIMIT 10 OFFSET 3',
      'SELECT * FROM orders',
      'SELECT origin, COUNT(*) AS n FROM orders GROUP BY origin ORDER BY n, origin',
      'SELECT DISTINCT origin FROM orders ORDER BY origin',
      'SELECT * FROM airports ORDER BY code',
    ]) {
      const whole = await router.query(sql);
      const streamed: unknown[] = [];
      let meta: { count: number; plan: string } | undefined;
      for await (const value of router.queryStream(sql)) {
        if (meta === undefined) meta = value as { count: number; plan: string };
        else streamed.push(value);
      }
      expect(meta?.plan, sql).toBe(whole.plan);
      expect(meta?.count, sql).toBe(streamed.length);
      if (sql.includes('ORDER BY') || sql.includes('pnr ='))
        expect(streamed, sql).toEqual(whole.documents);
      else expect(streamed.length, sql).toBe(whole.documents.length);
    }
  });

  it('ends the shard streams when the reader stops early', async () => {
    let seen = 0;
    for await (const _ of router.queryStream('SELECT * FROM orders ORDER BY seq')) {
      if (++seen === 3) break;
    }
    const after = await router.query('SELECT COUNT(*) AS n FROM orders');
    expect(after.documents[0]?.n).toBe(60);
  });

  it('refuses a collection cluster.json does not place, naming the command', async () => {
    const error = await router.query('SELECT * FROM nowhere').catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_CLUSTER_COLLECTION_UNKNOWN')).toBe(true);
    expect(String((error as Error).message)).toContain('docdb cluster add-collection');
    // A name Object.prototype defines is no placement either.
    for (const name of ['constructor', 'toString']) {
      const inherited = await router.query(`SELECT * FROM ${name}`).catch((e: unknown) => e);
      expect(isDbError(inherited, 'ERR_CLUSTER_COLLECTION_UNKNOWN'), name).toBe(true);
    }
  });

  it("passes a shard's own refusal through (a SQL error stays a 400)", async () => {
    await expect(router.query('SELECT * FROM orders LIMIT ?', [-1])).rejects.toMatchObject({
      status: 400,
    });
  });
});

describe('Router: a shard that is down', () => {
  it('fails a scatter with 503 naming the shard, never a partial answer', async () => {
    const up = await startNode('up');
    const downUrl = refusedUrl();
    const router = new Router(
      {
        version: 1,
        router: { port: 6000 },
        shards: [
          { name: 'up', endpoint: up.url },
          { name: 'gone', endpoint: downUrl },
        ],
        collections: {
          orders: { strategy: 'hash', path: 'pnr' },
          airports: { strategy: 'replicated' },
        },
      },
      { timeoutMs: 2000 },
    );
    try {
      const error = await router.query('SELECT * FROM orders').catch((e: unknown) => e);
      expect(isDbError(error, 'ERR_SHARD_UNAVAILABLE')).toBe(true);
      expect((error as Error).message).toContain('gone');
      expect((error as { status: number }).status).toBe(503);
      // A replicated read moves on to a shard that answers.
      await connect(up.url).bulk('airports', AIRPORTS);
      const airports = await router.query('SELECT * FROM airports');
      expect(airports.count).toBe(AIRPORTS.length);
      // A replicated write that a shard cannot take is undone where it landed.
      const write = await router.insert('airports', { code: 'ZRH' }).catch((e: unknown) => e);
      expect(isDbError(write, 'ERR_SHARD_UNAVAILABLE')).toBe(true);
      expect((await connect(up.url).getByKey('airports', 'code', 'ZRH')).count).toBe(0);
    } finally {
      await router.close();
      await up.harness.close();
    }
  });
});

describe('Router: writes, documents, indexes and stats', () => {
  let shards: Node[];
  let router: Router;
  let config: ClusterConfig;
  const direct = (name: string) => connect((shards[Number(name.slice(1)) - 1] as Node).url);

  beforeAll(async () => {
    shards = await Promise.all(['s1', 's2', 's3'].map(startNode));
    config = {
      version: 1,
      router: { port: 6000 },
      shards: shards.map((s, i) => ({ name: `s${i + 1}`, endpoint: s.url })),
      collections: {
        orders: { strategy: 'hash', path: 'pnr' },
        airports: { strategy: 'replicated' },
      },
    };
    router = new Router(config);
  });

  afterAll(async () => {
    await router.close();
    for (const node of shards) await node.harness.close();
  });

  it('stores each document on the owner of its shard key, REST and SQL alike', async () => {
    const { id } = await router.insert('orders', { pnr: 'A1', n: 1 });
    const bulk = await router.bulk('orders', [
      { pnr: 'A2' },
      { n: 9 },
      { pnr: 'A3' },
      { pnr: 'A4' },
    ]);
    expect(bulk.ids).toHaveLength(3);
    expect(bulk.errors).toEqual([
      expect.objectContaining({ index: 1, code: 'ERR_SHARD_KEY_MISSING' }),
    ]);
    const inserted = await router.query('INSERT INTO orders VALUES ?, {"pnr": "A6"}', [
      [{ pnr: 'A5' }, { pnr: 'A7' }],
    ]);
    expect(inserted.affected).toBe(3);
    expect(inserted.ids).toHaveLength(3);
    for (const pnr of ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7']) {
      const owner = shardFor(pnr, config.shards).name;
      for (const shard of config.shards) {
        const found = await direct(shard.name).getByKey('orders', 'pnr', pnr);
        expect(found.count, `${pnr} on ${shard.name}`).toBe(shard.name === owner ? 1 : 0);
      }
    }
    expect((await router.getTagged('orders', id))?.doc.pnr).toBe('A1');
    await expect(router.insert('orders', { n: 1 })).rejects.toMatchObject({
      code: 'ERR_SHARD_KEY_MISSING',
      status: 400,
    });
    await expect(router.insert('orders', { pnr: [1] })).rejects.toMatchObject({
      code: 'ERR_SHARD_KEY_MISSING',
    });
  });

  it('finds, replaces and deletes by key and by _id across shards', async () => {
    const byKey = await router.getByKey('orders', 'pnr', 'A2');
    expect(byKey.count).toBe(1);
    expect(byKey.plan).toMatch(/^SINGLE_SHARD\(s\d\): /);
    const scattered = await router.getByKey('orders', 'n', '1');
    expect(scattered.plan).toMatch(/^SCATTER\(3\): /);
    expect(scattered.count).toBe(1);
    await router.replaceByKey('orders', 'pnr', 'A2', { pnr: 'A2', v: 2 });
    expect((await router.getByKey('orders', 'pnr', 'A2')).documents[0]?.v).toBe(2);
    const id = String(byKey.documents[0]?._id);
    await router.replace('orders', id, { pnr: 'A2', v: 3 });
    expect((await router.getTagged('orders', id))?.doc.v).toBe(3);
    const moving = Array.from({ length: 40 }, (_, i) => `M${i}`).find(
      (k) => shardFor(k, config.shards).name !== shardFor('A2', config.shards).name,
    );
    await expect(router.replace('orders', id, { pnr: moving })).rejects.toMatchObject({
      code: 'ERR_SHARD_KEY_MISSING',
    });
    expect(await router.delete('orders', id)).toEqual({ deleted: 1 });
    expect(await router.getTagged('orders', id)).toBeUndefined();
    expect(await router.deleteByKey('orders', 'pnr', 'A3')).toEqual({ deleted: 1 });
    const page = await router.list('orders', { limit: 3 });
    expect(page.count).toBe(3);
    const ids = page.documents.map((d) => String(d._id));
    expect(ids).toEqual([...ids].sort());
  });

  it('sums UPDATE and DELETE over the shards and refuses to SET the shard key', async () => {
    const updated = await router.query('UPDATE orders SET flag = true WHERE pnr != ?', ['none']);
    const total = (await router.query('SELECT COUNT(*) AS n FROM orders')).documents[0]?.n;
    expect(updated.affected).toBe(total);
    expect(updated.plan).toMatch(/^SCATTER\(3\): /);
    const one = await router.query('UPDATE orders SET flag = false WHERE pnr = ?', ['A5']);
    expect(one.affected).toBe(1);
    expect(one.plan).toMatch(/^SINGLE_SHARD/);
    await expect(router.query("UPDATE orders SET pnr = 'X'")).rejects.toMatchObject({
      code: 'ERR_SHARD_KEY_MISSING',
      status: 400,
    });
    const deleted = await router.query('DELETE FROM orders WHERE pnr IN (?, ?)', ['A6', 'A7']);
    expect(deleted.affected).toBe(2);
  });

  it('writes a replicated collection to every shard under one _id', async () => {
    const { id } = await router.insert('airports', { code: 'AMS' });
    const sql = await router.query('INSERT INTO airports VALUES {"code": "BER"}');
    const berId = sql.ids?.[0] as string;
    for (const shard of config.shards) {
      expect((await direct(shard.name).require('airports', id)).code).toBe('AMS');
      expect((await direct(shard.name).require('airports', berId)).code).toBe('BER');
    }
    const read = await router.query('SELECT code FROM airports ORDER BY code');
    expect(read.documents).toEqual(
      [
        { code: 'AMS', _id: id },
        { code: 'BER', _id: berId },
      ].map(({ code, _id }) => ({ _id, code })),
    );
  });

  it('leaves a replicated document alone when a write reusing its _id is refused', async () => {
    const { id } = await router.insert('airports', { code: 'CDG' });
    const again = await router
      .insert('airports', { _id: id, code: 'XXX' })
      .catch((e: unknown) => e);
    expect(isDbError(again)).toBe(true);
    expect((again as { status: number }).status).toBe(409);
    for (const shard of config.shards) {
      expect((await direct(shard.name).require('airports', id)).code).toBe('CDG');
    }
  });

  it('creates a collection on every shard at its first write, so scatters see empty parts', async () => {
    router.config.collections.sparse = { strategy: 'hash', path: 'k' };
    const { id } = await router.insert('sparse', { k: 'only', v: 1 });
    for (const shard of config.shards) {
      expect(await direct(shard.name).collections()).toContain('sparse');
    }
    expect((await router.query('SELECT * FROM sparse')).documents).toEqual([
      { _id: id, k: 'only', v: 1 },
    ]);
    expect((await router.query('SELECT COUNT(*) AS n, AVG(v) AS a FROM sparse')).documents).toEqual(
      [{ n: 1, a: 1 }],
    );
    expect((await router.query("SELECT * FROM sparse WHERE k = 'nothing'")).count).toBe(0);
    expect((await router.getByKey('sparse', 'v', '1')).count).toBe(1);
    expect((await router.getTagged('sparse', id))?.doc.v).toBe(1);
  });

  it('reads a hash collection some shards never received as empty parts there', async () => {
    router.config.collections.direct = { strategy: 'hash', path: 'k' };
    const owner = shardFor('x', config.shards).name;
    await direct(owner).insert('direct', { k: 'x' });
    expect((await router.query('SELECT k FROM direct ORDER BY k')).documents).toEqual([
      { _id: expect.any(String), k: 'x' },
    ]);
    let rows = 0;
    for await (const _ of router.queryStream('SELECT * FROM direct ORDER BY k')) rows++;
    expect(rows).toBe(2);
    expect((await router.list('direct')).count).toBe(1);
    expect((await router.query('SELECT COUNT(*) AS n FROM direct')).documents).toEqual([{ n: 1 }]);
    await expect(
      router.query('SELECT * FROM airports JOIN nowhere ON airports.code = nowhere.c'),
    ).rejects.toMatchObject({
      code: 'ERR_CLUSTER_COLLECTION_UNKNOWN',
    });
  });

  it('creates indexes on every shard, counts stats (a replicated collection once) and unions collections', async () => {
    await router.createIndex({ collection: 'orders', path: 'n' });
    await router.query('CREATE INDEX by_code ON airports (code)');
    for (const shard of config.shards) {
      const names = (await direct(shard.name).indexes('orders')).map((i) => i.name);
      expect(names.length).toBeGreaterThan(0);
      expect((await direct(shard.name).indexes('airports')).map((i) => i.name)).toContain(
        'by_code',
      );
    }
    const stats = await router.stats();
    const count = (await router.query('SELECT COUNT(*) AS n FROM orders')).documents[0]?.n;
    expect(stats.collections.find((c) => c.name === 'orders')?.count).toBe(count);
    // A replicated collection's copies count once, as COUNT(*) through the router does.
    const copies = (await router.query('SELECT COUNT(*) AS n FROM airports')).documents[0]?.n;
    expect(copies).toBeGreaterThan(0);
    expect(stats.collections.find((c) => c.name === 'airports')?.count).toBe(copies);
    expect(stats.shards.map((s) => s.name)).toEqual(['s1', 's2', 's3']);
    expect(await router.collections()).toEqual(['airports', 'direct', 'orders', 'sparse']);
  });
});

/**
 * One conformance suite over every implementation of the REST surface (types/api.ts, ADR
 * 0025), Hono's pattern of one suite over every runtime: the embedded `Database`, a
 * `DocdbClient` talking to a node over a socket, a `Router` over three shards (a hash
 * collection and a replicated one), and the cluster client (`docdb/client/cluster`: the
 * router in the application) over three shards of its own. The same case list runs against
 * each, in the same order on the same documents, and every answer (or error code and
 * message) must equal the embedded database's, modulo what is honestly each one's own: a router's plan prefix
 * (`SCATTER(3): `, `SINGLE_SHARD(s1): `), timings, tags (each node's own) and the per-shard
 * figures of maintenance answers. The change feed is read alike too: from the start, resumed
 * from a handled entry or an opening heartbeat (none twice, none lost), and a bad `since`
 * refused with one code (each log's seqs, a router's cursors and shard names are its own,
 * and no order exists between two shards' entries). A second part sends the same raw HTTP
 * requests to a node's app and to a router's app over the Router and compares status, body
 * and X-DOCDB-* headers.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DocdbClient } from '../../src/client/index.js';
import {
  type ClusterClient,
  type ClusterConfig,
  connectCluster,
  Router,
} from '../../src/cluster/index.js';
import { type Database, open } from '../../src/engine/index.js';
import { isDbError } from '../../src/errors/index.js';
import { buildRouterApp } from '../../src/server/index.js';
import { statementHandle } from '../../src/sql/index.js';
import type { ChangeLine, Document, FeedEntry, NodeApi } from '../../src/types/index.js';
import { formatId, newId, resumePoint } from '../../src/util/index.js';
import {
  type Answer,
  type Call,
  type Harness,
  injectCall,
  startHarness,
} from '../support/app-harness.js';
import { makeTempDir } from '../support/temp-dir.js';

/** A router's plan is the node's behind the shard prefix. */
const SHARD_PREFIX = /^(SCATTER\(\d+\)|SINGLE_SHARD\([^)]*\)): /;

const id = () => formatId(newId());
const IDS = Array.from({ length: 8 }, id);
const AIRPORT_IDS = Array.from({ length: 3 }, id);

const ORDERS: Document[] = [
  { _id: IDS[0], pnr: 'A1', price: 10, origin: 'AMS', status: 'pending' },
  { _id: IDS[1], pnr: 'A2', price: 25, origin: 'BER', status: 'ticketed' },
  { _id: IDS[2], pnr: 'A3', price: 7, origin: 'AMS', status: 'pending' },
  { _id: IDS[3], pnr: 'A4', price: 40, origin: 'CDG', status: 'cancelled' },
  { _id: IDS[4], pnr: 'A5', price: 12, origin: 'AMS', tags: ['x', 'y'] },
  { _id: IDS[5], pnr: 10, price: '10', origin: null },
];
const AIRPORTS: Document[] = [
  { _id: AIRPORT_IDS[0], code: 'AMS', city: 'Amsterdam' },
  { _id: AIRPORT_IDS[1], code: 'BER', city: 'Berlin' },
  { _id: AIRPORT_IDS[2], code: 'CDG', city: 'Paris' },
];

/** The statement the prepared-statement cases prepare. */
const PREPARED_SELECT = 'SELECT pnr, price FROM orders WHERE price > ? ORDER BY pnr';

/** The documents the change-feed cases write, one insert each, in `feed` (a hash collection). */
const FEED_IDS = Array.from({ length: 5 }, id);

/** Inserts `feed` documents by their index in FEED_IDS. */
async function writeFeed(api: NodeApi, ...at: number[]): Promise<void> {
  for (const n of at) await api.insert('feed', { _id: FEED_IDS[n], k: n });
}

/** The lines of a feed until `entries` entries came, then closed; the heartbeats kept. */
async function readFeed(lines: AsyncIterable<ChangeLine>, entries: number): Promise<ChangeLine[]> {
  const seen: ChangeLine[] = [];
  let count = 0;
  for await (const line of lines) {
    seen.push(line);
    if (!('heartbeat' in line) && ++count === entries) break;
  }
  return seen;
}

const entriesOf = (lines: ChangeLine[]): FeedEntry[] =>
  lines.filter((line): line is FeedEntry => !('heartbeat' in line));

/** What an entry says, without what is each log's own (seq, term, time, shard, cursor). */
function said(entry: FeedEntry): unknown {
  if (entry.op !== 'insert') return { op: entry.op, collection: entry.collection };
  const ids = entry.documents.map((d) => d.id);
  return { op: entry.op, collection: entry.collection, ids };
}

const sorted = (values: unknown[]): unknown[] =>
  values
    .map((v) => JSON.stringify(v))
    .sort()
    .map((v) => JSON.parse(v));

const idsOf = (entries: FeedEntry[]): string[] =>
  entries.flatMap((e) => (e.op === 'insert' ? e.documents.map((d) => d.id) : []));

/** A refusal's code and the parameter it names (the wording is a node's or a router's own). */
async function refusal(lines: AsyncGenerator<ChangeLine, void, undefined>): Promise<unknown> {
  try {
    await lines.next();
    await lines.return();
    return 'no refusal';
  } catch (error) {
    if (!isDbError(error)) throw error;
    return { code: error.code, parameter: error.details?.parameter };
  }
}

interface Case {
  name: string;
  run: (api: NodeApi) => unknown;
  /** Rows compared as a multiset: no ORDER BY makes their order part of the answer. */
  unordered?: boolean;
  /** Only these fields of the answer are the surface's (the rest is each node's own figures). */
  fields?: string[];
}

/** Every call's outcome, in a form every implementation must give alike. */
async function outcome(c: Case, api: NodeApi): Promise<unknown> {
  try {
    let answer = await c.run(api);
    if (answer !== null && typeof answer === 'object' && Symbol.asyncIterator in answer) {
      const values: unknown[] = [];
      for await (const value of answer as AsyncIterable<unknown>) values.push(value);
      answer = values;
    }
    return normalized(answer, c);
  } catch (error) {
    if (!isDbError(error)) throw error;
    return { error: error.code, message: error.message };
  }
}

function normalized(answer: unknown, c: Case): unknown {
  if (Array.isArray(answer)) {
    const items = answer.map((a) => normalized(a, { ...c, fields: undefined }));
    return c.unordered ? items.map((i) => JSON.stringify(i)).sort() : items;
  }
  if (answer === null || typeof answer !== 'object') return answer;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer)) {
    if (c.fields && !c.fields.includes(key)) continue;
    if (key === 'executionMs' || key === 'tag' || key === 'headers') continue;
    if (key === 'plan' && typeof value === 'string') out[key] = value.replace(SHARD_PREFIX, '');
    else if (key === 'documents' && Array.isArray(value)) out[key] = normalized(value, c);
    else out[key] = value;
  }
  return out;
}

const CASES: Case[] = [
  { name: 'insert one order', run: (a) => a.insert('orders', ORDERS[0]) },
  { name: 'bulk orders', run: (a) => a.bulk('orders', ORDERS.slice(1)) },
  { name: 'bulk a replicated collection', run: (a) => a.bulk('airports', AIRPORTS) },
  {
    name: 'bulk with a refused item, not atomic',
    run: (a) =>
      a.bulk('orders', [
        { _id: IDS[6], pnr: 'B1' },
        { _id: IDS[0], pnr: 'A1' },
      ]),
  },
  {
    name: 'bulk, atomic, refused whole',
    run: (a) =>
      a.bulk(
        'orders',
        [
          { _id: IDS[7], pnr: 'B2' },
          { _id: IDS[1], pnr: 'A2' },
        ],
        {
          atomic: true,
        },
      ),
  },
  { name: 'collections', run: (a) => a.collections() },
  { name: 'get by key (text)', run: (a) => a.getByKey('orders', 'pnr', 'A2') },
  {
    name: 'get by key (the number its text spells)',
    run: (a) => a.getByKey('orders', 'pnr', '10'),
  },
  { name: 'get by key, no match', run: (a) => a.getByKey('orders', 'pnr', 'nope') },
  { name: 'list a page in _id order', run: (a) => a.list('orders', { limit: 3 }) },
  { name: 'list after an _id', run: (a) => a.list('orders', { after: IDS[2], limit: 10 }) },
  { name: 'list a replicated collection', run: (a) => a.list('airports') },
  { name: 'get by _id', run: (a) => a.getTagged('orders', IDS[3] as string) },
  { name: 'get by _id, replicated', run: (a) => a.getTagged('airports', AIRPORT_IDS[1] as string) },
  { name: 'get by _id, none', run: async (a) => (await a.getTagged('orders', id())) ?? 'none' },
  {
    name: 'replace by _id',
    run: (a) => a.replace('orders', IDS[3] as string, { pnr: 'A4', price: 41, origin: 'CDG' }),
  },
  {
    name: 'replace with another _id in the body',
    run: (a) => a.replace('orders', IDS[3] as string, { _id: IDS[4], pnr: 'A4' }),
  },
  {
    name: 'replace by key',
    run: (a) => a.replaceByKey('orders', 'pnr', 'A2', { pnr: 'A2', price: 26, origin: 'BER' }),
  },
  {
    name: 'replace by key, several match',
    run: (a) => a.replaceByKey('orders', 'origin', 'AMS', { pnr: 'Z' }),
  },
  {
    name: 'replace by key, none match',
    run: (a) => a.replaceByKey('orders', 'pnr', 'nope', { pnr: 'nope' }),
  },
  { name: 'delete by _id, none', run: (a) => a.delete('orders', IDS[7] as string) },
  { name: 'delete by key', run: (a) => a.deleteByKey('orders', 'pnr', 'A3') },
  {
    name: 'create an index',
    run: (a) => a.createIndex({ collection: 'orders', path: 'price', name: 'by_price' }),
  },
  {
    name: 'create a composite index',
    run: (a) => a.createIndex({ collection: 'orders', paths: ['origin', 'price'] }),
  },
  { name: 'list the indexes', run: (a) => a.indexes('orders') },
  { name: 'drop an index', run: (a) => a.dropIndex('orders', 'BY_PRICE') },
  { name: 'drop an unknown index', run: (a) => a.dropIndex('orders', 'by_nothing') },
  {
    name: 'SELECT with ORDER BY',
    run: (a) => a.query('SELECT pnr, price FROM orders WHERE price > ? ORDER BY pnr', [5]),
  },
  {
    name: 'SELECT without ORDER BY',
    run: (a) => a.query('SELECT pnr FROM orders WHERE origin = ?', ['AMS']),
    unordered: true,
  },
  {
    name: 'SELECT with LIMIT and OFFSET',
    run: (a) => a.query('SELECT pnr FROM orders ORDER BY pnr DESC LIMIT 2 OFFSET 1'),
  },
  {
    name: 'GROUP BY with aggregates',
    run: (a) =>
      a.query(
        'SELECT origin, COUNT(*) AS n, SUM(price) AS total FROM orders GROUP BY origin ORDER BY origin',
      ),
  },
  {
    name: 'DISTINCT',
    run: (a) => a.query('SELECT DISTINCT origin FROM orders ORDER BY origin'),
  },
  {
    name: 'JOIN with a replicated side',
    run: (a) =>
      a.query(
        'SELECT orders.pnr, airports.city FROM orders JOIN airports ON orders.origin = airports.code ORDER BY orders.pnr',
      ),
  },
  {
    name: 'a query stream',
    run: (a) => a.queryStream('SELECT pnr, price FROM orders ORDER BY price DESC LIMIT 3'),
  },
  {
    name: 'prepare a statement: its handle (the same everywhere), kind and placeholders',
    run: (a) => a.prepare(PREPARED_SELECT),
  },
  {
    name: 'execute a prepared SELECT by its handle',
    run: async (a) => a.execute((await a.prepare(PREPARED_SELECT)).handle, [5]),
  },
  {
    name: 'execute a prepared SELECT as a stream',
    run: async (a) => a.executeStream((await a.prepare(PREPARED_SELECT)).handle, [20]),
  },
  {
    name: 'execute a prepared statement with the wrong parameter count',
    run: async (a) => a.execute((await a.prepare(PREPARED_SELECT)).handle, []),
  },
  {
    name: 'a prepared SELECT plans again after CREATE INDEX and DROP INDEX',
    run: async (a) => {
      const { handle } = await a.prepare('SELECT code FROM airports WHERE city = ?');
      const planOf = async () =>
        (await a.execute(handle, ['Berlin'])).plan.replace(SHARD_PREFIX, '');
      const before = await planOf();
      await a.createIndex({ collection: 'airports', path: 'city', name: 'by_city' });
      const indexed = await planOf();
      await a.dropIndex('airports', 'by_city');
      const after = await a.execute(handle, ['Berlin']);
      return { before, indexed, after: await planOf(), documents: after.documents };
    },
  },
  {
    name: 'a prepared write',
    run: async (a) => {
      const { handle } = await a.prepare('UPDATE orders SET seen = ? WHERE pnr = ?');
      // A4, not A1: the tag of A1 is compared across a node and a router below.
      return a.execute(handle, [true, 'A4']);
    },
  },
  { name: 'execute an unknown handle', run: (a) => a.execute('AAAAAAAAAAAAAAAAAAAAAA', []) },
  { name: 'prepare a syntax error', run: (a) => a.prepare('SELEC pnr FROM orders') },
  {
    name: 'warnings of a scattered SELECT',
    run: (a) => a.query('SELECT pnr FROM orders WHERE "nosuchfield" = 1'),
  },
  {
    name: 'warnings of a scattered SELECT, streamed',
    run: (a) =>
      a.queryStream('SELECT pnr FROM orders WHERE "nosuchfield" = 1 ORDER BY pnr LIMIT 2'),
  },
  {
    // "status" is a field of some orders (not on every shard); "pending" of none.
    name: 'warnings of a scattered aggregate: only what no shard has',
    run: (a) => a.query('SELECT COUNT(*) AS n FROM orders WHERE "status" = "pending" LIMIT 1'),
  },
  {
    name: 'warnings of a scattered UPDATE',
    run: (a) => a.query('UPDATE orders SET seen = 1 WHERE "nosuchfield" = 1'),
  },
  { name: 'UPDATE', run: (a) => a.query("UPDATE orders SET status = 'seen' WHERE price > 20") },
  { name: 'after the UPDATE', run: (a) => a.getByKey('orders', 'status', 'seen'), unordered: true },
  { name: 'a syntax error', run: (a) => a.query('SELEC pnr FROM orders') },
  { name: 'an unknown function', run: (a) => a.query('SELECT NOPE(pnr) FROM orders') },
  {
    name: 'DELETE by SQL',
    run: (a) => a.query('DELETE FROM orders WHERE pnr = ?', ['A5']),
  },
  { name: 'rebuild the indexes', run: (a) => a.rebuildIndexes('orders'), fields: ['collection'] },
  {
    name: 'rebuild one index',
    run: (a) => a.rebuildIndex('orders', 'idx_orders_origin_price'),
    fields: ['collection', 'rebuilt'],
  },
  { name: 'flush', run: (a) => a.flush(), fields: ['flushed'] },
  { name: 'checkpoint', run: (a) => a.checkpoint(), fields: ['checkpointed'] },
  { name: 'compact', run: (a) => a.compact('orders'), fields: ['collection'] },
  { name: 'seed', run: (a) => a.seed(40, 3) },
  { name: 'seed again', run: (a) => a.seed(10, 3) },
  { name: 'count after seeding', run: (a) => a.query('SELECT COUNT(*) AS n FROM orders') },
  {
    name: 'the change feed from the start: a heartbeat, then each write',
    run: async (a) => {
      await writeFeed(a, 0, 1, 2);
      const lines = await readFeed(a.changesWithHeartbeats({ since: '0', collection: 'feed' }), 3);
      // A router merges its shards' entries as they come: no order exists between two shards.
      const entries = entriesOf(lines).map(said);
      return { opensWithHeartbeat: 'heartbeat' in (lines[0] ?? {}), entries: sorted(entries) };
    },
  },
  {
    name: 'the change feed resumed after a handled entry: none twice, none lost',
    run: async (a) => {
      const first = entriesOf(
        await readFeed(a.changesWithHeartbeats({ since: '0', collection: 'feed' }), 3),
      );
      // The position saved once the second entry was handled.
      const saved = resumePoint(first[1] as FeedEntry);
      await writeFeed(a, 3);
      const resumed = entriesOf(
        await readFeed(a.changesWithHeartbeats({ since: saved, collection: 'feed' }), 2),
      );
      // Which entry came third is a router's merge order: the ids themselves may differ.
      const expected = [...idsOf(first.slice(2)), FEED_IDS[3]].sort();
      return {
        entries: resumed.length,
        asExpected: idsOf(resumed).sort().join() === expected.join(),
      };
    },
  },
  {
    name: 'the change feed from now, resumed from its opening heartbeat',
    run: async (a) => {
      const fromNow = a.changesWithHeartbeats({ collection: 'feed' });
      const saved = resumePoint((await fromNow.next()).value as ChangeLine);
      await fromNow.return();
      await writeFeed(a, 4);
      const lines = await readFeed(
        a.changesWithHeartbeats({ since: saved, collection: 'feed' }),
        1,
      );
      return entriesOf(lines).map(said);
    },
  },
  {
    name: 'the change feed refuses a since that is no resume point',
    run: async (a) => ({
      text: await refusal(a.changesWithHeartbeats({ since: 'abc' })),
      negative: await refusal(a.changesWithHeartbeats({ since: '-1' })),
      empty: await refusal(a.changesWithHeartbeats({ since: '' })),
    }),
  },
  { name: 'health', run: (a) => a.health(), fields: ['status', 'version'] },
  {
    name: 'stats: documents per collection',
    run: async (a) => (await a.stats()).collections.map((c) => ({ name: c.name, count: c.count })),
  },
  { name: 'drop a collection', run: (a) => a.dropCollection('scratch') },
  { name: 'drop it again', run: (a) => a.dropCollection('scratch') },
];

describe('one REST surface: the embedded database, a client, a router and a cluster client answer alike', () => {
  const harnesses: Harness[] = [];
  let temp: { dir: string; cleanup(): void };
  let embedded: Database;
  let client: DocdbClient;
  let router: Router;
  let clusterClient: ClusterClient;
  let routerApp: ReturnType<typeof buildRouterApp>;
  let node: Harness;
  const answers = new Map<string, unknown[]>();

  beforeAll(async () => {
    temp = makeTempDir('docdb-surface-');
    embedded = await open(temp.dir, { name: 'embedded' });
    node = await startHarness({ nodeName: 'node' });
    harnesses.push(node);
    client = connect(await node.app.listen({ port: 0, host: '127.0.0.1' }));
    /** Three shards of their own and the cluster.json over them. */
    const cluster = async (prefix: string): Promise<ClusterConfig> => {
      const shards: Array<{ name: string; endpoint: string }> = [];
      for (const name of ['s1', 's2', 's3']) {
        const shard = await startHarness({ nodeName: `${prefix}${name}` });
        harnesses.push(shard);
        shards.push({ name, endpoint: await shard.app.listen({ port: 0, host: '127.0.0.1' }) });
      }
      return {
        version: 1,
        router: { port: 6000 },
        shards,
        collections: {
          orders: { strategy: 'hash', path: 'pnr' },
          airports: { strategy: 'replicated' },
          scratch: { strategy: 'hash', path: 'k' },
          feed: { strategy: 'hash', path: 'k' },
        },
      };
    };
    router = new Router(await cluster(''));
    routerApp = buildRouterApp(router);
    clusterClient = await connectCluster(await cluster('client-'));
    const apis: NodeApi[] = [embedded, client, router, clusterClient];
    // `scratch` exists everywhere before the cases, so dropping it is a case of its own.
    for (const api of apis) await api.insert('scratch', { k: 1 });
    for (const c of CASES) {
      const results: unknown[] = [];
      for (const api of apis) results.push(await outcome(c, api));
      answers.set(c.name, results);
    }
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await routerApp?.close();
    await clusterClient?.close();
    await embedded?.close();
    for (const h of harnesses) await h.close();
    temp?.cleanup();
  });

  for (const c of CASES) {
    it(c.name, () => {
      const [fromEmbedded, fromClient, fromRouter, fromCluster] = answers.get(c.name) ?? [];
      expect(fromClient, 'the client (HTTP to a node)').toEqual(fromEmbedded);
      expect(fromRouter, 'the router over 3 shards').toEqual(fromEmbedded);
      expect(fromCluster, 'the cluster client over 3 shards').toEqual(fromEmbedded);
    });
  }

  describe('the same requests to a node and to a router over HTTP', () => {
    /** Status, body and the X-DOCDB-* headers, in the form both owe the client. */
    function seen(answer: Answer): unknown {
      const headers: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (name === 'x-docdb-plan') headers[name] = String(value).replace(SHARD_PREFIX, '');
        else if (name === 'x-docdb-count' || name === 'content-type') headers[name] = value;
        else if (name === 'location' || name === 'etag') headers[name] = 'present';
      }
      const body =
        typeof answer.body === 'object'
          ? normalized(answer.body, { name: '', run: () => 0 })
          : answer.text;
      return { status: answer.status, headers, body };
    }

    async function both(call: Call): Promise<[unknown, unknown]> {
      const fromNode = await node.request(call);
      const fromRouter = await injectCall(routerApp, call);
      return [seen(fromNode), seen(fromRouter)];
    }

    const REQUESTS: Array<{ name: string; call: Call }> = [
      { name: 'GET a page', call: { url: '/collections/orders?limit=2' } },
      { name: 'GET by key', call: { url: '/collections/orders/by/pnr/A1' } },
      { name: 'GET by _id', call: { url: `/collections/orders/${IDS[0]}` } },
      { name: 'GET by an _id none has', call: { url: `/collections/orders/${IDS[7]}` } },
      { name: 'GET a bad limit', call: { url: '/collections/orders?limit=0' } },
      { name: 'GET an unknown route', call: { url: '/nowhere' } },
      {
        name: 'POST /query',
        call: {
          method: 'POST',
          url: '/query',
          json: { sql: 'SELECT pnr FROM orders WHERE pnr = ? ORDER BY pnr', params: ['A1'] },
        },
      },
      {
        name: 'POST /query, a syntax error',
        call: { method: 'POST', url: '/query', json: { sql: 'SELECT FROM' } },
      },
      {
        name: 'POST /query, no sql',
        call: { method: 'POST', url: '/query', json: { params: [] } },
      },
      {
        name: 'POST /query/prepare',
        call: { method: 'POST', url: '/query/prepare', json: { sql: PREPARED_SELECT } },
      },
      {
        name: 'POST /query by the handle just prepared',
        call: {
          method: 'POST',
          url: '/query',
          json: { handle: statementHandle(PREPARED_SELECT), params: [5] },
        },
      },
      {
        name: 'POST /query by an unknown handle',
        call: { method: 'POST', url: '/query', json: { handle: 'nosuchhandle', params: [] } },
      },
      {
        name: 'POST /query with both sql and handle',
        call: {
          method: 'POST',
          url: '/query',
          json: { sql: PREPARED_SELECT, handle: statementHandle(PREPARED_SELECT) },
        },
      },
      {
        name: 'POST /query/prepare, a syntax error',
        call: { method: 'POST', url: '/query/prepare', json: { sql: 'SELECT FROM' } },
      },
      {
        name: 'POST /query, not JSON',
        call: { method: 'POST', url: '/query', raw: '{"sql": ' },
      },
      {
        name: 'POST /query as text',
        call: {
          method: 'POST',
          url: '/query',
          raw: 'SELECT 1',
          headers: { 'content-type': 'text/plain' },
        },
      },
      {
        name: 'POST a document',
        call: { method: 'POST', url: '/collections/orders', json: { _id: id(), pnr: 'R1' } },
      },
      {
        name: 'PUT with a stale If-Match',
        call: {
          method: 'PUT',
          url: `/collections/orders/${IDS[0]}`,
          json: { pnr: 'A1', price: 11 },
          headers: { 'if-match': '"stale"' },
        },
      },
      {
        name: 'DELETE a collection without confirming',
        call: { method: 'DELETE', url: '/collections/airports' },
      },
      {
        name: 'POST an index without a path',
        call: { method: 'POST', url: '/index', json: { collection: 'orders' } },
      },
      {
        name: 'DELETE an unknown index',
        call: { method: 'DELETE', url: '/indexes/orders/by_nothing' },
      },
      { name: 'GET /changes with an unknown parameter', call: { url: '/changes?limit=3' } },
      { name: 'HEAD /changes', call: { method: 'HEAD', url: '/changes' } },
      {
        name: 'POST an atomic bulk that fails',
        call: {
          method: 'POST',
          url: '/collections/orders/bulk?atomic=true',
          json: [{ _id: IDS[0], pnr: 'A1' }],
        },
      },
    ];

    for (const { name, call } of REQUESTS) {
      it(name, async () => {
        const [fromNode, fromRouter] = await both(call);
        expect(fromRouter).toEqual(fromNode);
      });
    }
  });
});

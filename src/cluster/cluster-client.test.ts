/**
 * Proves the cluster client (`docdb/client/cluster`) against real nodes on sockets: a point
 * lookup by the shard key asks the owning shard alone (requests counted at every shard from
 * its metrics, over HTTP and the wire alike), a scatter asks each shard once and merges, an
 * unreachable shard fails with exactly the error a `docdb router` answers over HTTP, health
 * reports the shards, a cluster.json given by path is followed as the router follows it,
 * `close()` ends it, and bad input is refused by name.
 * What the client answers for every call of the surface is test/conformance/surface.test.ts.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { refusedUrl } from '../../test/support/refused.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { connect, type Document } from '../client/index.js';
import { isDbError } from '../errors/index.js';
import { buildRouterApp } from '../server/index.js';
import { type ClusterClient, connectCluster } from './cluster-client.js';
import type { ClusterConfig } from './config.js';
import { shardFor } from './hash.js';
import { Router } from './router.js';

interface Shard {
  name: string;
  harness: Harness;
  url: string;
  /** Requests answered per `METHOD route` when last marked (see `requestsSince`). */
  mark: Map<string, number>;
}

async function startShard(name: string): Promise<Shard> {
  const harness = await startHarness({ nodeName: name });
  const url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { name, harness, url, mark: new Map() };
}

/** Requests the shard answered per `METHOD route`, from its metrics (HTTP and the wire alike). */
async function answered(shard: Shard): Promise<Map<string, number>> {
  const text = (await shard.harness.request({ url: '/metrics' })).text;
  const counts = new Map<string, number>();
  for (const m of text.matchAll(
    /docdb_http_requests_total\{method="(\w+)",route="([^"]+)",status="\d+"\} (\d+)/g,
  )) {
    const key = `${m[1]} ${m[2]}`;
    if (key !== 'GET /metrics') counts.set(key, (counts.get(key) ?? 0) + Number(m[3]));
  }
  return counts;
}

/** `METHOD route` of every request the shard answered since its mark, sorted. */
async function requestsSince(shard: Shard): Promise<string[]> {
  const seen: string[] = [];
  for (const [key, n] of await answered(shard)) {
    for (let k = shard.mark.get(key) ?? 0; k < n; k++) seen.push(key);
  }
  return seen.sort();
}

function topology(shards: ReadonlyArray<Pick<Shard, 'name' | 'url'>>): ClusterConfig {
  return {
    version: 1,
    router: { port: 6000 },
    shards: shards.map((s) => ({ name: s.name, endpoint: s.url })),
    collections: { orders: { strategy: 'hash', path: 'pnr' } },
  };
}

/** The error a call fails with, as code and message. */
async function failure(call: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call();
  } catch (error) {
    if (isDbError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the call did not fail');
}

const ORDERS: Document[] = Array.from({ length: 40 }, (_, i) => ({ pnr: `P${i}`, seq: i }));

describe('connectCluster: the router in the application', () => {
  let shards: Shard[];
  let cluster: ClusterClient;
  let temp: ReturnType<typeof makeTempDir>;

  beforeAll(async () => {
    temp = makeTempDir('docdb-cluster-client-');
    shards = await Promise.all(['s1', 's2', 's3'].map(startShard));
    cluster = await connectCluster(topology(shards));
    const loaded = await cluster.bulk('orders', ORDERS);
    expect(loaded).toMatchObject({ errors: [] });
    expect(loaded.ids).toHaveLength(ORDERS.length);
  });

  afterAll(async () => {
    await cluster?.close();
    for (const shard of shards ?? []) await shard.harness.close();
    temp?.cleanup();
  });

  beforeEach(async () => {
    for (const shard of shards) shard.mark = await answered(shard);
  });

  it('sends a point lookup by the shard key to the owning shard alone', async () => {
    const owner = shardFor('P17', shards);
    const answer = await cluster.query('SELECT pnr, seq FROM orders WHERE pnr = ?', ['P17']);
    expect(answer.documents).toMatchObject([{ pnr: 'P17', seq: 17 }]);
    expect(answer.plan).toMatch(new RegExp(`^SINGLE_SHARD\\(${owner.name}\\): `));
    const byKey = await cluster.getByKey('orders', 'pnr', 'P17');
    expect(byKey.documents.map((d) => d.seq)).toEqual([17]);
    for (const shard of shards) {
      expect(await requestsSince(shard), shard.name).toEqual(
        shard === owner ? ['GET /collections/:name/by/:field/:value', 'POST /query'] : [],
      );
    }
  });

  it('asks every shard once for a scatter and merges their rows in order', async () => {
    const answer = await cluster.query(
      'SELECT pnr, seq FROM orders WHERE seq >= ? ORDER BY seq DESC LIMIT 5 OFFSET 2',
      [10],
    );
    expect(answer.plan).toMatch(/^SCATTER\(3\): /);
    expect(answer.documents.map((d) => d.seq)).toEqual([37, 36, 35, 34, 33]);
    const counted = await cluster.query('SELECT COUNT(*) AS n, SUM(seq) AS total FROM orders');
    expect(counted.documents).toEqual([{ n: 40, total: (39 * 40) / 2 }]);
    const streamed: unknown[] = [];
    for await (const value of cluster.queryStream('SELECT seq FROM orders ORDER BY seq LIMIT 3'))
      streamed.push(value);
    expect(streamed.slice(1).map((d) => (d as Document).seq)).toEqual([0, 1, 2]);
    for (const shard of shards) {
      expect(await requestsSince(shard), shard.name).toEqual([
        'POST /query',
        'POST /query',
        'POST /query',
      ]);
    }
  });

  it('reports health as a router does, naming itself', async () => {
    const health = await cluster.health();
    expect(health).toMatchObject({
      status: 'ok',
      node: 'cluster-client',
      role: 'router',
      shards: 3,
      shardsDown: [],
    });
  });

  it('fails on an unreachable shard with the error a router answers over HTTP', async () => {
    const down = { name: 's4', url: refusedUrl() };
    const config = topology([...shards, down]);
    const broken = await connectCluster(config, { name: 'app' });
    const routerApp = buildRouterApp(new Router(config));
    const viaRouter = connect(await routerApp.listen({ port: 0, host: '127.0.0.1' }));
    try {
      const owned = ORDERS.map((d) => d.pnr).find((p) => shardFor(p, config.shards).name === 's4');
      const sql = 'SELECT seq FROM orders WHERE pnr = ?';
      const direct = await failure(() => broken.query(sql, [owned]));
      expect(direct.code).toBe('ERR_SHARD_UNAVAILABLE');
      expect(direct.message).toContain(`shard s4 (${down.url}) did not answer`);
      expect(await failure(() => viaRouter.query(sql, [owned]))).toEqual(direct);
      const scatter = 'SELECT COUNT(*) AS n FROM orders';
      expect(await failure(() => broken.query(scatter))).toEqual(
        await failure(() => viaRouter.query(scatter)),
      );
      const health = await broken.health(500);
      expect(health).toMatchObject({ status: 'degraded', node: 'app' });
      expect(health.shardsDown?.map((d) => d.shard)).toEqual(['s4']);
    } finally {
      await viaRouter.close();
      await routerApp.close();
      await broken.close();
    }
  });

  it('follows a cluster.json given by path, as the router does', async () => {
    const file = path.join(temp.dir, 'cluster.json');
    fs.writeFileSync(file, JSON.stringify(topology(shards.slice(0, 2))));
    let reloaded: (shards: number) => void = () => {};
    const next = new Promise<number>((resolve) => {
      reloaded = resolve;
    });
    const refusals: string[] = [];
    const client = await connectCluster(file, {
      checkMs: 20,
      reloaded: (config) => reloaded(config.shards.length),
      refused: (error) => refusals.push((error as Error).message),
    });
    try {
      expect(client.file).toBe(file);
      expect(client.config.shards.map((s) => s.name)).toEqual(['s1', 's2']);
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(topology(shards)));
      fs.renameSync(`${file}.tmp`, file);
      expect(await next).toBe(3);
      expect(client.config.shards.map((s) => s.name)).toEqual(['s1', 's2', 's3']);
      const answer = await client.query('SELECT COUNT(*) AS n FROM orders');
      expect(answer.documents).toEqual([{ n: 40 }]);
      expect(refusals).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('refuses every call once closed, and closes twice quietly', async () => {
    const client = await connectCluster(topology(shards));
    expect((await client.collections()).includes('orders')).toBe(true);
    await client.close();
    await client.close();
    const refused = await failure(() => client.query('SELECT 1'));
    expect(refused).toEqual({
      code: 'ERR_CLIENT_UNREACHABLE',
      message: 'the cluster client of a cluster config: this client is closed; connect again',
    });
    const stream = client.queryStream('SELECT 1');
    expect((await failure(() => stream.next())).code).toBe('ERR_CLIENT_UNREACHABLE');
  });

  it('refuses a bad cluster.json or option by name, before asking any shard', async () => {
    const config = topology(shards);
    const badShard = { ...config, shards: [{ name: 's1', endpoint: 'ftp://x' }] };
    expect(await failure(() => connectCluster(badShard))).toMatchObject({
      code: 'ERR_CLUSTER_CONFIG_INVALID',
      message: expect.stringContaining('shards[0].endpoint'),
    });
    const missing = path.join(temp.dir, 'nowhere.json');
    expect(await failure(() => connectCluster(missing))).toMatchObject({
      code: 'ERR_CLUSTER_CONFIG_INVALID',
      message: expect.stringContaining('nowhere.json'),
    });
    expect(await failure(() => connectCluster(config, { timeoutMs: 0 }))).toEqual({
      code: 'ERR_BAD_ARGUMENT',
      message: 'client option timeoutMs must be a positive integer',
    });
    expect(await failure(() => connectCluster(config, { followerReadMaxLagMs: -1 }))).toEqual({
      code: 'ERR_BAD_ARGUMENT',
      message: 'client option followerReadMaxLagMs must be an integer >= 0',
    });
    for (const shard of shards) expect(await requestsSince(shard), shard.name).toEqual([]);
  });
});

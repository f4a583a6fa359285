/**
 * `docdb rebalance` with three real nodes: the plan of 2 → 3 shards counts per collection and
 * shard what moves and moves nothing; execution leaves every document on its new owner with
 * its `_id` and indexes, replicated collections copied to the new shard, and nothing lost or
 * doubled; a re-run moves nothing; a run killed in the middle is finished by the next one;
 * writes that land on the old owners while it runs are carried over; and 3 → 2 moves the
 * third shard's documents back.
 */

import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type DocdbClient } from '../../src/client/index.js';
import { type ClusterConfig, parseClusterConfig, shardFor } from '../../src/cluster/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { BIN, cleanEnv, freePort, startServe, stopAll } from './support.js';

const run = promisify(execFile);
const temp = makeTempDir('docdb-rebalance-');
const clients = new Map<string, DocdbClient>();
let two: ClusterConfig;
let three: ClusterConfig;
let twoFile: string;
let threeFile: string;

async function docdb(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(BIN, args, { env: cleanEnv(), maxBuffer: 1 << 24 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function config(shards: string[], ports: Record<string, number>): ClusterConfig {
  return parseClusterConfig({
    version: 1,
    router: { port: 6000 },
    shards: shards.map((name) => ({ name, endpoint: `http://127.0.0.1:${ports[name]}` })),
    collections: {
      orders: { strategy: 'hash', path: 'pnr' },
      airports: { strategy: 'replicated' },
    },
  });
}

function client(name: string): DocdbClient {
  return clients.get(name) as DocdbClient;
}

/** Inserts orders where `placement` puts them. */
async function insertOrders(placement: ClusterConfig, from: number, to: number): Promise<void> {
  const byShard = new Map<string, Array<Record<string, unknown>>>();
  for (let i = from; i < to; i++) {
    const doc = { pnr: `P${i}`, i, fare: i % 17 };
    const owner = shardFor(doc.pnr, placement.shards).name;
    byShard.set(owner, [...(byShard.get(owner) ?? []), doc]);
  }
  for (const [shard, docs] of byShard) {
    const result = await client(shard).bulk('orders', docs);
    expect(result.errors).toEqual([]);
  }
}

/** Every order id by shard, checking each is on its owner under `placement`. */
async function ordersBy(placement: ClusterConfig, names: string[]) {
  const ids: string[] = [];
  const counts: Record<string, number> = {};
  for (const name of names) {
    let after: string | undefined;
    counts[name] = 0;
    for (;;) {
      const page = await client(name)
        .list('orders', { limit: 1000, ...(after && { after }) })
        .catch(() => ({ documents: [] as Array<Record<string, unknown>> }));
      for (const doc of page.documents) {
        expect(shardFor(doc.pnr, placement.shards).name, String(doc.pnr)).toBe(name);
        ids.push(doc._id as string);
        counts[name] = (counts[name] ?? 0) + 1;
      }
      if (page.documents.length < 1000) break;
      after = page.documents.at(-1)?._id as string;
    }
  }
  return { ids, counts, unique: new Set(ids).size };
}

beforeAll(async () => {
  const ports: Record<string, number> = {};
  for (const name of ['s1', 's2', 's3']) {
    ports[name] = await freePort();
    await startServe(['--port', String(ports[name]), '--data-dir', name, '--node-name', name], {
      cwd: temp.dir,
      port: ports[name] as number,
    });
    clients.set(name, connect(`http://127.0.0.1:${ports[name]}`));
  }
  two = config(['s1', 's2'], ports);
  three = config(['s1', 's2', 's3'], ports);
  twoFile = path.join(temp.dir, 'two.json');
  threeFile = path.join(temp.dir, 'three.json');
  fs.writeFileSync(twoFile, JSON.stringify(two));
  fs.writeFileSync(threeFile, JSON.stringify(three));
  await insertOrders(two, 0, 3000);
  for (const name of ['s1', 's2']) {
    await client(name).createIndex({
      collection: 'orders',
      path: 'pnr',
      name: 'by_pnr',
      unique: true,
    });
  }
  const airports = Array.from({ length: 20 }, (_, i) => ({
    _id: `0193a4f2-7c1e-7d3a-9b2e-${String(i).padStart(12, '0')}`,
    code: `A${i}`,
  }));
  for (const name of ['s1', 's2']) await client(name).bulk('airports', airports);
}, 60_000);

afterAll(async () => {
  for (const c of clients.values()) await c.close();
  await stopAll();
  temp.cleanup();
});

describe('docdb rebalance', () => {
  it('plans 2 → 3 shards per collection and shard, and moves nothing', async () => {
    const before = await ordersBy(two, ['s1', 's2']);
    const result = await docdb(['rebalance', twoFile, threeFile, '--plan-only', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const plan = JSON.parse(result.stdout);
    const orders = plan.collections.find((c: { name: string }) => c.name === 'orders');
    const expected = (await ordersBy(two, ['s1', 's2'])).ids.length;
    expect(expected).toBe(3000);
    // Exactly the orders the three-shard ring gives s3 move, from where they are, to s3.
    let toS3 = 0;
    for (let i = 0; i < 3000; i++) if (shardFor(`P${i}`, three.shards).name === 's3') toS3++;
    expect(orders.total).toBe(toS3);
    expect(orders.moves.every((m: { to: string }) => m.to === 's3')).toBe(true);
    const airports = plan.collections.find((c: { name: string }) => c.name === 'airports');
    expect(airports.moves).toEqual([{ from: 's1', to: 's3', documents: 20 }]);
    expect(plan.total).toBe(toS3 + 20);
    const text = await docdb(['rebalance', twoFile, threeFile, '--plan-only']);
    expect(text.stdout).toMatch(/orders\s+hash\s+s1\s+s3\s+\d+/);
    expect(text.stdout).toContain(`total ${toS3 + 20} documents to move`);
    expect((await ordersBy(two, ['s1', 's2'])).counts).toEqual(before.counts);
  });

  it('finishes after a kill in the middle, carries over writes made while it runs, and re-runs as a no-op', async () => {
    const child = spawn(BIN, ['rebalance', twoFile, threeFile], {
      env: cleanEnv(),
      stdio: 'ignore',
    });
    // Writes land on the old owners while the move runs.
    const writes = insertOrders(two, 3000, 3100);
    // Killed once the first documents reached s3: in the middle of the move.
    const deadline = Date.now() + 20_000;
    while (
      (
        await client('s3')
          .list('orders', { limit: 1 })
          .catch(() => ({ count: 0 }))
      ).count === 0
    ) {
      expect(Date.now(), 'the move never reached s3').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    await writes;
    const remaining = JSON.parse(
      (await docdb(['rebalance', twoFile, threeFile, '--plan-only', '--json'])).stdout,
    );
    expect(remaining.total, 'the kill came after the whole move').toBeGreaterThan(0);
    const first = await docdb(['rebalance', twoFile, threeFile, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const after = await ordersBy(three, ['s1', 's2', 's3']);
    expect(after.ids.length).toBe(3100);
    expect(after.unique).toBe(3100);
    expect(after.counts.s3).toBeGreaterThan(0);
    const indexes = await client('s3').indexes('orders');
    expect(indexes.map((i) => i.name)).toContain('by_pnr');
    const airports = await client('s3').list('airports', { limit: 100 });
    expect(airports.documents.map((d) => d.code).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `A${i}`).sort(),
    );
    const again = JSON.parse((await docdb(['rebalance', twoFile, threeFile, '--json'])).stdout);
    expect(again).toMatchObject({ moved: 0, plan: { total: 0 } });
  });

  it('moves the third shard back on 3 → 2', async () => {
    const result = await docdb(['rebalance', threeFile, twoFile, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const after = await ordersBy(two, ['s1', 's2']);
    expect(after.ids.length).toBe(3100);
    expect(after.unique).toBe(3100);
    expect((await client('s3').list('orders')).count).toBe(0);
  });

  it('refuses configs that change a placement or move an endpoint', async () => {
    const changed = path.join(temp.dir, 'changed.json');
    fs.writeFileSync(
      changed,
      JSON.stringify({ ...three, collections: { orders: { strategy: 'replicated' } } }),
    );
    const result = await docdb(['rebalance', twoFile, changed, '--plan-only']);
    expect(result.code).toBe(2); // ERR_BAD_ARGUMENT: usage
    expect(result.stderr).toContain('collection orders changes placement');
  });
});

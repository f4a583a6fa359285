/**
 * Proves what executeRebalance reports against real nodes on sockets (buildApp over temp
 * databases): a run that needs a second pass (a write reached an old owner during the first)
 * counts each document it moved once and none as "already copied by an earlier run", though
 * the second pass copies the replicated collection again; copies an earlier run left on the
 * new shard are counted as found, and only those.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { connect, type DocdbClient, type Document } from '../client/index.js';
import { formatId, newId } from '../util/index.js';
import type { ClusterConfig } from './config.js';
import { shardFor } from './hash.js';
import { executeRebalance } from './rebalance.js';

interface Node {
  harness: Harness;
  client: DocdbClient;
  url: string;
}

let nodes: Node[];
let two: ClusterConfig;
let three: ClusterConfig;

async function startNode(name: string): Promise<Node> {
  const harness = await startHarness({ nodeName: name });
  const url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, client: connect(url), url };
}

function config(count: number): ClusterConfig {
  return {
    version: 1,
    router: { port: 6000 },
    shards: nodes.slice(0, count).map((node, i) => ({ name: `s${i + 1}`, endpoint: node.url })),
    collections: {
      orders: { strategy: 'hash', path: 'pnr' },
      airports: { strategy: 'replicated' },
    },
  };
}

function client(name: string): DocdbClient {
  return (nodes[Number(name.slice(1)) - 1] as Node).client;
}

/** An order whose owner is `owner` under `placement` and moves to s3 under three shards. */
function orderFor(placement: ClusterConfig, owner: string, from: number): Document {
  for (let i = from; ; i++) {
    const pnr = `P${i}`;
    if (shardFor(pnr, placement.shards).name === owner && shardFor(pnr, three.shards).name === 's3')
      return { pnr, i };
  }
}

const AIRPORTS: Document[] = ['AMS', 'BER', 'CDG', 'DUB'].map((code) => ({
  _id: formatId(newId()),
  code,
}));

beforeEach(async () => {
  nodes = await Promise.all(['s1', 's2', 's3'].map(startNode));
  two = config(2);
  three = config(3);
  const orders = Array.from({ length: 40 }, (_, i) => ({ pnr: `P${i}`, i }));
  for (const order of orders)
    await client(shardFor(order.pnr, two.shards).name).insert('orders', order);
  for (const name of ['s1', 's2']) await client(name).bulk('airports', AIRPORTS);
});

afterEach(async () => {
  for (const node of nodes) {
    await node.client.close();
    await node.harness.close();
  }
});

describe('executeRebalance counts', () => {
  it('a second pass moves the late write and finds nothing "already copied"', async () => {
    let wrote = false;
    const late = orderFor(two, 's1', 1000);
    const result = await executeRebalance(two, three, () => {
      // A write through a router that still has the old config, while the first pass runs.
      if (!wrote) {
        wrote = true;
        void client('s1').insert('orders', late);
      }
    });
    expect(result.passes).toBe(2);
    expect(result.resumed).toBe(0);
    expect(result.moved).toBe(result.plan.total + 1);
    expect((await client('s3').list('airports')).count).toBe(AIRPORTS.length);
    const onS3 = (await client('s3').list('orders', { limit: 1000 })).documents;
    expect(onS3.filter((doc) => doc.pnr === late.pnr)).toHaveLength(1);
  });

  it('counts as found only the copies an earlier run left', async () => {
    await client('s3').bulk('airports', AIRPORTS.slice(0, 2));
    const result = await executeRebalance(two, three);
    expect(result.resumed).toBe(2);
    expect(result.moved).toBe(result.plan.total);
  });
});

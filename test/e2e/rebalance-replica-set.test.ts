/**
 * Rebalance on a replica-set shard (issue 24): a rebalance from one shard to two carries on
 * across a planned handover of the source shard's leader in the middle of its passes, and
 * loses and doubles nothing: every document ends on its owner once. Real `docdb serve` nodes;
 * the rebalance in-process, so the handover starts from its first progress report.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { type ClusterConfig, executeRebalance, shardFor } from '../../src/cluster/index.js';
import { caughtUp, type DocdbNode, expectStatus, Nodes, post } from './replication-support.js';
import { freePort, stopAll } from './support.js';

const DOCUMENTS = 2_000;

describe('rebalance across a handover of the source shard', () => {
  let dir: string;
  let a: DocdbNode;
  let b: DocdbNode;
  let d: DocdbNode;
  const ports = { a: 0, b: 0 };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'docdb-rebalance-rs-'));
    const nodes = new Nodes(dir);
    ports.a = await freePort();
    ports.b = await freePort();
    [a, b, d] = await Promise.all([
      nodes.start('a', {
        args: ['--replication-role', 'leader', '--replication-port', `${ports.a}`],
      }),
      nodes.start('b'),
      nodes.start('d'),
    ]);
    expectStatus(
      await post(b, '/replication/start-follower', { host: '127.0.0.1', port: ports.a }),
      200,
    );
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('moves every document to its owner once, though the leader changed in the middle', async () => {
    const docs = Array.from({ length: DOCUMENTS }, (_, i) => ({ pnr: `P${i}`, i }));
    const leaderClient = connect(a.url);
    for (let i = 0; i < docs.length; i += 500) {
      await leaderClient.bulk('orders', docs.slice(i, i + 500));
    }
    await leaderClient.close();
    await caughtUp(a, b);
    const collections = { orders: { strategy: 'hash' as const, path: 'pnr' } };
    const s1 = { name: 's1', members: [a.url, b.url] };
    const from: ClusterConfig = { version: 1, router: { port: 6000 }, shards: [s1], collections };
    const to: ClusterConfig = {
      ...from,
      shards: [s1, { name: 's2', endpoint: d.url }],
    };
    let handover: Promise<void> | undefined;
    let promotedAt = Number.POSITIVE_INFINITY;
    const handOver = async () => {
      expectStatus(await post(a, '/replication/read-only'), 200);
      await caughtUp(a, b);
      expectStatus(await post(b, '/replication/promote', { port: ports.b }), 200);
      promotedAt = performance.now();
      expectStatus(
        await post(a, '/replication/start-follower', { host: '127.0.0.1', port: ports.b }),
        200,
      );
    };
    const result = await executeRebalance(from, to, (done) => {
      if (done > 0) handover ??= handOver();
    });
    const endedAt = performance.now();
    await handover;
    // The rebalance was still running when the leader changed: its later batches went to b.
    expect(promotedAt).toBeLessThan(endedAt);
    expect(result.moved).toBeGreaterThan(0);

    const owners = new Map<string, string>();
    for (const doc of docs) owners.set(doc.pnr, shardFor(doc.pnr, to.shards).name);
    const read = async (url: string) => {
      const client = connect(url);
      try {
        return (await client.list('orders', { limit: 10_000 })).documents;
      } finally {
        await client.close();
      }
    };
    await caughtUp(b, a);
    const onS1 = await read(b.url);
    const onS2 = await read(d.url);
    expect(onS1.length + onS2.length).toBe(DOCUMENTS);
    for (const doc of onS1) expect(owners.get(doc.pnr as string)).toBe('s1');
    for (const doc of onS2) expect(owners.get(doc.pnr as string)).toBe('s2');
    expect(new Set([...onS1, ...onS2].map((doc) => doc.pnr)).size).toBe(DOCUMENTS);
  }, 120_000);
});

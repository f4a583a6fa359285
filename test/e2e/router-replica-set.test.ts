/**
 * A replica-set shard behind the router (issue 24): cluster.json lists the shard's members,
 * not its leader, and the router finds the leader, follows a planned handover and a
 * promotion after the leader is killed, without a new config or a restart: a client sees
 * latency, not errors. With no leader at all, the router's error names the shard and what
 * each member said. Real `docdb serve` nodes; the router in-process.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterConfig,
  checkClusterHealth,
  Router,
  STATS_MEMBERS_TIMEOUT_MS,
  shardFor,
} from '../../src/cluster/index.js';
import { isDbError } from '../../src/errors/index.js';
import {
  call,
  caughtUp,
  type DocdbNode,
  expectStatus,
  kill,
  Nodes,
  post,
  status,
  stop,
  waitForStatus,
} from './replication-support.js';
import { runDocdbAsync } from '../support/run-docdb.js';
import { freePort, stopAll } from './support.js';

describe('a replica-set shard behind the router', () => {
  let dir: string;
  let nodes: Nodes;
  let a: DocdbNode;
  let b: DocdbNode;
  let c: DocdbNode;
  let single: DocdbNode;
  let router: Router;
  const replicationPort = { a: 0, b: 0, c: 0 };

  const follow = async (node: DocdbNode, port: number) =>
    expectStatus(await post(node, '/replication/start-follower', { host: '127.0.0.1', port }), 200);

  /** A follower of a leader that is gone starts again as a follower of `port`. */
  const refollow = async (node: DocdbNode, port: number) => {
    await stop(node);
    const args = ['--replication-role', 'follower', '--leader-host', '127.0.0.1'];
    return nodes.restart(node, { args: [...args, '--leader-port', `${port}`] });
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'docdb-rs-'));
    nodes = new Nodes(dir);
    replicationPort.a = await freePort();
    replicationPort.b = await freePort();
    replicationPort.c = await freePort();
    [a, b, c, single] = await Promise.all([
      nodes.start('a', {
        args: ['--replication-role', 'leader', '--replication-port', `${replicationPort.a}`],
      }),
      nodes.start('b'),
      nodes.start('c'),
      nodes.start('d'),
    ]);
    await follow(b, replicationPort.a);
    await follow(c, replicationPort.a);
    const config: ClusterConfig = {
      version: 1,
      router: { port: 6000 },
      // The leader is not listed first: the router asks.
      shards: [
        { name: 's1', members: [b.url, a.url, c.url] },
        { name: 's2', endpoint: single.url },
      ],
      collections: { orders: { strategy: 'hash', path: 'pnr' } },
    };
    router = new Router(config, { leaderWaitMs: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await router?.close();
    await stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Inserts `n` orders whose keys the replica set `s1` owns, one at a time. */
  const writeMany = async (tag: string, n: number) => {
    const ids: string[] = [];
    for (let i = 0; ids.length < n; i++) {
      const pnr = `${tag}-${i}`;
      if (shardFor(pnr, router.config.shards).name !== 's1') continue;
      ids.push((await router.insert('orders', { pnr, tag })).id);
    }
    return ids;
  };

  const count = async () =>
    (await router.query('SELECT COUNT(*) AS n FROM orders')).documents[0]?.n as number;

  it('finds the leader among the members and writes there', async () => {
    await writeMany('first', 20);
    expect(await count()).toBe(20);
    const onLeader = expectStatus<{ documents: unknown[] }>(
      await post(a, '/query', { sql: "SELECT * FROM orders WHERE tag = 'first'" }),
      200,
    ).documents.length;
    expect(onLeader).toBeGreaterThan(0);
    await caughtUp(a, b);
    await caughtUp(a, c);
    const health = await checkClusterHealth(router.config);
    expect(health).toMatchObject({ up: 2, degraded: 0, down: 0 });
    const [s1, s2] = health.shards;
    expect(s1).toMatchObject({ shard: 's1', status: 'up', endpoint: a.url, role: 'leader' });
    expect(s1?.members?.map((m) => [m.endpoint, m.status, m.role, m.lag])).toEqual([
      [b.url, 'up', 'follower', 0],
      [a.url, 'up', 'leader', 0],
      [c.url, 'up', 'follower', 0],
    ]);
    expect(new Set(s1?.members?.map((m) => m.term)).size).toBe(1);
    expect(s2).toMatchObject({ shard: 's2', status: 'up', members: null });
  });

  it("GET /stats lists each shard's nodes: a replica set's members with their roles and its leader", async () => {
    const stats = await router.stats();
    const [s1, s2] = stats.shards;
    expect(s1).toMatchObject({ name: 's1', endpoint: null, leader: a.url });
    expect(s1?.members?.map((m) => [m.endpoint, m.status, m.role, m.readOnly, m.lag])).toEqual([
      [b.url, 'up', 'follower', true, 0],
      [a.url, 'up', 'leader', false, 0],
      [c.url, 'up', 'follower', true, 0],
    ]);
    const leaderSeq = (await status(a)).lastSeq;
    expect(s1?.members?.map((m) => m.seq)).toEqual([leaderSeq, leaderSeq, leaderSeq]);
    expect(s1?.members?.every((m) => m.term !== null && m.term > 0 && m.error === null)).toBe(true);
    expect(s1?.stats.changeLog.lastSeq).toBe(leaderSeq);
    expect(s2).toMatchObject({
      name: 's2',
      endpoint: single.url,
      members: null,
      leader: single.url,
    });
  });

  it('reads from fresh followers when the router allows it, and from the leader by default', async () => {
    await caughtUp(a, b);
    await caughtUp(a, c);
    const queries = async (node: DocdbNode) => {
      const text = (await call(node, '/metrics')).text;
      const lines = text
        .split('\n')
        .filter((l) => /^docdb_http_requests_total\{.*route="\/query"/.test(l));
      return lines.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
    };
    const sql = "SELECT COUNT(*) AS n FROM orders WHERE tag = 'first'";
    const before = await Promise.all([a, b, c].map(queries));
    for (let i = 0; i < 20; i++) await router.query(sql);
    const leaderOnly = await Promise.all([a, b, c].map(queries));
    expect(leaderOnly[0]).toBeGreaterThanOrEqual((before[0] as number) + 20);
    expect(leaderOnly[1]).toBe(before[1]);
    expect(leaderOnly[2]).toBe(before[2]);
    const reading = new Router(router.config, { followerReadMaxLagMs: 60_000 });
    try {
      for (let i = 0; i < 40; i++) {
        const n = (await reading.query(sql)).documents[0]?.n;
        expect(n).toBe((await router.query(sql)).documents[0]?.n);
      }
    } finally {
      await reading.close();
    }
    const after = await Promise.all([a, b, c].map(queries));
    const [onA, onB, onC] = after.map((n, i) => n - (leaderOnly[i] as number));
    // The comparison queries went to the leader; the 40 reads mostly to the followers.
    expect((onB as number) + (onC as number)).toBeGreaterThan(0);
    expect(onA).toBeLessThan(80);
  });

  it('follows a planned handover: a write sent while the old leader is read-only waits for the new one', async () => {
    await caughtUp(a, b);
    expectStatus(await post(a, '/replication/read-only'), 200);
    await caughtUp(a, b);
    const during = writeMany('handover', 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expectStatus(await post(b, '/replication/promote', { port: replicationPort.b }), 200);
    await follow(a, replicationPort.b);
    expect(await during).toHaveLength(3);
    c = await refollow(c, replicationPort.b);
    await writeMany('after-handover', 5);
    expect(await count()).toBe(28);
  }, 60_000);

  it('follows a promotion after its leader is killed', async () => {
    await caughtUp(b, c);
    await caughtUp(b, a);
    await kill(b);
    const during = writeMany('failover', 3);
    await waitForStatus(c, 'it to see its leader gone', (s) => s.leader?.state !== 'streaming');
    expectStatus(await post(c, '/replication/promote', { port: replicationPort.c }), 200);
    expect(await during).toHaveLength(3);
    const degraded = await checkClusterHealth(router.config);
    expect(degraded).toMatchObject({ up: 2, degraded: 1, down: 0 });
    expect(degraded.shards[0]).toMatchObject({ status: 'degraded', endpoint: c.url });
    expect(degraded.shards[0]?.error).toContain(`member ${b.url} is down`);
    // `docdb health` shows each member and exits 1 while one is down.
    const file = path.join(dir, 'cluster.json');
    fs.writeFileSync(file, JSON.stringify(router.config));
    const cli = await runDocdbAsync(['health', file]);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toContain('replica-set members');
    expect(cli.stdout).toMatch(new RegExp(`s1 +${c.url} +up +leader`));
    expect(cli.stdout).toContain(`s1 is degraded: member ${b.url} is down`);
    // GET /stats still answers, quickly, showing the member down and the new leader.
    const started = performance.now();
    const stats = await router.stats();
    expect(performance.now() - started).toBeLessThan(STATS_MEMBERS_TIMEOUT_MS + 1_000);
    expect(stats.shards[0]).toMatchObject({ name: 's1', leader: c.url });
    expect(stats.shards[0]?.members?.map((m) => [m.endpoint, m.status, m.role])).toEqual([
      [b.url, 'down', null],
      [a.url, 'up', 'follower'],
      [c.url, 'up', 'leader'],
    ]);
    expect(stats.shards[0]?.members?.[0]?.error).toBeTruthy();
    a = await refollow(a, replicationPort.c);
    expect(await count()).toBe(31);
  }, 60_000);

  it('without a leader, the error names the shard and what each member said', async () => {
    expectStatus(await post(c, '/replication/read-only'), 200);
    const short = new Router(router.config, { leaderWaitMs: 500 });
    try {
      // The router still reads the shard's stats from c, which no longer leads.
      const stats = await router.stats();
      expect(stats.shards[0]).toMatchObject({ leader: null });
      expect(stats.shards[0]?.members?.[2]).toMatchObject({ role: 'leader', readOnly: true });
      const error = await short.insert('orders', { pnr: 'no-leader' }).catch((e) => e);
      expect(isDbError(error, 'ERR_SHARD_UNAVAILABLE'), String(error)).toBe(true);
      expect(error.message).toMatch(/shard s1/);
      expect(error.message).toContain(`${c.url} is leader (read-only)`);
      expect(error.message).toContain(`${a.url} is follower`);
      expect(error.message).toContain(`${b.url} did not answer`);
      const health = await checkClusterHealth(router.config);
      expect(health).toMatchObject({ up: 1, down: 1 });
      expect(health.shards[0]).toMatchObject({ status: 'down' });
      expect(health.shards[0]?.error).toMatch(/^no member leads; member .* is down/);
    } finally {
      await short.close();
      expectStatus(await post(c, '/replication/read-write'), 200);
    }
  }, 30_000);
});

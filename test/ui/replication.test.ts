/**
 * Proves the admin UI's Replication screen against a real leader and follower: the leader
 * shows its role, term, seqs and the follower with its lag; the follower shows its link to the
 * leader; read-only and read-write each ask for confirmation and change the node; a refused
 * transition (promote on a leader) shows the node's 409 message. And the Cluster screen
 * through a real `docdb router` over two shards: each shard with its counts per collection,
 * and no Replication screen there; the Query screen reading the router's plans (a scatter
 * over both shards with its scan hint, and a single shard); and a replica-set shard's members
 * with their role badges (leader, follower, down), term, seq and lag, the shard marked
 * degraded while a member is down and without a leader while its leader is read-only, beside
 * a one-endpoint shard's endpoint.
 */

import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  caughtUp,
  type DocdbNode,
  expectStatus,
  followerFlags,
  insert,
  leaderFlags,
  Nodes,
  post,
  status,
} from '../e2e/replication-support.js';
import { freePort, request, startRouter, stopAll, waitFor } from '../e2e/support.js';
import { makeTempDir } from '../support/temp-dir.js';
import { errorText, launch, openPage, screenshots } from './support.js';

const temp = makeTempDir('docdb-ui-repl-');
let browser: Browser;
let page: Page & { errors: string[] };
let leader: DocdbNode;
let follower: DocdbNode;
const routers: ChildProcess[] = [];

beforeAll(async () => {
  const nodes = new Nodes(temp.dir);
  const replicationPort = await freePort();
  [browser, leader] = await Promise.all([
    launch(),
    nodes.start('ui-leader', { args: leaderFlags(replicationPort) }),
  ]);
  follower = await nodes.start('ui-follower', { args: followerFlags(replicationPort) });
  await insert(leader, 'orders', { pnr: 'R1' });
  await caughtUp(leader, follower);
  page = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  for (const router of routers) router.kill('SIGKILL');
  await stopAll();
  temp.cleanup();
});

describe('the Replication screen', () => {
  it("shows the leader's status and its follower with lag", async () => {
    await page.goto(`${leader.url}/ui/replication/`);
    const cards = page.getByRole('region', { name: 'replication status' });
    await cards.getByText('leader', { exact: true }).waitFor();
    const followers = page.getByRole('table', { name: 'followers' });
    await followers.getByRole('cell', { name: 'ui-follower' }).waitFor();
    await followers.getByRole('cell', { name: 'streaming' }).waitFor();
    await screenshots(page, 'replication');
  });

  it('shows the follower its leader', async () => {
    await page.goto(`${follower.url}/ui/replication/`);
    const cards = page.getByRole('region', { name: 'replication status' });
    await cards.getByText('follower', { exact: true }).waitFor();
    await page.getByText(/ui-leader at .*streaming/).waitFor();
  });

  it('read-only and read-write ask first, then change the node', async () => {
    await page.goto(`${leader.url}/ui/replication/`);
    await page.getByRole('button', { name: 'Read-only' }).click();
    // Cancel changes nothing.
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect((await status(leader)).readOnly).toBe(false);
    await page.getByRole('button', { name: 'Read-only' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'read-only' }).click();
    await page.getByRole('status').filter({ hasText: 'done' }).waitFor();
    expect((await status(leader)).readOnly).toBe(true);
    await page.getByRole('button', { name: 'Read-write' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'read-write' }).click();
    await waitFor(
      async () => ((await status(leader)).readOnly ? undefined : true),
      5_000,
      () => 'the leader did not take writes again',
    );
  });

  it("shows the node's refusal of a transition that does not fit its role", async () => {
    await page.goto(`${leader.url}/ui/replication/`);
    await page.getByLabel('Promote, listening on port').fill(String(await freePort()));
    await page.getByRole('button', { name: 'Promote' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'promote' }).click();
    expect(await errorText(page)).toContain('already leads');
    expect((await status(leader)).role).toBe('leader');
    expect(page.errors).toEqual([]);
  });
});

describe('the Cluster screen', () => {
  it('shows each shard with its counts through a router, and no Replication screen', async () => {
    const shards = await startShards();
    const url = await startClusterRouter(
      'cluster.json',
      shards.map((url, i) => ({ name: `s${i + 1}`, endpoint: url })),
    );
    for (let i = 0; i < 20; i++) {
      const answer = await request(`${url}/collections/orders`, { body: { pnr: `C${i}` } });
      expect(answer.status, answer.text).toBe(201);
    }
    await page.goto(`${url}/ui/cluster/`);
    const table = page.getByRole('table', { name: 'shards' });
    await table.getByRole('cell', { name: 's1' }).waitFor();
    await table.getByRole('cell', { name: 's2' }).waitFor();
    await table.getByRole('cell', { name: '20', exact: true }).waitFor();
    expect(await table.getByText('up').count()).toBe(2);
    expect(await page.getByRole('link', { name: 'Replication' }).count()).toBe(0);
    await screenshots(page, 'cluster');

    // The Query screen reads the router's plans: where it ran, then the shard's plan.
    await page.goto(`${url}/ui/query/`);
    const run = async (sql: string) => {
      await page.getByLabel('SQL statement').click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      await page.keyboard.insertText(sql);
      await page.getByRole('button', { name: 'Run' }).click();
    };
    const plan = page.getByRole('region', { name: 'plan' });
    await run("SELECT * FROM orders WHERE note = 'x'");
    await plan.getByText('scatter to 2 shards, merged by the router').waitFor();
    await plan.getByText('collection scan (every document)').waitFor();
    await page.getByRole('note').getByText('on every shard', { exact: false }).waitFor();
    await screenshots(page, 'query-plan-scatter');
    await run("SELECT * FROM orders WHERE pnr = 'C1'");
    await plan.getByText(/^one shard: s[12]$/).waitFor();
    expect(page.errors).toEqual([]);
  });

  it("shows a replica-set shard's members with their roles, and marks one down", async () => {
    const dir = path.join(temp.dir, 'single');
    fs.mkdirSync(dir);
    const single = await new Nodes(dir).start('ui-single');
    // A member no node answers for: the shard keeps its leader but is marked degraded.
    const gone = `http://127.0.0.1:${await freePort()}`;
    const url = await startClusterRouter('cluster-rs.json', [
      { name: 'rs', members: [follower.url, leader.url, gone] },
      { name: 'one', endpoint: single.url },
    ]);
    await caughtUp(leader, follower);
    const seq = (await status(leader)).lastSeq;
    await page.goto(`${url}/ui/cluster/`);

    const shards = page.getByRole('table', { name: 'shards' });
    const rs = shards.getByRole('row', { name: /^rs / });
    await rs.getByText('degraded', { exact: true }).waitFor();
    await rs.getByText(`replica set, 3 members, leader ${leader.url}`).waitFor();
    const one = shards.getByRole('row', { name: /^one / });
    await one.getByText('up', { exact: true }).waitFor();
    await one.getByRole('cell', { name: single.url, exact: true }).waitFor();

    const section = page.getByRole('region', { name: 'shard rs' });
    await section.getByText(`${gone} is down.`, { exact: true }).waitFor();
    const members = section.getByRole('table', { name: 'members of rs' });
    const row = (url: string) => members.getByRole('row', { name: new RegExp(`^${url} `) });
    await row(leader.url).getByText('leader', { exact: true }).waitFor();
    await row(follower.url).getByText('follower', { exact: true }).waitFor();
    await row(gone).getByText('down', { exact: true }).waitFor();
    // Term, seq and lag: both replicating members at the leader's seq, lag 0.
    const cells = async (url: string) => row(url).getByRole('cell').allTextContents();
    const [leaderCells, followerCells] = [await cells(leader.url), await cells(follower.url)];
    expect(leaderCells.slice(2, 5)).toEqual([
      String((await status(leader)).term),
      String(seq),
      '0',
    ]);
    expect(followerCells.slice(3, 5)).toEqual([String(seq), '0']);
    expect((await cells(gone)).slice(2, 5)).toEqual(['–', '–', '–']);
    expect(await page.getByRole('region', { name: 'shard one' }).count()).toBe(0);
    await screenshots(page, 'cluster-replica-set');

    // A handover begun: the leader turns read-only, so no member leads; the router still
    // reads the shard's stats from it.
    expectStatus(await post(leader, '/replication/read-only'), 200);
    try {
      await page.reload();
      await rs.getByText('no leader', { exact: true }).waitFor();
      await rs.getByText('replica set, 3 members, no leader').waitFor();
      await row(leader.url).getByText('read-only', { exact: true }).waitFor();
      await section.getByText(`no member leads; ${gone} is down.`, { exact: true }).waitFor();
    } finally {
      expectStatus(await post(leader, '/replication/read-write'), 200);
    }
    expect(page.errors).toEqual([]);
  });
});

/**
 * A `docdb router` over `shards` (cluster.json's entries) with `orders` hashed on pnr, its
 * config written to `file` in the test's folder; answers its URL.
 */
async function startClusterRouter(file: string, shards: unknown[]): Promise<string> {
  const config = path.join(temp.dir, file);
  const collections = { orders: { strategy: 'hash', path: 'pnr' } };
  fs.writeFileSync(
    config,
    JSON.stringify({ version: 1, router: { port: 1 }, shards, collections }),
  );
  const started = await startRouter(config, temp.dir);
  routers.push(started.child);
  return started.url;
}

/** Two plain nodes for the router's shards. */
async function startShards(): Promise<string[]> {
  const dir = path.join(temp.dir, 'shards');
  fs.mkdirSync(dir);
  const nodes = new Nodes(dir);
  const started = await Promise.all([nodes.start('s1'), nodes.start('s2')]);
  return started.map((node) => node.url);
}

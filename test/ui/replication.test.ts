/**
 * Proves the admin UI's Replication screen against a real leader and follower: the leader
 * shows its role, term, seqs and the follower with its lag; the follower shows its link to the
 * leader; read-only and read-write each ask for confirmation and change the node; a refused
 * transition (promote on a leader) shows the node's 409 message. And the Cluster screen
 * through a real `docdb router` over two shards: each shard with its counts per collection,
 * and no Replication screen there; the Query screen reading the router's plans (a scatter
 * over both shards with its scan hint, and a single shard).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  caughtUp,
  type DocdbNode,
  followerFlags,
  insert,
  leaderFlags,
  Nodes,
  status,
} from '../e2e/replication-support.js';
import {
  BIN,
  cleanEnv,
  freePort,
  request,
  START_TIMEOUT_MS,
  stopAll,
  waitFor,
} from '../e2e/support.js';
import { makeTempDir } from '../support/temp-dir.js';
import { errorText, launch, openPage, screenshots } from './support.js';

const temp = makeTempDir('docdb-ui-repl-');
let browser: Browser;
let page: Page & { errors: string[] };
let leader: DocdbNode;
let follower: DocdbNode;
let router: ChildProcess | undefined;

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
  router?.kill('SIGKILL');
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
    const file = path.join(temp.dir, 'cluster.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        router: { port: 1 },
        shards: shards.map((url, i) => ({ name: `s${i + 1}`, endpoint: url })),
        collections: { orders: { strategy: 'hash', path: 'pnr' } },
      }),
    );
    const port = await freePort();
    let out = '';
    router = spawn(BIN, ['router', '-c', file, '--port', String(port)], {
      cwd: temp.dir,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    router.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    router.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    await waitFor(
      () => (out.includes('docdb router listening on') ? true : undefined),
      START_TIMEOUT_MS,
      () => `the router did not start:\n${out}`,
    );
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 20; i++) {
      const answer = await request(`${url}/collections/orders`, { body: { pnr: `C${i}` } });
      expect(answer.status, answer.text).toBe(201);
    }
    await page.goto(`${url}/ui/cluster/`);
    const table = page.getByRole('table', { name: 'shards' });
    await table.getByRole('cell', { name: 's1' }).waitFor();
    await table.getByRole('cell', { name: 's2' }).waitFor();
    await table.getByRole('cell', { name: '20' }).waitFor();
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
});

/** Two plain nodes for the router's shards. */
async function startShards(): Promise<string[]> {
  const dir = path.join(temp.dir, 'shards');
  fs.mkdirSync(dir);
  const nodes = new Nodes(dir);
  const started = await Promise.all([nodes.start('s1'), nodes.start('s2')]);
  return started.map((node) => node.url);
}

/**
 * `docdb health <cluster.json>` against real nodes: a table of every shard (status, time,
 * node, version, role) and one of documents per collection, whose total counts a replicated
 * collection once; --json for scripts; exit 0 when
 * every shard is up and 1 when one is down, unreachable, silent past --timeout-ms, or refuses
 * the API key, each named with its reason. It only reads.
 */

import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED_PORT } from '../support/refused.js';
import { makeTempDir } from '../support/temp-dir.js';
import { BIN, cleanEnv, freePort, request, startServe, stopAll } from './support.js';

const run = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function docdb(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await run(BIN, args, { env: cleanEnv() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const temp = makeTempDir('docdb-health-');
let ports: { a: number; b: number; down: number; silent: number };
let silent: net.Server;

function clusterFile(
  name: string,
  shards: Array<[string, number, string?]>,
  collections: Record<string, unknown> = { orders: { strategy: 'hash', path: 'pnr' } },
): string {
  const file = path.join(temp.dir, name);
  const config = {
    version: 1,
    router: { port: 6000 },
    shards: shards.map(([shard, port, apiKey]) => ({
      name: shard,
      endpoint: `http://127.0.0.1:${port}`,
      ...(apiKey && { apiKey }),
    })),
    collections,
  };
  fs.writeFileSync(file, JSON.stringify(config));
  return file;
}

beforeAll(async () => {
  ports = { a: await freePort(), b: await freePort(), down: REFUSED_PORT, silent: 0 };
  const a = await startServe(
    ['--port', String(ports.a), '--data-dir', 'a', '--node-name', 'node-a'],
    { cwd: temp.dir, port: ports.a },
  );
  await startServe(
    ['--port', String(ports.b), '--data-dir', 'b', '--node-name', 'node-b', '--api-key', 'key-b'],
    { cwd: temp.dir, port: ports.b },
  );
  const seeded = await request(`${a.url}/seed`, { method: 'POST', body: { orders: 40 } });
  expect(seeded.status).toBe(200);
  // A server that accepts connections and never answers.
  silent = net.createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  ports.silent = (silent.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await stopAll();
  silent.close();
  temp.cleanup();
});

describe('docdb health', () => {
  it('prints every shard and the documents per collection; exits 0 when all are up', async () => {
    const file = clusterFile('up.json', [
      ['s1', ports.a],
      ['s2', ports.b, 'key-b'],
    ]);
    const result = await docdb(['health', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('2 of 2 shards up');
    expect(result.stdout).toMatch(
      /s1\s+http:\/\/127\.0\.0\.1:\d+\s+up\s+\d+\s+node-a\s+\S+\s+none/,
    );
    expect(result.stdout).toMatch(/s2\s+.*\s+up\s+\d+\s+node-b/);
    expect(result.stdout).toMatch(/orders\s+40\s+0\s+40/);
    const json = JSON.parse((await docdb(['health', file, '--json'])).stdout);
    expect(json).toMatchObject({ up: 2, down: 0 });
    expect(json.shards[0]).toMatchObject({
      shard: 's1',
      status: 'up',
      node: 'node-a',
      role: 'none',
      readOnly: false,
      documents: { orders: 40 },
      error: null,
    });
    expect(typeof json.shards[0].responseMs).toBe('number');
  });

  it('exits 1 naming each shard that is down, unreachable, silent or refuses the key', async () => {
    const file = clusterFile('down.json', [
      ['s1', ports.a],
      ['unreachable', ports.down],
      ['silent', ports.silent],
      ['wrongkey', ports.b, 'not-the-key'],
    ]);
    const started = Date.now();
    const result = await docdb(['health', file, '--timeout-ms', '500']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 of 4 shards up');
    expect(result.stdout).toMatch(/unreachable is down: .*ECONNREFUSED/);
    expect(result.stdout).toMatch(/silent is down: .*(timed out|within|500)/);
    expect(result.stdout).toMatch(/wrongkey is down: .*(API key|Authorization)/i);
    expect(result.stdout).toMatch(/orders\s+40\s+\?\s+\?\s+\?\s+40\+\?/);
    expect(result.stdout + result.stderr).not.toContain('not-the-key');
    const json = JSON.parse(
      (await docdb(['health', file, '--json', '--timeout-ms', '500'])).stdout,
    );
    expect(json).toMatchObject({ up: 1, down: 3 });
  });

  it('counts a replicated collection once in the total, as COUNT(*) through a router does', async () => {
    const airports = [{ code: 'AMS' }, { code: 'BER' }];
    const a = await request(`http://127.0.0.1:${ports.a}/collections/airports/bulk`, {
      body: airports,
    });
    const b = await request(`http://127.0.0.1:${ports.b}/collections/airports/bulk`, {
      body: airports,
      headers: { authorization: 'Bearer key-b' },
    });
    expect([a.status, b.status]).toEqual([200, 200]);
    const file = clusterFile(
      'replicated.json',
      [
        ['s1', ports.a],
        ['s2', ports.b, 'key-b'],
      ],
      { orders: { strategy: 'hash', path: 'pnr' }, airports: { strategy: 'replicated' } },
    );
    const result = await docdb(['health', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/airports\s+2\s+2\s+2\n/);
    expect(result.stdout).toMatch(/orders\s+40\s+0\s+40/);
    const json = JSON.parse((await docdb(['health', file, '--json'])).stdout);
    expect(json.collections).toEqual([
      { name: 'airports', count: 2, complete: true },
      { name: 'orders', count: 40, complete: true },
    ]);
  });

  it('refuses a bad config file or timeout with a clear error', async () => {
    const missing = await docdb(['health', path.join(temp.dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('ERR_CLUSTER_CONFIG_INVALID');
    const file = clusterFile('one.json', [['s1', ports.a]]);
    const bad = await docdb(['health', file, '--timeout-ms', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('milliseconds from 1 to 600000');
  });
});

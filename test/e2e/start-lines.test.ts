/**
 * Proves the start-up promise of README and docs/cluster.md as real processes: a node and a
 * router each print exactly one start line, their own (Fastify's "Server listening at …" is
 * not printed besides it); and a node whose replication port is in use exits 2 with
 * ERR_CONFIG_INVALID naming the port, like an HTTP port in use, without claiming to listen.
 */

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import {
  BIN,
  cleanEnv,
  freePort,
  runServeFailing,
  START_TIMEOUT_MS,
  startServe,
  stopAll,
  waitFor,
} from './support.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-start-'));
});
afterEach(async () => {
  await stopAll();
  cleanup();
});

const listening = (output: string): string[] =>
  output.split('\n').filter((line) => /listening/i.test(line));

describe('one start line', () => {
  it('from a node, and one from a router', async () => {
    const port = await freePort();
    const node = await startServe(['--port', String(port)], { cwd: dir, port });
    expect(listening(node.stdout() + node.stderr())).toEqual([node.startLine]);

    const file = path.join(dir, 'cluster.json');
    const routerPort = await freePort();
    fs.writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        router: { port: routerPort },
        shards: [{ name: 's1', endpoint: node.url }],
        collections: {},
      }),
    );
    const router = spawn(BIN, ['router', '--config', file], { cwd: dir, env: cleanEnv() });
    let output = '';
    router.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    router.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    try {
      await waitFor(
        () => (output.includes('docdb router listening on') ? true : undefined),
        START_TIMEOUT_MS,
        () => `the router logged no start line:\n${output}`,
      );
      // A moment for a second line, were one printed after the first.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const lines = listening(output);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`docdb router listening on http://127.0.0.1:${routerPort}`);
    } finally {
      router.kill('SIGKILL');
    }
  });
});

describe('a replication port in use', () => {
  it('is ERR_CONFIG_INVALID naming it, exit 2, and the node never says it listens', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port: busy } = blocker.address() as net.AddressInfo;
    try {
      const port = await freePort();
      const args = ['--port', String(port), '--replication-role', 'leader'];
      const { exit, stdout, stderr } = await runServeFailing(
        [...args, '--replication-port', String(busy)],
        { cwd: dir },
      );
      expect(exit.code, stderr).toBe(2);
      expect(stderr).toContain(`replication port ${busy} is already in use`);
      expect(stderr).toContain('ERR_CONFIG_INVALID');
      expect(listening(stdout + stderr)).toEqual([]);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

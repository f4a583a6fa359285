/**
 * Proves the admin UI built with NEXT_PUBLIC_DOCDB_URL talks to that node and not to the origin
 * that serves it: a copy of admin-ui/ is built with the variable set to one node's address, its
 * static files are served by a plain file server on another port (an origin that has no API),
 * and the page shows that node's name and collections, reached through --cors-origin.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, ROOT, stopAll } from '../e2e/support.js';
import { launch, openPage, startNode, type UiNode } from './support.js';

/**
 * Inside the repository, so the copy resolves `next` and React from its node_modules, and
 * bundles the checkout's docdb/client (next.config.ts finds it). Beside it `src` links to the
 * checkout's, where the copy's tsconfig.json reads the client's types (`../src/client`).
 */
const COPY_PARENT = path.join(ROOT, 'test-output/admin-ui-remote');
const COPY = path.join(COPY_PARENT, 'admin-ui');
const SOURCES = ['app', 'components', 'lib', 'next.config.ts', 'package.json', 'tsconfig.json'];
const BUILD_TIMEOUT_MS = 240_000;

let browser: Browser | undefined;
let node: UiNode | undefined;
let files: http.Server | undefined;
let pageUrl = '';

/** Serves COPY/out at /ui/ as the node would, and nothing else (404). */
function serveFiles(port: number): Promise<http.Server> {
  const out = path.join(COPY, 'out');
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.txt': 'text/plain',
  };
  const server = http.createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    let file = pathname.startsWith('/ui/') ? path.join(out, pathname.slice(4)) : '';
    if (file && !path.relative(out, file).startsWith('..') && fs.existsSync(file)) {
      if (fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    }
    if (!file || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end('not here');
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  const filesPort = await freePort();
  const origin = `http://127.0.0.1:${filesPort}`;
  node = await startNode({
    orders: 5,
    args: ['--node-name', 'remote-node', '--cors-origin', origin],
  });
  fs.rmSync(COPY_PARENT, { recursive: true, force: true });
  fs.mkdirSync(COPY, { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'src'), path.join(COPY_PARENT, 'src'));
  for (const name of SOURCES) {
    fs.cpSync(path.join(ROOT, 'admin-ui', name), path.join(COPY, name), { recursive: true });
  }
  const require = createRequire(path.join(ROOT, 'admin-ui/package.json'));
  const build = spawnSync(process.execPath, [require.resolve('next/dist/bin/next'), 'build'], {
    cwd: COPY,
    encoding: 'utf8',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_PUBLIC_DOCDB_URL: node.url },
    timeout: BUILD_TIMEOUT_MS,
  });
  if (build.status !== 0) {
    throw new Error(`next build of the copy failed: ${build.stderr || build.stdout}`.slice(-2000));
  }
  files = await serveFiles(filesPort);
  pageUrl = `${origin}/ui/`;
  browser = await launch();
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (files ? files.close(resolve) : resolve(undefined)));
  await stopAll();
  node?.cleanup();
  fs.rmSync(COPY_PARENT, { recursive: true, force: true });
});

describe('the admin UI built with NEXT_PUBLIC_DOCDB_URL', () => {
  it('talks to that node from another origin', async () => {
    const page = await openPage(browser as Browser);
    await page.goto(pageUrl);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('remote-node').first().waitFor();
    await page.goto(`${pageUrl}collections/`);
    await page.getByText('orders').first().waitFor();
    expect(page.errors).toEqual([]);
  });
});

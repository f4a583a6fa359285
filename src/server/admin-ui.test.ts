/**
 * Proves /ui/ on a node and on a router: the index page, an asset with its cache header, the
 * redirect of /ui to /ui/ and of a page folder to its slash, no API key needed for them while
 * the API still needs one, the pages kept out of /openapi.json, and a missing build answered
 * with a 404 naming how to build it (never a 500).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessPerTest } from '../../test/support/app-harness.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { Router } from '../cluster/index.js';
import { buildRouterApp } from './router-app.js';

const KEY = 'ui-test-key';
let build: { dir: string; cleanup(): void };

beforeAll(() => {
  // A build's shape in small: the export's index, a page folder and a hashed asset.
  build = makeTempDir('docdb-ui-');
  fs.mkdirSync(path.join(build.dir, 'query'));
  fs.mkdirSync(path.join(build.dir, '_next/static/chunks'), { recursive: true });
  fs.writeFileSync(path.join(build.dir, 'index.html'), '<!doctype html><title>docdb</title>');
  fs.writeFileSync(path.join(build.dir, 'query/index.html'), '<!doctype html><title>query</title>');
  fs.writeFileSync(path.join(build.dir, '_next/static/chunks/app-1a2b.js'), 'console.log(1);');
});

afterAll(() => build.cleanup());

const start = harnessPerTest();

describe('/ui/ on a node', () => {
  it('serves the index and an asset without a key, while the API still needs one', async () => {
    const app = await start({ apiKey: KEY, adminUiDir: build.dir });
    const index = await app.request({ url: '/ui/', auth: false });
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.text).toContain('<title>docdb</title>');
    expect(index.headers['cache-control']).toBe('no-cache');
    const page = await app.request({ url: '/ui/query/', auth: false });
    expect(page.text).toContain('<title>query</title>');
    const asset = await app.request({ url: '/ui/_next/static/chunks/app-1a2b.js', auth: false });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await app.request({ url: '/stats', auth: false })).status).toBe(401);
  });

  it('redirects /ui to /ui/ and a page folder to its slash', async () => {
    const app = await start({ adminUiDir: build.dir });
    const root = await app.request({ url: '/ui' });
    expect(root.status).toBe(301);
    expect(root.headers.location).toBe('/ui/');
    const page = await app.request({ url: '/ui/query' });
    expect(page.status).toBe(301);
    expect(page.headers.location).toBe('/ui/query/');
  });

  it('answers a missing file with the JSON 404', async () => {
    const app = await start({ adminUiDir: build.dir });
    const missing = await app.request({ url: '/ui/nothing-here.js' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('ERR_ROUTE_NOT_FOUND');
  });

  it('keeps the pages out of /openapi.json', async () => {
    const app = await start({ adminUiDir: build.dir });
    const paths = Object.keys((await app.request({ url: '/openapi.json' })).body.paths);
    expect(paths.filter((p) => p.startsWith('/ui'))).toEqual([]);
    expect(paths).toContain('/query');
  });

  it('answers a missing build with a 404 naming how to build it, without a key', async () => {
    const app = await start({ apiKey: KEY, adminUiDir: path.join(build.dir, 'absent') });
    for (const url of ['/ui', '/ui/', '/ui/query/', '/ui/_next/static/x.js']) {
      const answer = await app.request({ url, auth: false });
      expect(answer.status, url).toBe(404);
      expect(answer.body).toEqual({
        error: expect.stringContaining('npm run build'),
        code: 'ERR_ROUTE_NOT_FOUND',
      });
    }
  });
});

describe('/ui/ on a router', () => {
  it('serves the same build, without a key, and the redirect', async () => {
    const router = new Router({
      version: 1,
      router: { port: 6000 },
      shards: [{ name: 's1', endpoint: 'http://127.0.0.1:1' }],
      collections: {},
    });
    const app = buildRouterApp(router, { apiKey: KEY, adminUiDir: build.dir });
    try {
      const index = await app.inject({ url: '/ui/' });
      expect(index.statusCode).toBe(200);
      expect(index.body).toContain('<title>docdb</title>');
      const root = await app.inject({ url: '/ui' });
      expect(root.statusCode).toBe(301);
      expect(root.headers.location).toBe('/ui/');
      expect((await app.inject({ url: '/stats' })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });
});

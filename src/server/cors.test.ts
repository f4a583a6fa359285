/**
 * Proves the CORS setting on a node: off by default (no CORS header for any origin); when set,
 * the configured origin gets Access-Control-Allow-Origin and the exposed plan headers, its
 * preflight is answered 204 before the API key is asked for, and another origin gets nothing.
 * The key is still checked on the real request.
 */

import { describe, expect, it } from 'vitest';
import { harnessPerTest } from '../../test/support/app-harness.js';

const ORIGIN = 'http://ui.example:3000';
const KEY = 'cors-test-key';
const start = harnessPerTest();

describe('CORS', () => {
  it('is off by default: no CORS header, preflights are not answered', async () => {
    const app = await start();
    const answer = await app.request({ url: '/stats', headers: { origin: ORIGIN } });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await app.request({
      method: 'OPTIONS',
      url: '/query',
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers the configured origin, exposing the query meta headers', async () => {
    const app = await start({ corsOrigin: ORIGIN, apiKey: KEY });
    await app.request({ method: 'POST', url: '/collections/orders', json: { pnr: 'A1' } });
    const answer = await app.request({
      method: 'POST',
      url: '/query',
      json: { sql: 'SELECT * FROM orders' },
      headers: { origin: ORIGIN },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(answer.headers['access-control-expose-headers']).toContain('x-docdb-plan');
    expect(answer.headers.vary).toContain('origin');
  });

  it('answers a preflight 204 without a key, naming the methods and headers the UI sends', async () => {
    const app = await start({ corsOrigin: ORIGIN, apiKey: KEY });
    const preflight = await app.request({
      method: 'OPTIONS',
      url: '/collections/orders',
      auth: false,
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'DELETE',
        'access-control-request-headers': 'authorization, x-confirm',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-methods']).toContain('DELETE');
    expect(preflight.headers['access-control-allow-headers']).toContain('x-confirm');
    expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
    // The real request still needs the key; its 401 carries the header so the page can read it.
    const refused = await app.request({ url: '/stats', auth: false, headers: { origin: ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('gives another origin no CORS header', async () => {
    const app = await start({ corsOrigin: ORIGIN });
    const answer = await app.request({
      url: '/stats',
      headers: { origin: 'http://evil.example' },
    });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await app.request({
      method: 'OPTIONS',
      url: '/stats',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(404);
  });
});

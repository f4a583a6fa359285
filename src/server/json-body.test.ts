/**
 * Proves that an empty body sent with `Content-Type: application/json` (as many clients send
 * on every request) is accepted by every route that takes no body and by POST /seed, whose
 * body is optional, while routes that need a body still refuse it with a clear 400.
 */

import { describe, expect, it } from 'vitest';
import { type Harness, harnessPerTest } from '../../test/support/app-harness.js';

const start = harnessPerTest();
const JSON_TYPE = { 'content-type': 'application/json' };

async function withIndex(): Promise<Harness> {
  const app = await start();
  await app.request({ method: 'POST', url: '/collections/c', json: { a: 1 } });
  await app.request({ method: 'POST', url: '/index', json: { collection: 'c', path: 'a' } });
  return app;
}

describe('an empty JSON body', () => {
  it('is accepted by every route that takes no body', async () => {
    const app = await withIndex();
    for (const url of [
      '/admin/flush',
      '/admin/checkpoint',
      '/admin/compact/c',
      '/admin/rebuild-indexes/c',
      '/admin/rebuild-index/c/idx_c_a',
    ]) {
      const answer = await app.request({ method: 'POST', url, raw: '', headers: JSON_TYPE });
      expect(answer.status, `${url}: ${answer.text}`).toBe(200);
    }
  });

  it('is accepted by the DELETE routes', async () => {
    const app = await withIndex();
    const id = (await app.request({ method: 'POST', url: '/collections/c', json: { a: 2 } })).body
      .id;
    const deletes: Array<[string, Record<string, string>]> = [
      ['/indexes/c/idx_c_a', JSON_TYPE],
      ['/collections/c/by/a/1', JSON_TYPE],
      [`/collections/c/${id}`, JSON_TYPE],
      ['/collections/c', { ...JSON_TYPE, 'x-confirm': 'true' }],
    ];
    for (const [url, headers] of deletes) {
      const answer = await app.request({ method: 'DELETE', url, raw: '', headers });
      expect(answer.status, `${url}: ${answer.text}`).toBe(200);
    }
  });

  it('is accepted by POST /seed, as is no body at all, seeding the default count', async () => {
    const app = await start();
    const empty = await app.request({ method: 'POST', url: '/seed', raw: '', headers: JSON_TYPE });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body.inserted).toBe(10_000);
    const none = await app.inject({ method: 'POST', url: '/seed' });
    expect(none.status, none.text).toBe(200);
    expect(none.body.inserted).toBe(10_000);
  });

  it('is still refused, with a clear 400, where a body is needed', async () => {
    const app = await start();
    for (const url of ['/query', '/index', '/collections/c', '/collections/c/bulk']) {
      const answer = await app.request({ method: 'POST', url, raw: '', headers: JSON_TYPE });
      expect(answer.status, url).toBe(400);
      expect(answer.body, url).toEqual({
        error: 'the request body is empty; send a JSON value',
        code: 'ERR_BAD_REQUEST',
      });
    }
    expect(app.db.collections()).toEqual([]);
  });

  it('leaves the body of POST /seed optional in the OpenAPI document', async () => {
    const app = await start();
    const { body } = await app.request({ url: '/openapi.json' });
    expect(body.paths['/seed'].post.requestBody.required).toBe(false);
    expect(body.paths['/index'].post.requestBody.required).toBe(true);
  });
});

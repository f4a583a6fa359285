/**
 * Proves that a read-only node (planned handover) and a follower refuse every write endpoint
 * of the REST API with 503 ERR_NODE_READ_ONLY, naming the reason and the leader when known,
 * store nothing, and keep answering every read; through `app.inject()` on a real database
 * with the status object passed to buildApp.
 */

import { describe, expect, it } from 'vitest';
import { type Harness, harnessPerTest, type Json } from '../../test/support/app-harness.js';

const start = harnessPerTest();

describe('read-only and follower nodes', () => {
  async function seeded(): Promise<{ app: Harness; id: string }> {
    const app = await start();
    const { body } = await app.request({ method: 'POST', url: '/collections/c', json: { k: 'a' } });
    await app.request({ method: 'POST', url: '/index', json: { collection: 'c', path: 'k' } });
    return { app, id: body.id };
  }

  function writes(id: string): {
    method: 'POST' | 'PUT' | 'DELETE';
    url: string;
    json?: unknown;
    headers?: Record<string, string>;
  }[] {
    return [
      { method: 'POST', url: '/collections/c', json: { k: 'b' } },
      { method: 'POST', url: '/collections/c/bulk', json: [{ k: 'b' }] },
      { method: 'PUT', url: '/collections/c/by/k/a', json: { k: 'z' } },
      { method: 'DELETE', url: '/collections/c/by/k/a' },
      { method: 'PUT', url: `/collections/c/${id}`, json: { k: 'z' } },
      { method: 'DELETE', url: `/collections/c/${id}` },
      { method: 'DELETE', url: '/collections/c', headers: { 'x-confirm': 'true' } },
      { method: 'POST', url: '/index', json: { collection: 'c', path: 'other' } },
      { method: 'POST', url: '/seed', json: { orders: 1 } },
      { method: 'POST', url: '/admin/compact/c' },
      { method: 'POST', url: '/admin/rebuild-indexes/c' },
      { method: 'POST', url: '/admin/rebuild-index/c/idx_c_k' },
      { method: 'POST', url: '/query', json: { sql: 'INSERT INTO c VALUES {"k": "b"}' } },
      { method: 'POST', url: '/query', json: { sql: "UPDATE c SET k = 'z'" } },
      { method: 'POST', url: '/query', json: { sql: 'DELETE FROM c' } },
      { method: 'POST', url: '/query', json: { sql: 'CREATE INDEX i2 ON c (other)' } },
      { method: 'POST', url: '/query', json: { sql: 'DROP INDEX idx_c_k ON c' } },
      { method: 'POST', url: '/query?stream=true', json: { sql: 'DELETE FROM c' } },
    ];
  }

  async function expectReadsWork(app: Harness, id: string): Promise<void> {
    const reads: { method?: 'POST'; url: string; json?: unknown }[] = [
      { url: '/collections/c' },
      { url: `/collections/c/${id}` },
      { url: '/collections/c/by/k/a' },
      { url: '/collections' },
      { url: '/indexes/c' },
      { url: '/stats' },
      { url: '/health' },
      { method: 'POST', url: '/query', json: { sql: "SELECT * FROM c WHERE k = 'a'" } },
      { method: 'POST', url: '/query?stream=true', json: { sql: 'SELECT * FROM c' } },
    ];
    for (const call of reads) expect((await app.request(call)).status, call.url).toBe(200);
    const list = await app.request({ url: '/collections/c' });
    expect(list.body.documents).toEqual([{ _id: id, k: 'a' }]);
    expect(app.db.collections()).toEqual(['c']);
    expect(
      app.db
        .collection('c')
        .listIndexes()
        .map((i) => i.name),
    ).toEqual(['idx_c_k']);
  }

  it('refuses every write with 503 ERR_NODE_READ_ONLY during a handover; reads go on', async () => {
    const { app, id } = await seeded();
    app.status.readOnly = true;
    for (const call of writes(id)) {
      const answer = await app.request(call);
      expect(answer.status, `${call.method} ${call.url}`).toBe(503);
      expect(answer.body).toEqual({
        error: 'this node is read-only (handover)',
        code: 'ERR_NODE_READ_ONLY',
        role: 'none',
      });
    }
    await expectReadsWork(app, id);
    expect((await app.request({ url: '/health' })).body.readOnly).toBe(true);
  });

  it('refuses every write on a follower, naming the leader when known', async () => {
    const { app, id } = await seeded();
    app.status.role = 'follower';
    const first = await app.request(writes(id)[0] as Json);
    expect(first.status).toBe(503);
    expect(first.body).toEqual({
      error: 'this node is a follower',
      code: 'ERR_NODE_READ_ONLY',
      role: 'follower',
    });
    app.status.leader = '10.0.0.1:5000';
    for (const call of writes(id)) {
      const answer = await app.request(call);
      expect(answer.status, `${call.method} ${call.url}`).toBe(503);
      expect(answer.body).toEqual({
        error: 'this node is a follower; send writes to the leader at 10.0.0.1:5000',
        code: 'ERR_NODE_READ_ONLY',
        role: 'follower',
        leader: '10.0.0.1:5000',
      });
    }
    await expectReadsWork(app, id);
  });

  it('still flushes and checkpoints (they write nothing new) and takes writes again after', async () => {
    const { app } = await seeded();
    app.status.readOnly = true;
    expect((await app.request({ method: 'POST', url: '/admin/flush' })).status).toBe(200);
    expect((await app.request({ method: 'POST', url: '/admin/checkpoint' })).status).toBe(200);
    app.status.readOnly = false;
    const again = await app.request({ method: 'POST', url: '/collections/c', json: { k: 'b' } });
    expect(again.status).toBe(201);
  });
});

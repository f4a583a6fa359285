/**
 * Proves POST /admin/backup through `app.inject()` on a real database: the answer is the
 * backup as one stream (manifest line, then the files) that unpacks, verifies and restores
 * to the same documents and indexes; `withLog=true` carries the change log; the temporary
 * copy beside the data file is gone once sent; and the route needs the API key.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { harnessPerTest } from '../../../test/support/app-harness.js';
import { makeTempDir } from '../../../test/support/temp-dir.js';
import { open, restoreBackup, unpackBackup } from '../../engine/index.js';

const start = harnessPerTest();

async function* chunksOf(bytes: Buffer): AsyncGenerator<Buffer> {
  yield bytes;
}

describe('POST /admin/backup', () => {
  it('streams a backup that restores to the same documents and indexes', async () => {
    const h = await start({ apiKey: 'k' });
    await h.db.collection('c').createIndex({ paths: ['a'], unique: true });
    await h.db.collection('c').insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    const response = await h.app.inject({
      method: 'POST',
      url: '/admin/backup?withLog=true',
      headers: { authorization: 'Bearer k' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/vnd.docdb.backup');
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
    expect(response.headers['x-docdb-backup-seq']).toBe('2');
    // The copy made for the answer goes once the stream closes.
    await vi.waitFor(() => {
      expect(fs.readdirSync(h.dir).filter((n) => n.startsWith('.backup-'))).toEqual([]);
    });

    const temp = makeTempDir('docdb-backup-http-');
    try {
      const dir = path.join(temp.dir, 'b');
      const manifest = await unpackBackup(chunksOf(response.rawPayload), dir, 'the answer');
      expect(manifest.lastSeq).toBe(2);
      expect(manifest.log).toEqual({ firstSeq: 1, lastSeq: 2 });
      const target = path.join(temp.dir, 'data');
      await restoreBackup(dir, target);
      const db = await open(target);
      try {
        const c = db.requireCollection('c');
        expect(c.count()).toBe(3);
        expect(c.listIndexes().map((i) => [i.name, i.unique])).toEqual([['idx_c_a', true]]);
      } finally {
        await db.close();
      }
    } finally {
      temp.cleanup();
    }
  });

  it('needs the API key', async () => {
    const h = await start({ apiKey: 'k' });
    const answer = await h.request({ method: 'POST', url: '/admin/backup', auth: false });
    expect(answer.status).toBe(401);
  });

  it('refuses an unknown option', async () => {
    const h = await start();
    const answer = await h.request({ method: 'POST', url: '/admin/backup?withLog=yes' });
    expect(answer.status).toBe(400);
  });
});

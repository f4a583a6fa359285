/**
 * Proves that documents stored with shared structures always decode: after a reopen, after a
 * job that recorded a new structure rolled back (the failure that rules out lmdb-js's own
 * shared structures), after a failed atomic insert, in a reader process that opened before
 * the structure existed, and across many distinct shapes.
 */

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});
afterEach(() => cleanup());

describe('shared document structures', () => {
  it('a structure first seen by a rolled-back UPDATE does not break later documents', async () => {
    let db = await open(dir);
    await db.collection('t').insertMany([{ k: 1 }, { k: 2 }]);
    await db.collection('t').createIndex({ paths: ['k'], unique: true });
    // The UPDATE encodes documents of a new shape inside its job, then fails on the unique index.
    await expect(
      db.query('UPDATE t SET k = 1, brandNew = {"x": 1, "y": "z"}'),
    ).rejects.toMatchObject({
      code: 'ERR_UNIQUE_VIOLATION',
    });
    // The same new shapes, now through writes that succeed.
    await db.query('INSERT INTO t VALUES {"k": 3, "brandNew": {"x": 2, "y": "w"}}');
    await db.collection('t').insert({ k: 4, brandNew: { x: 3, y: 'v' } });
    await db.close();
    db = await open(dir);
    const rows = (await db.query('SELECT k, brandNew.x FROM t ORDER BY k')).documents;
    expect(rows.map((r) => [r.k, r['brandNew.x']])).toEqual([
      [1, null],
      [2, null],
      [3, 2],
      [4, 3],
    ]);
    await db.close();
  });

  it('a failed atomic insert of new shapes leaves nothing that later documents depend on', async () => {
    let db = await open(dir);
    const c = db.collection('t');
    const failed = await c.insertMany([{ shapeA: 1, s: 'a' }, { _id: 'bad' }], { atomic: true });
    expect(failed.ids).toEqual([]);
    const id = await c.insert({ shapeA: 2, s: 'b' });
    await db.close();
    db = await open(dir);
    expect(await db.collection('t').get(id)).toEqual({ _id: id, shapeA: 2, s: 'b' });
    await db.close();
  });

  it('many distinct shapes, past the shared-structure limit, all decode after a reopen', async () => {
    let db = await open(dir);
    const docs = Array.from({ length: 1500 }, (_, i) => ({
      [`field${i}`]: i,
      nested: { [`n${i % 7}`]: true },
    }));
    const { ids } = await db.collection('shapes').insertMany(docs);
    await db.close();
    db = await open(dir);
    const c = db.collection('shapes');
    for (const k of [0, 31, 32, 1023, 1024, 1499]) {
      expect(await c.get(ids[k] as string)).toEqual({ _id: ids[k], ...docs[k] });
    }
    await db.close();
  });

  it('a reader that opened earlier decodes documents of shapes created later', async () => {
    const db = await open(dir);
    await db.collection('t').insert({ old: 1 });
    const script = path.join(dir, 'reader.mts');
    fs.writeFileSync(
      script,
      `import { open } from '${path.join(ROOT, 'src/index.js')}';
       const ro = await open(${JSON.stringify(dir)}, { readOnly: true });
       console.log('ready');
       process.stdin.once('data', async () => {
         const r = await ro.query('SELECT fresh.shape FROM t WHERE fresh.shape = 7');
         console.log(JSON.stringify(r.documents.map((d) => d['fresh.shape'])));
         await ro.close();
         process.exit(0);
       });`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT });
    const lines: string[] = [];
    const next = () =>
      new Promise<string>((resolve) => {
        child.stdout.once('data', (chunk: Buffer) => {
          lines.push(chunk.toString().trim());
          resolve(lines[lines.length - 1] as string);
        });
      });
    expect(await next()).toBe('ready');
    await db.collection('t').insert({ fresh: { shape: 7 }, other: 'x' });
    child.stdin.write('go\n');
    expect(await next()).toBe('[7]');
    await db.close();
  });

  it('a read-only open cannot add structures, and says so', async () => {
    const db = await open(dir);
    await db.collection('t').insert({ a: 1 });
    await db.close();
    const ro = await open(dir, { readOnly: true });
    await expect(ro.collection('t').insert({ unseenShape: 1 })).rejects.toMatchObject({
      code: 'ERR_STORAGE_READ_ONLY',
    });
    expect(ro.collection('t').count()).toBe(1);
    await ro.close();
  });
});

/**
 * Proves the Store's file-level guarantees on real LMDB files: the change log records every
 * write with contiguous persisted seqs; a resolved write is visible to another process; one
 * writer per file (a second writer is refused by pid, a dead writer's lock is taken over)
 * while readers are always welcome; concurrent writes share commits; stats, flush,
 * checkpoint and compaction measure what they report. Bulk inserts check client ids given in
 * any order and keep indexes and the change log right when ids arrive out of order.
 */

import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { isDbError } from '../errors/index.js';
import { type CollectionDef, DATA_FILE_NAME, Store } from './index.js';
import { treePages } from './page-walk.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => cleanup());

/** Runs a script in a separate Node process with tsx, against this checkout's source. */
function inChild(script: string): string {
  const file = path.join(dir, `child-${Math.random().toString(36).slice(2)}.mts`);
  fs.writeFileSync(file, script.replaceAll('@src', path.join(ROOT, 'src')));
  return execFileSync(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

describe('files and paths', () => {
  it('creates <dir>/data.docdb and accepts the dir or the file', async () => {
    const db = await open(dir);
    await db.collection('c').insert({ a: 1 });
    await db.close();
    expect(fs.existsSync(path.join(dir, DATA_FILE_NAME))).toBe(true);
    const again = await open(path.join(dir, DATA_FILE_NAME));
    expect(again.collection('c').count()).toBe(1);
    await again.close();
  });

  it('refuses a read-only open of a missing file', async () => {
    await expect(open(path.join(dir, 'nothing'), { readOnly: true })).rejects.toMatchObject({
      code: 'ERR_STORAGE_NOT_FOUND',
    });
  });

  it('refuses writes on a read-only open', async () => {
    const db = await open(dir);
    await db.collection('c').insert({ a: 1 });
    await db.close();
    const ro = await open(dir, { readOnly: true });
    expect(ro.collection('c').count()).toBe(1);
    await expect(ro.collection('c').insert({ a: 2 })).rejects.toMatchObject({
      code: 'ERR_STORAGE_READ_ONLY',
    });
    await ro.close();
  });
});

describe('bulk insert', () => {
  const idOf = (n: number) => `0193a4f2-7c1e-7d3a-9b2e-${n.toString(16).padStart(12, '0')}`;

  it('checks client ids in and out of order against the batch and the stored documents', async () => {
    const db = await open(dir);
    const c = db.collection('c');
    await c.insertMany([{ _id: idOf(10) }, { _id: idOf(20) }]);
    const result = await c.insertMany([
      { _id: idOf(30) }, // above every stored id
      { _id: idOf(20) }, // stored, and the last stored id
      { _id: idOf(15) }, // below the last stored id, new
      { _id: idOf(10) }, // stored, below the last
      { _id: idOf(30) }, // earlier in this batch
      { _id: idOf(15) }, // earlier in this batch, out of order
      { _id: idOf(40) },
      { _id: idOf(35) }, // below an id of this batch, new
    ]);
    expect(result.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 'ERR_DOCUMENT_ID_EXISTS'],
      [3, 'ERR_DOCUMENT_ID_EXISTS'],
      [4, 'ERR_DOCUMENT_ID_EXISTS'],
      [5, 'ERR_DOCUMENT_ID_EXISTS'],
    ]);
    expect(result.ids).toEqual([idOf(30), idOf(15), idOf(40), idOf(35)]);
    expect(c.list({ limit: 100 }).map((d) => d._id)).toEqual([10, 15, 20, 30, 35, 40].map(idOf));
    await db.close();
  });

  it('keeps index entries and the change log right when ids arrive out of order', async () => {
    let db = await open(dir);
    const c = db.collection('c');
    await c.createIndex({ paths: ['tags[*]'] });
    await c.createIndex({ paths: ['k'], unique: true });
    const docs = [5, 1, 4, 2, 3].map((n) => ({
      _id: idOf(n),
      k: n,
      tags: ['x', `t${n % 2}`, 'x'],
    }));
    const result = await c.insertMany(docs);
    expect(result.errors).toEqual([]);
    await db.close();
    db = await open(dir);
    const again = db.collection('c');
    const ids = (tag: string) =>
      again
        .findBy('tags[*]', tag)
        .documents.map((d) => d._id)
        .sort();
    expect(ids('x')).toEqual([1, 2, 3, 4, 5].map(idOf));
    expect(ids('t1')).toEqual([1, 3, 5].map(idOf));
    expect(again.findBy('k', 4).documents.map((d) => d._id)).toEqual([idOf(4)]);
    const [entry] = [...db.changesSince(0)].filter((e) => e.op === 'insert');
    expect(entry).toMatchObject({
      op: 'insert',
      collection: 'c',
      documents: docs.map(({ _id, ...doc }) => ({ id: _id, doc })),
    });
    await db.close();
  });
});

describe('change log', () => {
  it('records every kind of write with contiguous seqs that survive a reopen', async () => {
    let db: Database = await open(dir);
    const c = db.collection('orders');
    const id = await c.insert({ pnr: 'A' });
    await c.insertMany([{ pnr: 'B' }, { pnr: 'C' }]);
    await c.replace(id, { pnr: 'A2' });
    await c.createIndex({ paths: ['pnr'], name: 'p' });
    await c.delete(id);
    await c.dropIndex('p');
    await db.dropCollection('orders');
    await db.close();
    db = await open(dir);
    const log = [...db.changesSince(0)];
    expect(log.map((e) => e.op)).toEqual([
      'insert',
      'insert',
      'replace',
      'createIndex',
      'delete',
      'dropIndex',
      'dropCollection',
    ]);
    expect(log.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(log.every((e) => e.term === 1 && e.collection === 'orders')).toBe(true);
    expect(log[0]).toMatchObject({ op: 'insert', documents: [{ id, doc: { pnr: 'A' } }] });
    // insertMany is one atomic write: one entry holding both documents.
    expect(log[1]).toMatchObject({
      op: 'insert',
      documents: [{ doc: { pnr: 'B' } }, { doc: { pnr: 'C' } }],
    });
    expect(log[2]).toMatchObject({ op: 'replace', id, doc: { pnr: 'A2' } });
    expect(log[3]).toMatchObject({ index: { name: 'p', paths: ['pnr'], unique: false } });
    expect(db.nodeState().lastSeq).toBe(7);
    await db.collection('x').insert({});
    expect([...db.changesSince(7)].map((e) => e.seq)).toEqual([8]);
    await db.close();
  });

  it('a failed write leaves no change-log entry and no gap', async () => {
    const db = await open(dir);
    const c = db.collection('c');
    await c.createIndex({ paths: ['k'], unique: true });
    await c.insert({ k: 1 });
    await expect(c.insert({ k: 1 })).rejects.toMatchObject({ code: 'ERR_UNIQUE_VIOLATION' });
    await c.insert({ k: 2 });
    expect([...db.changesSince(0)].map((e) => e.seq)).toEqual([1, 2, 3]);
    await db.close();
  });

  it('checkpoint trims to the retention bound and seqs continue after a reopen', async () => {
    const store = Store.open(dir);
    for (let i = 0; i < 10; i++) {
      await store.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({ i }, undefined)]));
    }
    const result = await store.checkpoint(3);
    expect(result).toEqual({ lastSeq: 10, trimmedEntries: 7, firstSeq: 8 });
    expect([...store.changesAfter(0)].map((e) => e.seq)).toEqual([8, 9, 10]);
    await store.checkpoint(0);
    expect([...store.changesAfter(0)]).toEqual([]);
    const position = store.nodeState();
    expect(position).toMatchObject({ term: 1, lastSeq: 10, seqFloor: 10, lastTerm: 1 });
    await store.close();
    const reopened = Store.open(dir);
    // The floor keeps the term and the hash-chain link of the last entry trimmed.
    expect(reopened.nodeState()).toEqual(position);
    await reopened.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({}, undefined)]));
    expect([...reopened.changesAfter(0)].map((e) => e.seq)).toEqual([11]);
    await reopened.close();
  });

  it('writes keep the change log within its byte bound, newest entries kept, seqs contiguous', async () => {
    const store = Store.open(dir, { changeLogRetainBytes: 256 * 1024 });
    const filler = 'x'.repeat(2000);
    for (let batch = 0; batch < 40; batch++) {
      await store.write((txn) =>
        txn.insertDocuments(
          'c',
          Array.from({ length: 20 }, (_, i) =>
            txn.prepareDocument({ batch, i, filler }, undefined),
          ),
        ),
      );
    }
    const { lastSeq, seqFloor } = store.nodeState();
    expect(lastSeq).toBe(40);
    // 40 entries of about 40 KiB do not fit in 256 KiB: the oldest went, at write time.
    expect(seqFloor).toBeGreaterThan(0);
    const seqs = [...store.changesAfter(0)].map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: lastSeq - seqFloor }, (_, i) => seqFloor + 1 + i));
    // Within the bound, give or take the sixteenth between two checks and one entry.
    expect(seqs.length * 40_000).toBeLessThan(256 * 1024 * (1 + 1 / 16) + 41_000);
    expect(seqs.length).toBeGreaterThan(2);
    // Every document is still there: only the log was trimmed.
    expect(store.count(store.getCollection('c') as CollectionDef)).toBe(800);
    const position = store.nodeState();
    await store.close();
    const reopened = Store.open(dir);
    expect(reopened.nodeState()).toEqual(position);
    expect(position).toMatchObject({ term: 1, lastSeq: 40, seqFloor, lastTerm: 1 });
    await reopened.close();
  });
});

describe('durability and concurrency', () => {
  it('a resolved insert is readable by another process', async () => {
    const db = await open(dir);
    const id = await db.collection('c').insert({ hello: 'world' });
    const seen = inChild(`
      import { open } from '@src/index.js';
      const db = await open(${JSON.stringify(dir)}, { readOnly: true });
      console.log(JSON.stringify(await db.collection('c').get(${JSON.stringify(id)})));
      await db.close();
    `);
    expect(JSON.parse(seen)).toEqual({ _id: id, hello: 'world' });
    await db.close();
  });

  it('concurrent writes share commits (group commit) and all resolve', async () => {
    const store = Store.open(dir);
    await store.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({}, undefined)]));
    const before = store.lastTxnId();
    const writes = Array.from({ length: 200 }, (_, i) =>
      store.write((txn) => txn.insertDocuments('c', [txn.prepareDocument({ i }, undefined)])),
    );
    const results = await Promise.all(writes);
    expect(results.every((r) => r.ids.length === 1)).toBe(true);
    expect(store.lastTxnId() - before).toBeLessThan(10);
    await store.close();
  });
});

describe('writer lock', () => {
  it('refuses a second writer in the same process', async () => {
    const db = await open(dir);
    await expect(open(dir)).rejects.toMatchObject({ code: 'ERR_STORAGE_LOCKED' });
    await db.close();
    const again = await open(dir);
    await again.close();
  });

  it('refuses a writer in another process, naming this pid; readers are fine', async () => {
    const db = await open(dir);
    await db.collection('c').insert({ a: 1 });
    const out = inChild(`
      import { open } from '@src/index.js';
      try { await open(${JSON.stringify(dir)}); console.log('opened'); }
      catch (e) { console.log(e.code + ' ' + e.message); }
      const ro = await open(${JSON.stringify(dir)}, { readOnly: true });
      console.log('reader sees ' + ro.collection('c').count());
      await ro.close();
    `);
    expect(out).toContain('ERR_STORAGE_LOCKED');
    expect(out).toContain(`process ${process.pid}`);
    expect(out).toContain('reader sees 1');
    await db.close();
  });

  it('takes over a lock left by a dead process', async () => {
    fs.writeFileSync(
      path.join(dir, `${DATA_FILE_NAME}-owner`),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname() }),
    );
    const db = await open(dir);
    await db.collection('c').insert({});
    await db.close();
    expect(fs.existsSync(path.join(dir, `${DATA_FILE_NAME}-owner`))).toBe(false);
  });
});

describe('stats and compaction', () => {
  it('reports file size, pages, counts and every index with its entries', async () => {
    const db = await open(dir);
    const c = db.collection('orders');
    await c.insertMany(Array.from({ length: 100 }, (_, i) => ({ i, tags: [i % 3, 'k'] })));
    await c.createIndex({ paths: ['i'], unique: true, name: 'ui' });
    await c.createIndex({ paths: ['tags[*]'], name: 'tags' });
    const stats = db.stats();
    expect(stats.fileSizeBytes).toBe(fs.statSync(path.join(dir, DATA_FILE_NAME)).size);
    expect(stats.pageSizeBytes).toBeGreaterThan(0);
    expect(stats.pages.used + stats.pages.free).toBe(stats.pages.total);
    expect(stats.collections).toEqual([
      {
        name: 'orders',
        count: 100,
        indexes: [
          { name: 'ui', paths: ['i'], unique: true, multikey: false, state: 'ready', entries: 100 },
          {
            name: 'tags',
            paths: ['tags[*]'],
            unique: false,
            multikey: true,
            state: 'ready',
            entries: 200,
          },
        ],
      },
    ]);
    expect(await db.flush()).toEqual({ flushed: true, lastSeq: 3 });
    await db.close();
  });

  it('compaction reclaims measured pages and keeps every document and index working', async () => {
    const db = await open(dir);
    const c = db.collection('orders');
    const { ids } = await c.insertMany(
      Array.from({ length: 4000 }, (_, i) => ({ i, pad: 'x'.repeat(200) })),
    );
    await c.createIndex({ paths: ['i'], name: 'i' });
    for (let k = 0; k < ids.length; k++) if (k % 10 !== 0) await c.delete(ids[k] as string);
    const before = db.stats();
    const result = await db.compact('ORDERS');
    expect(result.collection).toBe('orders');
    expect(result.pagesCompacted).toBe(result.pagesBefore - result.pagesAfter);
    expect(result.pagesCompacted).toBeGreaterThan(0);
    expect(result.bytesReclaimed).toBe(result.pagesCompacted * before.pageSizeBytes);
    expect(result.freePagesAfter).toBeGreaterThan(result.freePagesBefore);
    expect(c.count()).toBe(400);
    expect(c.findBy('i', 1230).documents.map((d) => d.i)).toEqual([1230]);
    expect(c.findBy('i', 1231).documents).toEqual([]);
    expect(db.stats().collections[0]?.indexes[0]?.entries).toBe(400);
    await c.insert({ i: -1 });
    expect(c.findBy('i', -1).index).toBe('i');
    await expect(db.compact('ghost')).rejects.toMatchObject({ code: 'ERR_COLLECTION_NOT_FOUND' });
    await db.close();
    const reopened = await open(dir);
    expect(reopened.collection('orders').count()).toBe(401);
    await reopened.close();
  });

  it('compaction counts the value trees of index keys with many documents', async () => {
    const file = path.join(dir, DATA_FILE_NAME);
    /** The walked pages of the collection's trees, value trees included, as the file holds them. */
    const walked = async (): Promise<number> => {
      const store = Store.open(dir, { readOnly: true });
      const def = store.getCollection('orders') as CollectionDef;
      const names = [def.dbName, ...def.indexes.map((index) => index.dbName)];
      await store.close();
      let pages = 0;
      for (const count of treePages(file, names)?.values() ?? []) pages += count;
      return pages;
    };
    let db = await open(dir);
    const c = db.collection('orders');
    await c.createIndex({ paths: ['status'], name: 'status' });
    const { ids } = await c.insertMany(
      Array.from({ length: 6000 }, (_, i) => ({ i, status: i % 2 ? 'open' : 'paid' })),
    );
    await c.deleteMany(ids.filter((_, k) => k % 10 !== 0));
    await db.close();
    const before = await walked();
    db = await open(dir);
    const result = await db.compact('orders');
    await db.close();
    // Each status's 3,000 ids took a value tree of their own, which LMDB's statistics omit.
    expect(result.pagesBefore).toBe(before);
    expect(result.pagesAfter).toBe(await walked());
    expect(result.pagesCompacted).toBe(result.pagesBefore - result.pagesAfter);
    expect(result.pagesCompacted).toBeGreaterThan(0);
  });

  it('closing twice is harmless; a closed database refuses writes', async () => {
    const db = await open(dir);
    await db.close();
    await db.close();
    const error = await db
      .collection('c')
      .insert({})
      .catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_STORAGE_CLOSED')).toBe(true);
  });
});

describe('document size limit', () => {
  it('stores a document of exactly DOCUMENT_BYTES_MAX bytes and refuses one byte more', async () => {
    const { DOCUMENT_BYTES_MAX } = await import('../util/index.js');
    const store = Store.open(dir);
    // The stored size of { s: <n chars> } is n plus a fixed header: measure the header.
    const probe = 1 << 20;
    const header = await store.write(
      (txn) => txn.prepareDocument({ s: 'x'.repeat(probe) }, undefined).encoded.length - probe,
    );
    const stored = await store.write((txn) => {
      const atLimit = txn.prepareDocument(
        { s: 'x'.repeat(DOCUMENT_BYTES_MAX - header) },
        undefined,
      );
      return { bytes: atLimit.encoded.length, ids: txn.insertDocuments('big', [atLimit]).ids };
    });
    expect(stored.bytes).toBe(DOCUMENT_BYTES_MAX);
    expect(stored.ids).toHaveLength(1);
    const tooLarge = store.write((txn) =>
      txn.prepareDocument({ s: 'x'.repeat(DOCUMENT_BYTES_MAX - header + 1) }, undefined),
    );
    await expect(tooLarge).rejects.toMatchObject({ code: 'ERR_DOCUMENT_TOO_LARGE' });
    await store.close();
  });
});

describe('read-only refresh', () => {
  it('a reader sees what the writer committed after it opened, including new collections', async () => {
    const db = await open(dir);
    await db.collection('a').insert({ n: 1 });
    const script = path.join(dir, 'reader.mts');
    fs.writeFileSync(
      script,
      `import { open } from '${path.join(ROOT, 'src/index.js')}';
       const ro = await open(${JSON.stringify(dir)}, { readOnly: true });
       const show = () => console.log(ro.collections().join(',') + ' ' + ro.collection('a').count());
       show();
       process.stdin.once('data', async () => { show(); await ro.close(); process.exit(0); });`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT });
    const lines: string[] = [];
    const nextLine = () =>
      new Promise<string>((resolve) => {
        const onData = (chunk: Buffer) => {
          lines.push(...chunk.toString().trim().split('\n'));
          child.stdout.off('data', onData);
          resolve(lines[lines.length - 1] as string);
        };
        child.stdout.on('data', onData);
      });
    expect(await nextLine()).toBe('a 1');
    await db.collection('a').insert({ n: 2 });
    await db.collection('b').insert({ n: 3 });
    child.stdin.write('go\n');
    expect(await nextLine()).toBe('a,b 2');
    await db.close();
  });
});

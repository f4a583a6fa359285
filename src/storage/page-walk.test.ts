/**
 * Proves the page walk reads every kind of page docdb's files hold without a false alarm (a
 * value tree of many ids under one index key, documents on overflow pages, sub-pages of a few
 * ids), counts what LMDB counts, and finds a page number pointing past the file's end and a
 * node size running past its page: the faults that make LMDB crash. Reads LMDB's free list,
 * which with the walked pages accounts for every page of the file, closed or open, and on
 * which the pages in use (stats, the size cap) are counted.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { damageDocumentNode } from '../../test/support/damage-page.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { readFileHeader } from './file-header.js';
import { freeListPages, walkPages } from './page-walk.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-walk-'));
});
afterEach(() => cleanup());

/** A file with a big dup set, big documents and small dup sets. */
async function makeFile(): Promise<string> {
  const db = await open(dir);
  const c = db.collection('c');
  await c.insertMany(
    Array.from({ length: 1500 }, (_, i) => ({
      kind: i % 1000 === 0 ? 'rare' : 'common',
      n: i % 7,
      text: i % 100 === 0 ? 'x'.repeat(20_000) : 'y',
    })),
  );
  await c.createIndex({ paths: ['kind'] });
  await c.createIndex({ paths: ['n'] });
  await db.close();
  return path.join(dir, 'data.docdb');
}

describe('walkPages', () => {
  it('finds no fault in a sound file and walks its pages', async () => {
    const file = await makeFile();
    const walk = walkPages(file);
    expect(walk.faults).toEqual([]);
    expect(walk.mainDamaged).toBe(false);
    expect(walk.damagedTrees.size).toBe(0);
    const pageSize = fs.readFileSync(file).readUInt32LE(48);
    expect(walk.pagesWalked).toBeGreaterThan(5_000_000 / pageSize / 20);
    expect(walk.pagesWalked).toBeLessThanOrEqual(fs.statSync(file).size / pageSize);
  });

  it('finds a node whose size runs past its page, naming its tree', async () => {
    const file = await makeFile();
    expect(damageDocumentNode(file)).toBe(true);
    const walk = walkPages(file);
    expect(walk.faults[0]?.message).toMatch(/holds \d+ bytes, past the page's end/);
    expect([...walk.damagedTrees]).toHaveLength(1);
    expect(walk.mainDamaged).toBe(false);
  });
});

/** The pages of a file's last committed state, by its meta page. */
function committedPages(file: string): number {
  return (readFileHeader(file).meta?.lastPage ?? 0) + 1;
}

describe('freeListPages', () => {
  it('accounts with the walked pages and the two meta pages for every page of the file', async () => {
    const db = await open(dir);
    const file = db.file;
    const c = db.collection('c');
    await c.createIndex({ paths: ['kind'] });
    const ids: string[] = [];
    for (let round = 0; round < 10; round++) {
      const docs = Array.from({ length: 500 }, (_, i) => ({
        kind: i % 2 === 0 ? 'even' : 'odd',
        text: 'z'.repeat(i % 50 === 0 ? 9_000 : 300),
      }));
      ids.push(...(await c.insertMany(docs)).ids);
    }
    // A large delete frees runs of pages (lists on overflow pages), small ones a few. The
    // newest record holds what the last commit freed.
    await c.deleteMany(ids.splice(0, 3_000));
    const afterLarge = freeListPages(file);
    expect(afterLarge?.lastFreed).toBeGreaterThan(300);
    for (let i = 0; i < 20; i++) await c.delete(ids[i * 7] as string);
    const whileOpen = freeListPages(file);
    expect(whileOpen?.pages).toBeGreaterThan(afterLarge?.lastFreed ?? 0);
    expect(whileOpen?.lastFreed).toBeGreaterThan(0);
    expect(whileOpen?.lastFreed).toBeLessThan(30);
    expect((whileOpen?.pages ?? 0) + walkPages(file).pagesWalked + 2).toBe(committedPages(file));
    const stats = db.stats();
    expect(stats.pages.free).toBe(whileOpen?.pages);
    expect(stats.pages.used).toBe(walkPages(file).pagesWalked + 2);
    await db.close();
    const closed = freeListPages(file);
    expect((closed?.pages ?? 0) + walkPages(file).pagesWalked + 2).toBe(committedPages(file));
  });

  it('says it cannot read a free tree whose root is not where the meta page says', async () => {
    const db = await open(dir);
    const c = db.collection('c');
    const { ids } = await c.insertMany(Array.from({ length: 2_000 }, (_, i) => ({ i })));
    await c.deleteMany(ids);
    await db.close();
    const file = path.join(dir, 'data.docdb');
    const meta = readFileHeader(file).meta;
    if (!meta) throw new Error('no meta page');
    const bytes = fs.readFileSync(file);
    const metaAt = meta.pageNumber * meta.pageSizeBytes;
    const root = Number(bytes.readBigUInt64LE(metaAt + 24 + 24 + 40));
    expect(root).toBeLessThan(committedPages(file));
    bytes.writeBigUInt64LE(BigInt(root + 1), root * meta.pageSizeBytes);
    fs.writeFileSync(file, bytes);
    expect(freeListPages(file)).toBeUndefined();
  });
});

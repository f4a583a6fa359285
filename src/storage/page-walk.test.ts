/**
 * Proves the page walk reads every kind of page docdb's files hold without a false alarm (a
 * value tree of many ids under one index key, documents on overflow pages, sub-pages of a few
 * ids), counts what LMDB counts, and finds a page number pointing past the file's end and a
 * node size running past its page: the faults that make LMDB crash.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { damageDocumentNode } from '../../test/support/damage-page.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { walkPages } from './page-walk.js';

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

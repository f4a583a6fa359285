/**
 * Proves the page check at open: a file whose collection pages are damaged (a node size that
 * would make LMDB copy past its map) is refused with ERR_STORAGE_CORRUPT naming the collection,
 * read-only and for writing, before any read can crash the process; verify still opens it and
 * lists the damage; with the check off the file opens; a sound file opens as before.
 */

import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { damageDocumentNode } from '../../test/support/damage-page.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { isDbError } from '../errors/index.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-open-check-'));
});
afterEach(() => cleanup());

async function makeFile(): Promise<string> {
  const db = await open(dir);
  await db
    .collection('orders')
    .insertMany(
      Array.from({ length: 500 }, (_, i) => ({ n: i, status: i % 3 === 0 ? 'open' : 'closed' })),
    );
  await db.collection('orders').createIndex({ paths: ['status'] });
  await db.collection('notes').insert({ text: 'sound' });
  await db.close();
  return path.join(dir, 'data.docdb');
}

async function openError(options: Parameters<typeof open>[1]): Promise<unknown> {
  try {
    const db = await open(dir, options);
    await db.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('the page check at open', () => {
  it('opens a sound file, for reading and for writing', async () => {
    await makeFile();
    const db = await open(dir);
    expect(db.collection('orders').count()).toBe(500);
    await db.close();
    const reader = await open(dir, { readOnly: true });
    expect(reader.collection('notes').count()).toBe(1);
    await reader.close();
  });

  it('refuses a file with damaged collection pages, naming the collection', async () => {
    await makeFile();
    expect(damageDocumentNode(path.join(dir, 'data.docdb'))).toBe(true);
    for (const options of [{}, { readOnly: true }]) {
      const error = await openError(options);
      expect(isDbError(error) && error.code).toBe('ERR_STORAGE_CORRUPT');
      expect((error as Error).message).toMatch(
        /the pages of collection '(orders|notes)' do not hold together \(.*past the page's end.*\)/,
      );
      expect((error as Error).message).toContain('docdb verify');
    }
    // The writer lock was let go: a later open is refused for the damage, not for the lock.
    const again = await openError({});
    expect(isDbError(again) && again.code).toBe('ERR_STORAGE_CORRUPT');
  });

  it('lets verify open the damaged file and list what is damaged', async () => {
    await makeFile();
    expect(damageDocumentNode(path.join(dir, 'data.docdb'))).toBe(true);
    const db = await open(dir, { readOnly: true, allowDamagedTrees: true });
    try {
      const report = await db.verify();
      expect(report.ok).toBe(false);
      expect(report.problems.some((p) => p.kind === 'pages')).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('opens a damaged file without the walk when the check is off', async () => {
    await makeFile();
    expect(damageDocumentNode(path.join(dir, 'data.docdb'))).toBe(true);
    const db = await open(dir, { readOnly: true, pageCheck: 'off' });
    await db.close();
  });
});

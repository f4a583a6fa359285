/**
 * Proves that a pinned snapshot stays the reader it was pinned as while the writer opens
 * trees. lmdb-js ends its current read transaction whenever a tree is opened in a write, and
 * makes a pinned one current again after a read when nothing was committed since: a pin that
 * stayed lmdb-js's current transaction was ended under its holder (a stream's next read
 * failed with MDB_BAD_TXN; a checkpoint's pages were no longer kept from reuse).
 */

import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Env, envStats, openEnv, openSubDb, pinSnapshot, type SubDb } from './lmdb-env.js';

let cleanup: () => void;
let env: Env;
let tree: SubDb;
const KEY = Buffer.from('k');

beforeEach(() => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir('docdb-lmdb-env-'));
  env = openEnv(path.join(dir, 'data.docdb'), false);
  tree = openSubDb(env, 'a', true);
  tree.putSync(KEY, Buffer.from('pinned'));
});
afterEach(async () => {
  await env.close();
  cleanup();
});

/** The transaction ids of the readers in the lock file's table. */
function readerTxnIds(): number[] {
  return env
    .readerList()
    .split('\n')
    .slice(1)
    .map((line) => Number(line.trim().split(/\s+/)[2]))
    .filter((id) => Number.isInteger(id));
}

/** Opens a new tree inside a write transaction, as a batch that makes an index does. */
function openTreeInWrite(name: string): void {
  env.transactionSync(() => {
    openSubDb(env, name, true);
  });
}

describe('a pinned snapshot', () => {
  for (const when of ['in the same turn', 'after a read in a later turn'] as const) {
    it(`keeps its transaction when a write opens a tree ${when}`, async () => {
      const pinnedTxn = envStats(env).lastTxnId;
      const pin = pinSnapshot(env);
      if (when !== 'in the same turn') {
        await new Promise((resolve) => setTimeout(resolve, 5));
        // A read with nothing committed since the pin: lmdb-js's current transaction again.
        expect(tree.getBinary(KEY)?.toString()).toBe('pinned');
      }
      openTreeInWrite('b');
      expect(readerTxnIds()).toContain(pinnedTxn);
      tree.putSync(KEY, Buffer.from('later'));
      openTreeInWrite('c');
      expect(pin.get(tree, KEY)?.toString()).toBe('pinned');
      expect([...pin.range(tree, {})].map(({ value }) => value.toString())).toEqual(['pinned']);
      expect(readerTxnIds()).toContain(pinnedTxn);
      pin.release();
      expect(readerTxnIds()).not.toContain(pinnedTxn);
      expect(tree.getBinary(KEY)?.toString()).toBe('later');
    });
  }

  it('leaves lmdb-js reading the latest state, and a second pin its own', async () => {
    const first = pinSnapshot(env);
    tree.putSync(KEY, Buffer.from('second'));
    const second = pinSnapshot(env);
    openTreeInWrite('b');
    tree.putSync(KEY, Buffer.from('third'));
    expect(tree.getBinary(KEY)?.toString()).toBe('third');
    expect(first.get(tree, KEY)?.toString()).toBe('pinned');
    expect(second.get(tree, KEY)?.toString()).toBe('second');
    first.release();
    expect(second.get(tree, KEY)?.toString()).toBe('second');
    second.release();
  });
});

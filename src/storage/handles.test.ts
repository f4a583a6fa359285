/**
 * Proves that the handles of dropped trees are let go of, in lmdb-js's own registry too: a
 * node that creates and drops collections and indexes for as long as it runs (tree names are
 * never reused) must not hold a handle, and its buffers, for every tree it ever opened.
 */

import * as lmdb from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-handles-'));
});
afterEach(() => cleanup());

/** The trees of files named data.docdb that lmdb-js still holds a handle of. */
function registered(): string[] {
  const registry = (lmdb as unknown as { allDbs: Map<string, unknown> }).allDbs;
  return [...registry.keys()].filter((key) => /^data-[ci]\d+$/.test(key));
}

describe('handles of dropped trees', () => {
  it('are let go of, so creating and dropping collections does not pile them up', async () => {
    const db = await open(dir);
    try {
      const before = registered().length;
      for (let round = 0; round < 50; round++) {
        const c = db.collection(`t${round}`);
        await c.insert({ k: round });
        await c.createIndex({ paths: ['k'] });
        expect(c.findBy('k', round).documents).toHaveLength(1);
        await db.dropCollection(`t${round}`);
      }
      // 50 collections and 50 indexes were opened; none of them is left.
      expect(registered().length - before).toBeLessThanOrEqual(2);
    } finally {
      await db.close();
    }
  });
});

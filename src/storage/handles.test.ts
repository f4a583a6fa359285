/**
 * Proves that the handles of dropped trees are let go of, in lmdb-js's own registry too: a
 * node that creates and drops collections and indexes for as long as it runs (tree names are
 * never reused) must not hold a handle, and its buffers, for every tree it ever opened; and
 * that a tree made with a compression dictionary is opened with it right after its making.
 */

import * as path from 'node:path';
import * as lmdb from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { type Dictionary, makeDictionary } from './dictionary.js';
import { Handles, noStagedHandles } from './handles.js';

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

describe('a collection tree made with a dictionary', () => {
  it('is opened with it by every handle, a scan handle opened after its making too', async () => {
    const handles = new Handles(path.join(dir, 'data.docdb'), false);
    try {
      const record = Buffer.from(
        `\x45${'the same values, again and again, in every record: '.repeat(4)}`,
      );
      const dictionary = makeDictionary([record]) as Dictionary;
      expect(handles.dictionary('c1')).toBeUndefined();
      const staged = noStagedHandles();
      handles.env.transactionSync(() => {
        handles.create('c2', staged, dictionary).putSync(Buffer.from('k'), record);
      });
      handles.commit(staged);
      const stored = handles.catalog.getBinary(Buffer.from('dictionary/c2'));
      expect(stored?.subarray(1)).toEqual(dictionary.bytes);
      const { db, visitor, step } = handles.scan('c2');
      const seen: Buffer[] = [];
      visitor.visit = (bytes, size) => seen.push(Buffer.from(bytes.subarray(0, size)));
      const entries = db.getRange({ start: Buffer.from([0]) })[Symbol.iterator]();
      while (!step(entries).done) {}
      expect(seen).toEqual([record]);
      expect(handles.dictionary('c2')?.samples).toBe(1);
    } finally {
      await handles.close();
    }
  });
});

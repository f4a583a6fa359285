/**
 * Proves that a streamed SELECT reads its snapshot to the end while the writer makes and
 * drops trees under it: an index created, the collection compacted. Each used to end the
 * stream's read transaction (MDB_BAD_TXN) and crash the process when the stream's cursor
 * closed; a tree dropped while a snapshot reads it is deleted by a later write.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { Document } from '../types/index.js';
import { isJsonLines } from '../util/index.js';
import { type Database, open } from './index.js';

let dir: string;
let cleanup: () => void;
let db: Database;

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir('docdb-stream-'));
  db = await open(dir);
});
afterEach(async () => {
  await db.close();
  cleanup();
});

/** Documents large enough to fill several NDJSON chunks. */
function documents(from: number, count: number): Document[] {
  return Array.from({ length: count }, (_, k) => ({
    i: from + k,
    text: `words that repeat in every document of the collection, ${from + k}`,
    pad: 'p'.repeat(300),
  }));
}

/** Streams `SELECT * FROM s` as NDJSON, running `meanwhile` after the first chunk. */
async function streamWhile(meanwhile: () => Promise<unknown>): Promise<number[]> {
  const stream = db.queryStream('SELECT * FROM s', [], { rows: 'ndjson' });
  await stream.next();
  let text = '';
  let chunks = 0;
  for await (const item of stream) {
    if (!isJsonLines(item)) throw new Error('a row came as an object, not as NDJSON lines');
    text += Buffer.from(item.bytes).toString('utf8');
    if (++chunks === 1) await meanwhile();
  }
  expect(chunks).toBeGreaterThan(1);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { i: number }).i);
}

const ALL = Array.from({ length: 999 }, (_, i) => i);

describe('a streamed SELECT', () => {
  it('reads to the end while an index is created on its collection', async () => {
    await db.collection('s').insertMany(documents(0, 999));
    expect(await streamWhile(() => db.createIndex({ collection: 's', paths: ['i'] }))).toEqual(ALL);
  });

  it('reads to the end while its collection is compacted, whose old tree a later write deletes', async () => {
    await db.collection('s').insertMany(documents(0, 999));
    const before = db.store.getCollection('s')?.dbName;
    expect(await streamWhile(() => db.compact('s'))).toEqual(ALL);
    expect(db.store.getCollection('s')?.dbName).not.toBe(before);
    await db.collection('other').insert({ after: true });
    expect((await db.query('SELECT COUNT(*) AS n FROM s')).documents).toEqual([{ n: 999 }]);
    expect((await db.verify()).problems).toEqual([]);
  });
});

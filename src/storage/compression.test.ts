/**
 * Proves documents stored compressed (dictionary.ts, docs/adr/0032) on real files: the first
 * documents of an empty collection give its tree a dictionary and later documents are stored
 * compressed; every read (by id, a query, a scan, an NDJSON stream, a read-only open) answers
 * the documents as written; a tree made before (no dictionary) keeps its documents readable
 * and a compaction compresses them; a damaged compressed document is reported, never answered
 * with another document's bytes.
 */

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { open as lmdbOpen } from 'lmdb';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { isDbError } from '../errors/index.js';
import { isJsonLines, rowJson } from '../util/index.js';
import { DATA_FILE_NAME } from './index.js';

const tempDir = tempDirPerTest();

/** An order-like document: repeated values a dictionary holds, and a few that differ. */
function order(i: number): Record<string, unknown> {
  return {
    pnr: `P${String(i).padStart(6, '0')}`,
    status: ['confirmed', 'ticketed', 'pending'][i % 3],
    passengers: [{ firstName: 'Ada', lastName: `Lovelace${i % 17}` }],
    flights: [
      {
        from: 'LHR',
        to: 'JFK',
        departs: `2026-05-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z`,
      },
    ],
    fare: { currency: 'EUR', total: 100 + (i % 500) },
    contact: { email: `ada${i}@example.com`, phone: '+44 20 7946 0000' },
    notes: 'window seat requested, vegetarian meal, frequent flyer gold',
  };
}

/** The stored bytes of every document of a collection, read with lmdb-js alone. */
async function storedBytes(dir: string, tree: string): Promise<Buffer[]> {
  const env = lmdbOpen<Buffer, Buffer>({
    path: path.join(dir, DATA_FILE_NAME),
    noSubdir: true,
    maxDbs: 16,
    readOnly: true,
    keyEncoding: 'binary',
    encoding: 'binary',
  });
  const db = env.openDB<Buffer, Buffer>(tree, { keyEncoding: 'binary', encoding: 'binary' });
  const values = [...db.getRange({})].map((entry) => Buffer.from(entry.value));
  await env.close();
  return values;
}

/** How many documents a tree's dictionary was made from (0: it has none), read with lmdb-js. */
async function dictionarySamples(dir: string, tree: string): Promise<number> {
  const env = lmdbOpen<Buffer, Buffer>({
    path: path.join(dir, DATA_FILE_NAME),
    noSubdir: true,
    maxDbs: 16,
    readOnly: true,
    keyEncoding: 'binary',
    encoding: 'binary',
  });
  const catalog = env.openDB<Buffer, Buffer>('catalog', {
    keyEncoding: 'binary',
    encoding: 'binary',
  });
  const stored = catalog.getBinary(Buffer.from(`dictionary/${tree}`));
  await env.close();
  return stored?.[0] ?? 0;
}

/** A whole-collection SELECT streamed as NDJSON, parsed line by line. */
async function streamed(db: Database, sql: string): Promise<unknown[]> {
  const stream = db.queryStream(sql, [], { rows: 'ndjson' });
  await stream.next();
  let text = '';
  for await (const item of stream) {
    if (!isJsonLines(item)) throw new Error('a row came as an object, not as NDJSON lines');
    text += Buffer.from(item.bytes).toString('utf8');
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** Every document of a collection by `_id`. */
function byId(db: Database, collection: string, ids: readonly string[]): Promise<unknown[]> {
  return Promise.all(ids.map((id) => db.collection(collection).get(id)));
}

function treeOf(db: Database, collection: string): string {
  const def = db.store.getCollection(collection);
  if (!def) throw new Error(`no collection ${collection}`);
  return def.dbName;
}

/** LZ4's frame as lmdb-js writes it: 254, then the length in three bytes. */
function compressed(bytes: Buffer): boolean {
  return bytes[0] === 254;
}

describe('documents stored compressed', () => {
  it('are compressed from the first write of an empty collection and read back as written', async () => {
    const dir = tempDir();
    const db = await open(dir);
    const docs = Array.from({ length: 500 }, (_, i) => order(i));
    const ids = (await db.collection('orders').insertMany(docs.slice(0, 250))).ids;
    for (const doc of docs.slice(250)) ids.push(await db.collection('orders').insert(doc));
    await db.createIndex({ collection: 'orders', paths: ['status'] });
    const tree = treeOf(db, 'orders');
    const orders = db.collection('orders');

    const expected: Array<Record<string, unknown>> = docs.map((doc, i) => ({
      _id: ids[i],
      ...doc,
    }));
    expect(await byId(db, 'orders', ids)).toEqual(expected);
    expect([...orders.scan()]).toEqual(expected);
    const pending = await db.query('SELECT * FROM orders WHERE status = ?', ['pending']);
    expect(pending.documents).toEqual(expected.filter((doc) => doc.status === 'pending'));
    expect(await streamed(db, 'SELECT * FROM orders')).toEqual(expected);
    const tagged = await orders.getTaggedJson(ids[7] as string);
    expect(JSON.parse(rowJson(tagged?.doc))).toEqual(expected[7]);
    await db.close();

    const stored = await storedBytes(dir, tree);
    expect(stored).toHaveLength(500);
    expect(stored.every(compressed)).toBe(true);

    const reader = await open(dir, { readOnly: true });
    expect([...reader.collection('orders').scan()]).toEqual(expected);
    await reader.close();
    const again = await open(dir);
    const later = await again.collection('orders').insert(order(500));
    expect(await again.collection('orders').get(later)).toEqual({ _id: later, ...order(500) });
    await again.close();
  });

  it('take less room than the same documents uncompressed', async () => {
    const dir = tempDir();
    const db = await open(dir);
    // The first write of `plain` is too small to compress: its tree gets no dictionary (and
    // it stays under the 1,000 documents that would give it one).
    await db.collection('plain').insert({ n: 1 });
    const docs = Array.from({ length: 900 }, (_, i) => order(i));
    await db.collection('plain').insertMany(docs);
    await db.collection('packed').insertMany(docs);
    const [plain, packed] = [treeOf(db, 'plain'), treeOf(db, 'packed')];
    await db.close();
    const plainBytes = (await storedBytes(dir, plain)).slice(1);
    const packedBytes = await storedBytes(dir, packed);
    expect(plainBytes.some(compressed)).toBe(false);
    const sum = (values: Buffer[]) => values.reduce((total, value) => total + value.length, 0);
    expect(sum(packedBytes)).toBeLessThan(sum(plainBytes) * 0.75);
  });

  it('leave small and incompressible documents readable', async () => {
    const db = await open(tempDir());
    const docs = [
      order(1),
      { tiny: true },
      { noise: crypto.randomBytes(3_000).toString('base64') },
      { big: 'docdb '.repeat(20_000) },
    ];
    const ids = (await db.collection('mixed').insertMany(docs)).ids;
    expect(await byId(db, 'mixed', ids)).toEqual(docs.map((doc, i) => ({ _id: ids[i], ...doc })));
    await db.close();
  });
});

describe('a collection tree made without a dictionary', () => {
  it('keeps its documents readable, and a compaction compresses them', async () => {
    const dir = tempDir();
    const db = await open(dir);
    await db.collection('old').insert({ n: 0 });
    const docs = Array.from({ length: 900 }, (_, i) => order(i));
    const ids = (await db.collection('old').insertMany(docs)).ids;
    const before = treeOf(db, 'old');
    const result = await db.compact('old');
    expect(result.pagesAfter).toBeLessThan(result.pagesBefore);
    const after = treeOf(db, 'old');
    expect(after).not.toBe(before);
    expect(await byId(db, 'old', ids)).toEqual(docs.map((doc, i) => ({ _id: ids[i], ...doc })));
    expect([...db.collection('old').scan()]).toHaveLength(901);
    await db.close();
    const stored = await storedBytes(dir, after);
    expect(stored.filter(compressed)).toHaveLength(900);
  });
});

describe('a collection reaching 1,000 documents', () => {
  it('is rewritten with a dictionary of eight when its own came from fewer, or it had none', async () => {
    const dir = tempDir();
    const db = await open(dir);
    // One insert at a time: the first dictionary is made from one document.
    const one = db.collection('one');
    const oneIds = [await one.insert(order(0))];
    const oneFirst = treeOf(db, 'one');
    // A small first document: no dictionary at all.
    const small = db.collection('small');
    const smallIds = [await small.insert({ n: 0 })];
    const smallFirst = treeOf(db, 'small');
    for (let i = 1; i < 999; i += 1) oneIds.push(await one.insert(order(i)));
    smallIds.push(...(await small.insertMany(Array.from({ length: 998 }, (_, i) => order(i)))).ids);
    // 999 documents each: not yet.
    expect([treeOf(db, 'one'), treeOf(db, 'small')]).toEqual([oneFirst, smallFirst]);
    oneIds.push(await one.insert(order(999)));
    smallIds.push(await small.insert(order(999)));
    const [oneTree, smallTree] = [treeOf(db, 'one'), treeOf(db, 'small')];
    expect(oneTree).not.toBe(oneFirst);
    expect(smallTree).not.toBe(smallFirst);
    expect(await byId(db, 'one', oneIds)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => ({ _id: oneIds[i], ...order(i) })),
    );
    expect(await byId(db, 'small', smallIds)).toEqual([
      { _id: smallIds[0], n: 0 },
      ...Array.from({ length: 999 }, (_, i) => ({
        _id: smallIds[i + 1],
        ...order(i === 998 ? 999 : i),
      })),
    ]);
    // Past 1,000 the tree stays.
    await one.insert(order(1_000));
    expect(treeOf(db, 'one')).toBe(oneTree);
    await db.close();
    expect(await dictionarySamples(dir, oneFirst)).toBe(0);
    expect(await dictionarySamples(dir, oneTree)).toBe(8);
    expect(await dictionarySamples(dir, smallTree)).toBe(8);
    const stored = await storedBytes(dir, smallTree);
    expect(stored.filter(compressed)).toHaveLength(999);
  });
});

describe('a damaged compressed document', () => {
  it('is reported as damage, not answered with the bytes of the document read before it', async () => {
    const dir = tempDir();
    const db = await open(dir);
    const ids = (await db.collection('orders').insertMany([order(1), order(2)])).ids as string[];
    const tree = treeOf(db, 'orders');
    await db.close();
    // Damage the second document's compressed bytes where LMDB keeps them.
    const env = lmdbOpen<Buffer, Buffer>({
      path: path.join(dir, DATA_FILE_NAME),
      noSubdir: true,
      maxDbs: 16,
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const raw = env.openDB<Buffer, Buffer>(tree, { keyEncoding: 'binary', encoding: 'binary' });
    const [, second] = [...raw.getRange({})];
    const damaged = Buffer.from(second?.value as Buffer);
    expect(compressed(damaged)).toBe(true);
    damaged.fill(0xff, 4);
    env.transactionSync(() => raw.putSync(second?.key as Buffer, damaged));
    await env.close();

    const reopened = await open(dir);
    const orders = reopened.collection('orders');
    expect(await orders.get(ids[0] as string)).toEqual({ _id: ids[0], ...order(1) });
    const read = async (what: () => unknown) => {
      try {
        await what();
        return undefined;
      } catch (error) {
        return isDbError(error) ? error.code : error;
      }
    };
    expect(await read(() => orders.get(ids[1] as string))).toBe('ERR_STORAGE_CORRUPT');
    expect(await read(() => orders.getTaggedJson(ids[1] as string))).toBe('ERR_STORAGE_CORRUPT');
    expect(await read(() => [...orders.scan()])).toBe('ERR_STORAGE_CORRUPT');
    expect(await read(() => streamed(reopened, 'SELECT * FROM orders'))).toBe(
      'ERR_STORAGE_CORRUPT',
    );
    await reopened.close();
  });
});

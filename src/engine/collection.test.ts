/**
 * Proves the embedded API's document operations on a real LMDB file: insert (generated and
 * client-supplied ids), get, replace, delete, list, bulk insert with per-item errors and
 * atomic rollback, collections created on first insert, case folding, drop, and the typed
 * errors for every kind of bad input, with nothing written on failure.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { isDbError } from '../errors/index.js';
import { DOCUMENT_BYTES_MAX, DOCUMENT_DEPTH_MAX, LIST_LIMIT_DEFAULT } from '../util/index.js';
import { type Database, open } from './index.js';

let db: Database;
let cleanup: () => void;

beforeEach(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  db = await open(temp.dir);
});

afterEach(async () => {
  await db.close();
  cleanup();
});

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isDbError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a rejection');
}

function thrown(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isDbError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a throw');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('insert and get', () => {
  it('returns a UUIDv7 id and stores the document with nested values', async () => {
    const orders = db.collection('orders');
    const doc = { pnr: 'ABC123', fare: { total: 99.5 }, passengers: [{ name: 'Ada' }], ok: true };
    const id = await orders.insert(doc);
    expect(id).toMatch(UUID);
    expect(await orders.get(id)).toEqual({ _id: id, ...doc });
  });

  it('gives strictly increasing ids', async () => {
    const orders = db.collection('orders');
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push(await orders.insert({ i }));
    expect([...ids].sort()).toEqual(ids);
    const many = await orders.insertMany(Array.from({ length: 500 }, (_, i) => ({ i })));
    expect([...many.ids].sort()).toEqual(many.ids);
    expect((many.ids[0] as string) > (ids[49] as string)).toBe(true);
  });

  it('keeps a client-supplied UUID _id, dashed or not, in canonical form', async () => {
    const orders = db.collection('orders');
    const given = '0193A4F2-7C1E-7D3A-9B2E-4F6A8C0D1E2F';
    const id = await orders.insert({ _id: given, pnr: 'X' });
    expect(id).toBe(given.toLowerCase());
    expect(await orders.get('0193a4f27c1e7d3a9b2e4f6a8c0d1e2f')).toEqual({ _id: id, pnr: 'X' });
  });

  it('rejects an _id that is not a UUID, and a duplicate _id, writing nothing', async () => {
    const orders = db.collection('orders');
    for (const bad of ['abc', 42, null, { x: 1 }, '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2']) {
      const error = await rejection(orders.insert({ _id: bad, pnr: 'X' }));
      expect(error.code).toBe('ERR_DOCUMENT_ID_INVALID');
      expect(error.message).toContain('not a UUID');
    }
    const id = await orders.insert({ pnr: 'A' });
    const dup = await rejection(orders.insert({ _id: id, pnr: 'B' }));
    expect(dup.code).toBe('ERR_DOCUMENT_ID_EXISTS');
    expect(orders.count()).toBe(1);
    expect(await orders.get(id)).toEqual({ _id: id, pnr: 'A' });
  });

  it('returns undefined for an unknown id and rejects a malformed one', async () => {
    const orders = db.collection('orders');
    await orders.insert({ a: 1 });
    expect(await orders.get('0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f')).toBeUndefined();
    expect((await rejection(orders.get('nope'))).code).toBe('ERR_DOCUMENT_ID_INVALID');
  });

  it('creates the collection on first insert, and folds names to lowercase', async () => {
    expect(db.collections()).toEqual([]);
    const id = await db.collection('Bookings.EU-west_1').insert({ a: 1 });
    expect(db.collections()).toEqual(['bookings.eu-west_1']);
    expect(await db.collection('BOOKINGS.eu-WEST_1').get(id)).toEqual({ _id: id, a: 1 });
  });
});

describe('bad documents and names', () => {
  const cases: Array<[string, unknown, string]> = [
    ['an array', [1, 2], 'not an array'],
    ['null', null, 'not null'],
    ['a string', 'text', 'not a string'],
    ['a number', 5, 'not a number'],
    ['NaN', { n: Number.NaN }, "field 'n'"],
    ['Infinity', { deep: { n: Number.POSITIVE_INFINITY } }, "field 'deep.n'"],
    ['undefined', { u: undefined }, "field 'u'"],
    ['a Date', { when: new Date() }, 'ISO 8601'],
    ['a function', { f: () => 1 }, "field 'f'"],
    ['a bigint', { b: 10n }, 'bigint'],
    ['a Map', { m: new Map() }, "field 'm'"],
    ['__proto__', JSON.parse('{"__proto__": {"x": 1}}'), '__proto__'],
  ];
  for (const [what, doc, fragment] of cases) {
    it(`rejects ${what} with ERR_DOCUMENT_INVALID naming the problem`, async () => {
      const error = await rejection(db.collection('c').insert(doc));
      expect(error.code).toBe('ERR_DOCUMENT_INVALID');
      expect(error.message).toContain(fragment);
      expect(db.collections()).toEqual([]);
    });
  }

  it('accepts nesting at the depth limit and rejects one level more', async () => {
    const nest = (levels: number): Record<string, unknown> => {
      let doc: Record<string, unknown> = { leaf: 1 };
      for (let i = 1; i < levels; i++) doc = { d: doc };
      return doc;
    };
    await db.collection('c').insert(nest(DOCUMENT_DEPTH_MAX));
    const error = await rejection(db.collection('c').insert(nest(DOCUMENT_DEPTH_MAX + 1)));
    expect(error.code).toBe('ERR_DOCUMENT_INVALID');
    expect(error.message).toContain(`deeper than ${DOCUMENT_DEPTH_MAX}`);
  });

  it('accepts a document just under the size limit and rejects one over it', async () => {
    // The exact boundary is proven in storage/store.test.ts, where the stored size is visible.
    const id = await db.collection('big').insert({ s: 'x'.repeat(DOCUMENT_BYTES_MAX - 64) });
    const stored = await db.collection('big').get(id);
    expect(String(stored?.s).length).toBe(DOCUMENT_BYTES_MAX - 64);
    const error = await rejection(
      db.collection('big').insert({ s: 'x'.repeat(DOCUMENT_BYTES_MAX) }),
    );
    expect(error.code).toBe('ERR_DOCUMENT_TOO_LARGE');
    expect(db.collection('big').count()).toBe(1);
  });

  it('rejects invalid collection names with ERR_COLLECTION_NAME_INVALID', () => {
    for (const name of ['', 'has space', 'slash/y', 'q"uote', 'é', 'x'.repeat(129)]) {
      const error = thrown(() => db.collection(name));
      expect(error.code).toBe('ERR_COLLECTION_NAME_INVALID');
    }
    expect(thrown(() => db.collection('a b')).message).toContain("contains ' '");
    expect(() => db.collection('x'.repeat(128))).not.toThrow();
    // A JOIN nests each document under its collection's name, a key this one cannot be.
    for (const name of ['__proto__', '__PROTO__']) {
      expect(thrown(() => db.collection(name)).message).toContain(`'${name}' is reserved`);
    }
    expect(() => db.collection('constructor')).not.toThrow();
  });
});

describe('replace and delete', () => {
  it('replace keeps the _id and swaps the body', async () => {
    const c = db.collection('c');
    const id = await c.insert({ a: 1, b: 2 });
    await c.replace(id, { a: 5 });
    expect(await c.get(id)).toEqual({ _id: id, a: 5 });
    await c.replace(id, { _id: id, a: 6 });
    expect(await c.get(id)).toEqual({ _id: id, a: 6 });
  });

  it('replace rejects a missing id, a different _id, and a bad document', async () => {
    const c = db.collection('c');
    const id = await c.insert({ a: 1 });
    const missing = '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f';
    expect((await rejection(c.replace(missing, { a: 2 }))).code).toBe('ERR_DOCUMENT_NOT_FOUND');
    expect((await rejection(c.replace(id, { _id: missing, a: 2 }))).code).toBe(
      'ERR_DOCUMENT_ID_INVALID',
    );
    expect((await rejection(c.replace(id, [1]))).code).toBe('ERR_DOCUMENT_INVALID');
    expect(await c.get(id)).toEqual({ _id: id, a: 1 });
  });

  it('delete removes the document and reports whether it existed', async () => {
    const c = db.collection('c');
    const id = await c.insert({ a: 1 });
    expect(await c.delete(id)).toBe(true);
    expect(await c.get(id)).toBeUndefined();
    expect(await c.delete(id)).toBe(false);
    expect(c.count()).toBe(0);
  });
});

describe('conditional replace and delete (ifMatch)', () => {
  it('of two writers holding the same tag, exactly one wins; the loser changes nothing', async () => {
    const orders = db.collection('orders');
    const id = await orders.insert({ n: 0 });
    const read = await orders.getTagged(id);
    const tag = read?.tag as string;
    // Both written in one batch: the second sees the first's write in the same transaction.
    const outcomes = await Promise.allSettled([
      orders.replace(id, { n: 1 }, { ifMatch: tag }),
      orders.replace(id, { n: 2 }, { ifMatch: tag }),
      orders.delete(id, { ifMatch: tag }),
      orders.insert({ other: true }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason.code).toBe('ERR_DOCUMENT_CHANGED');
    expect(await orders.get(id)).toEqual({ _id: id, n: 1 });
    expect(orders.count()).toBe(2);
  });

  it('a tag read beside other writes matches the one the write checks', async () => {
    const orders = db.collection('orders');
    const { ids } = await orders.insertMany(
      Array.from({ length: 200 }, (_, i) => ({ pnr: `P${i}`, note: 'x'.repeat(i * 7) })),
    );
    let stop = false;
    const writer = (async () => {
      for (let n = 0; !stop; n++) {
        const i = 100 + (n % 100);
        await orders.replace(ids[i] as string, { pnr: `P${i}`, n, note: 'y'.repeat(n % 900) });
      }
    })();
    const refused: string[] = [];
    for (const id of ids.slice(0, 100)) {
      const read = await orders.getTagged(id);
      await orders.delete(id, { ifMatch: read?.tag as string }).catch((error: Error) => {
        refused.push(error.message);
      });
    }
    stop = true;
    await writer;
    expect(refused).toEqual([]);
    expect(orders.count()).toBe(100);
  });

  it('a small document read just after a larger one has its own tag, in either form', async () => {
    const orders = db.collection('orders');
    const large = await orders.insert({ note: 'x'.repeat(5000) });
    const small = await orders.insert({ n: 1 });
    const alone = (await orders.getTagged(small))?.tag;
    await orders.getTagged(large);
    const afterLarge = (await orders.getTagged(small))?.tag as string;
    await orders.getTaggedJson(large);
    const jsonAfterLarge = (await orders.getTaggedJson(small))?.tag;
    expect(afterLarge).toBe(alone);
    expect(jsonAfterLarge).toBe(alone);
    expect(await orders.delete(small, { ifMatch: afterLarge })).toBe(true);
  });

  it('a tag follows content: unchanged by reads, changed by a replace; a missing document is false', async () => {
    const orders = db.collection('orders');
    const id = await orders.insert({ n: 0 });
    const before = (await orders.getTagged(id))?.tag;
    expect((await orders.getTagged(id))?.tag).toBe(before);
    await orders.replace(id, { n: 1 });
    const after = (await orders.getTagged(id))?.tag as string;
    expect(after).not.toBe(before);
    expect(await orders.delete(id, { ifMatch: after })).toBe(true);
    expect(await orders.delete(id, { ifMatch: after })).toBe(false);
    expect(await orders.getTagged(id)).toBeUndefined();
  });
});

describe('list and scan', () => {
  it('lists in id order with a default limit, a limit and a cursor', async () => {
    const c = db.collection('c');
    const { ids } = await c.insertMany(Array.from({ length: 150 }, (_, i) => ({ i })));
    expect(c.list().length).toBe(LIST_LIMIT_DEFAULT);
    expect(c.list({ limit: 3 }).map((d) => d._id)).toEqual(ids.slice(0, 3));
    expect(c.list({ limit: 2, after: ids[10] }).map((d) => d._id)).toEqual(ids.slice(11, 13));
    expect(c.list({ limit: 0 })).toEqual([]);
    expect([...c.scan()].length).toBe(150);
    expect(thrown(() => c.list({ limit: -1 })).code).toBe('ERR_BAD_ARGUMENT');
    expect(thrown(() => c.list({ limit: 1.5 })).code).toBe('ERR_BAD_ARGUMENT');
  });

  it('lists nothing for a collection that does not exist', () => {
    expect(db.collection('ghost').list()).toEqual([]);
    expect(db.collection('ghost').count()).toBe(0);
  });
});

describe('bulk insert', () => {
  it('reports per-item errors by position and inserts the rest', async () => {
    const c = db.collection('c');
    await c.createIndex({ paths: ['k'], unique: true });
    const result = await c.insertMany([{ k: 1 }, 'bad', { k: 1 }, { k: 2 }, { _id: 'x' }]);
    expect(result.ids.length).toBe(2);
    expect(result.errors.map((e) => [e.index, e.code])).toEqual([
      [1, 'ERR_DOCUMENT_INVALID'],
      [2, 'ERR_UNIQUE_VIOLATION'],
      [4, 'ERR_DOCUMENT_ID_INVALID'],
    ]);
    expect(c.count()).toBe(2);
  });

  it('atomic: any failure writes nothing and reports every failure', async () => {
    const c = db.collection('c');
    await c.createIndex({ paths: ['k'], unique: true });
    await c.insert({ k: 0 });
    const result = await c.insertMany([{ k: 1 }, { k: 0 }, { k: 2 }, 7], { atomic: true });
    expect(result.ids).toEqual([]);
    expect(result.errors.map((e) => e.index)).toEqual([1, 3]);
    expect(c.count()).toBe(1);
    expect(c.findBy('k', 1).documents).toEqual([]);
    const ok = await c.insertMany([{ k: 1 }, { k: 2 }], { atomic: true });
    expect(ok.ids.length).toBe(2);
    expect(c.count()).toBe(3);
  });

  it('rejects duplicate client ids inside one batch', async () => {
    const id = '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f';
    const result = await db.collection('c').insertMany([{ _id: id }, { _id: id }]);
    expect(result.ids).toEqual([id]);
    expect(result.errors[0]?.code).toBe('ERR_DOCUMENT_ID_EXISTS');
  });

  it('rejects a non-array and more documents than the limit', async () => {
    const c = db.collection('c');
    expect((await rejection(c.insertMany({} as unknown as unknown[]))).code).toBe(
      'ERR_BAD_ARGUMENT',
    );
    const { BULK_DOCUMENTS_MAX } = await import('../util/index.js');
    const tooMany = Array.from({ length: BULK_DOCUMENTS_MAX + 1 }, () => ({}));
    expect((await rejection(c.insertMany(tooMany))).code).toBe('ERR_BULK_TOO_LARGE');
    expect(c.count()).toBe(0);
  });

  it('accepts exactly the bulk limit', async () => {
    const { BULK_DOCUMENTS_MAX } = await import('../util/index.js');
    const result = await db
      .collection('c')
      .insertMany(Array.from({ length: BULK_DOCUMENTS_MAX }, (_, i) => ({ i })));
    expect(result.ids.length).toBe(BULK_DOCUMENTS_MAX);
    expect(db.collection('c').count()).toBe(BULK_DOCUMENTS_MAX);
  });
});

describe('drop', () => {
  it('drops a collection with its indexes; a second drop finds none', async () => {
    const c = db.collection('Gone');
    await c.insert({ a: 1 });
    await c.createIndex({ paths: ['a'] });
    expect(await db.dropCollection('GONE')).toEqual({ dropped: 'gone' });
    expect(db.collections()).toEqual([]);
    await expect(db.dropCollection('gone')).rejects.toMatchObject({
      code: 'ERR_COLLECTION_NOT_FOUND',
    });
    expect(await c.drop()).toBe(false);
    const id = await c.insert({ a: 2 });
    expect(c.listIndexes()).toEqual([]);
    expect(c.list()).toEqual([{ _id: id, a: 2 }]);
  });

  it('names known collections when one is required but unknown', async () => {
    await db.collection('orders').insert({ a: 1 });
    const error = thrown(() => db.requireCollection('ordres'));
    expect(error.code).toBe('ERR_COLLECTION_NOT_FOUND');
    expect(error.message).toContain("'ordres'");
    expect(error.message).toContain('orders');
  });
});

describe('deleteMany', () => {
  it('deletes the given ids in one write and counts those that existed', async () => {
    const c = db.collection('c');
    const { ids } = await c.insertMany([{ a: 1 }, { a: 2 }, { a: 3 }]);
    const absent = '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f';
    expect(await c.deleteMany([ids[0] as string, ids[2] as string, absent])).toBe(2);
    expect(c.list().map((d) => d.a)).toEqual([2]);
    await expect(c.deleteMany(['bad'])).rejects.toMatchObject({ code: 'ERR_DOCUMENT_ID_INVALID' });
    expect(c.count()).toBe(1);
  });
});

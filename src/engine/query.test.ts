/**
 * Proves the query entry points of the embedded API: `db.query` result shapes for reads and
 * writes, `?` parameters and their errors, the SQL length limit, and `db.queryStream`: meta
 * first with the final count, documents one at a time from one snapshot (writes landing
 * meanwhile do not change what the stream returns), ORDER BY/LIMIT/OFFSET, early stop, and
 * the warning for a double-quoted path (a field name, not a string) that no document has.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import {
  BULK_DOCUMENTS_MAX,
  QUOTED_FIELD_SCAN_DOCUMENTS_MAX,
  SQL_CHARS_MAX,
} from '../util/index.js';
import { type Database, open, type QueryMeta } from './index.js';

let db: Database;
let cleanup: () => void;

beforeEach(async () => {
  const temp = makeTempDir();
  cleanup = temp.cleanup;
  db = await open(temp.dir);
  await db
    .collection('t')
    .insertMany(Array.from({ length: 50 }, (_, i) => ({ i, even: i % 2 === 0 })));
  await db.collection('t').createIndex({ paths: ['i'], name: 'by_i', unique: true });
});

afterEach(async () => {
  await db.close();
  cleanup();
});

async function collect(stream: AsyncGenerator<unknown>): Promise<[QueryMeta, unknown[]]> {
  const items: unknown[] = [];
  for await (const item of stream) items.push(item);
  return [items[0] as QueryMeta, items.slice(1)];
}

describe('db.query', () => {
  it('answers reads with plan, count, executionMs and documents', async () => {
    const r = await db.query('SELECT i FROM t WHERE i = ?', [7]);
    expect(r.plan).toBe('INDEX_SCAN(by_i)');
    expect(r.count).toBe(1);
    expect(r.executionMs).toBeGreaterThanOrEqual(0);
    expect(r.documents).toEqual([{ _id: expect.any(String), i: 7 }]);
    expect(r.affected).toBeUndefined();
  });

  it('answers writes with affected, empty documents, and ids for INSERT', async () => {
    const ins = await db.query('INSERT INTO t VALUES ?', [[{ i: 100 }, { i: 101 }]]);
    expect(ins).toMatchObject({ plan: 'INSERT', count: 2, affected: 2, documents: [] });
    expect(ins.ids).toHaveLength(2);
    const del = await db.query('DELETE FROM t WHERE i >= ?', [100]);
    expect(del).toMatchObject({ plan: 'INDEX_RANGE_SCAN(by_i)', affected: 2, documents: [] });
  });

  it('rejects a parameter count that does not match the placeholders', async () => {
    await expect(db.query('SELECT * FROM t WHERE i = ?')).rejects.toMatchObject({
      code: 'ERR_SQL_PARAM',
    });
    await expect(db.query('SELECT * FROM t', [1])).rejects.toMatchObject({ code: 'ERR_SQL_PARAM' });
    await expect(db.query('SELECT * FROM t LIMIT ?', ['x'])).rejects.toMatchObject({
      code: 'ERR_SQL_PARAM',
    });
  });

  it('accepts SQL at the length limit and rejects one character more', async () => {
    const pad = (n: number) => `SELECT * FROM t WHERE i = 1${' '.repeat(n)}`;
    const base = pad(0).length;
    await expect(db.query(pad(SQL_CHARS_MAX - base))).resolves.toMatchObject({ count: 1 });
    await expect(db.query(pad(SQL_CHARS_MAX - base + 1))).rejects.toMatchObject({
      code: 'ERR_SQL_TOO_LONG',
    });
  });

  it('answers an IN of 20,000 values, through the index and by a scan, with each row once', async () => {
    // Planning deduplicated the keys and the filter compared each row with every value: this
    // list took 28 s through the index, and a node answered nothing else meanwhile.
    const values = Array.from({ length: 20_000 }, (_, k) => (k % 2 === 0 ? k : `${k}`));
    const list = [...values, ...values].map((v) => JSON.stringify(v).replaceAll('"', "'"));
    const sql = `SELECT i FROM t WHERE i IN (${list.join(', ')})`;
    const indexed = await db.query(sql);
    expect(indexed.plan).toBe('INDEX_SCAN_MULTI(by_i, 20000 keys)');
    expect(indexed.documents.map((d) => (d as { i: number }).i).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 25 }, (_, k) => k * 2),
    );
    await db.query('DROP INDEX by_i ON t');
    const scanned = await db.query(sql);
    expect(scanned.plan).toBe('COLLECTION_SCAN');
    expect(scanned.count).toBe(25);
  });

  it('an INSERT stores at most BULK_DOCUMENTS_MAX documents, as a bulk insert does', async () => {
    // One `?` of 150k documents was a stack overflow (500); several stored millions at once.
    const many = Array.from({ length: BULK_DOCUMENTS_MAX + 1 }, () => ({}));
    await expect(db.query('INSERT INTO t VALUES ?', [many])).rejects.toMatchObject({
      code: 'ERR_BULK_TOO_LARGE',
    });
    const half = many.slice(0, BULK_DOCUMENTS_MAX / 2 + 1);
    await expect(db.query('INSERT INTO t VALUES ?, ?', [half, half])).rejects.toMatchObject({
      code: 'ERR_BULK_TOO_LARGE',
    });
    expect(db.collection('t').count()).toBe(50);
  });

  it('refuses a parameter nested 10,000 deep as SET value or LIMIT, not with a stack overflow', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    await expect(db.query('UPDATE t SET q = ? WHERE i = 0', [deep])).rejects.toMatchObject({
      code: 'ERR_DOCUMENT_INVALID',
    });
    await expect(db.query('SELECT * FROM t LIMIT ?', [deep])).rejects.toThrow(
      'LIMIT must be a non-negative integer; got an array',
    );
  });

  it('pulls a JOIN only as far as its LIMIT needs', async () => {
    // 36M pairings: held whole before the LIMIT took its rows, they filled the heap.
    const same = Array.from({ length: 6000 }, (_, n) => ({ k: 1, n }));
    await db.collection('l').insertMany(same);
    await db.collection('r').insertMany(same);
    const r = await db.query('SELECT l.n, r.n FROM l JOIN r ON r.k = l.k LIMIT 5 OFFSET 2');
    expect(r.plan).toBe('COLLECTION_SCAN + HASH_JOIN(r)');
    expect(r.count).toBe(5);
  });

  it('an atomic statement: a failing UPDATE changes nothing', async () => {
    await expect(db.query('UPDATE t SET i = 1 WHERE i > 40')).rejects.toMatchObject({
      code: 'ERR_UNIQUE_VIOLATION',
    });
    const r = await db.query('SELECT COUNT(*) FROM t WHERE i > 40');
    expect(r.documents[0]).toEqual({ 'COUNT(*)': 9 });
  });
});

describe('db.queryStream', () => {
  it('yields the meta first, then every document', async () => {
    const [meta, docs] = await collect(db.queryStream('SELECT i FROM t WHERE even = true'));
    expect(meta).toMatchObject({ plan: 'COLLECTION_SCAN', count: 25 });
    expect(docs).toHaveLength(25);
    expect(docs[0]).toEqual({ _id: expect.any(String), i: 0 });
  });

  it('orders, offsets and limits like query does', async () => {
    const sql = 'SELECT i FROM t WHERE i >= 10 ORDER BY i DESC LIMIT 3 OFFSET 2';
    const [meta, docs] = await collect(db.queryStream(sql));
    const plain = await db.query(sql);
    expect(meta.count).toBe(3);
    expect(docs).toEqual(plain.documents);
    expect(docs.map((d) => (d as { i: number }).i)).toEqual([47, 46, 45]);
  });

  it('keeps returning the snapshot it counted while writes land', async () => {
    const stream = db.queryStream('SELECT i FROM t ORDER BY i');
    const meta = (await stream.next()).value as QueryMeta;
    expect(meta.count).toBe(50);
    const first = (await stream.next()).value as { i: number };
    await db.query('DELETE FROM t');
    expect((await db.query('SELECT COUNT(*) FROM t')).documents[0]).toEqual({ 'COUNT(*)': 0 });
    const rest: unknown[] = [];
    for await (const doc of stream) rest.push(doc);
    expect(first.i).toBe(0);
    expect(rest).toHaveLength(49);
  });

  it('streams aggregates and writes as their meta and rows', async () => {
    const [meta, docs] = await collect(
      db.queryStream('SELECT even, COUNT(*) FROM t GROUP BY even'),
    );
    expect(meta.plan).toBe('COLLECTION_SCAN + AGGREGATE');
    expect(docs).toHaveLength(2);
    const [write, none] = await collect(db.queryStream('UPDATE t SET flag = true WHERE i < 5'));
    expect(write).toMatchObject({ affected: 5, count: 5 });
    expect(none).toEqual([]);
  });

  it('stops early without leaking the snapshot', async () => {
    for (let round = 0; round < 200; round++) {
      for await (const item of db.queryStream('SELECT * FROM t')) {
        if (item) break;
      }
    }
    expect((await db.query('SELECT COUNT(*) FROM t')).documents[0]).toEqual({ 'COUNT(*)': 50 });
  });
});

describe('statement and plan cache', () => {
  it('reuses a plan until an index change, then plans again', async () => {
    const sql = 'SELECT i FROM t WHERE even = true LIMIT 1';
    expect((await db.query(sql)).plan).toBe('COLLECTION_SCAN');
    expect((await db.query(sql)).plan).toBe('COLLECTION_SCAN');
    await db.collection('t').createIndex({ paths: ['even'], name: 'by_even' });
    expect((await db.query(sql)).plan).toBe('INDEX_SCAN(by_even)');
    await db.collection('t').insertMany([{ i: 500, even: true }], { skipIndexes: true });
    expect((await db.query(sql)).plan).toBe('COLLECTION_SCAN');
    await db.collection('t').rebuildIndexes();
    expect((await db.query(sql)).plan).toBe('INDEX_SCAN(by_even)');
    await db.collection('t').dropIndex('by_even');
    expect((await db.query(sql)).plan).toBe('COLLECTION_SCAN');
  });

  it('answers an unknown collection again after it is dropped', async () => {
    const sql = 'SELECT COUNT(*) FROM t';
    await db.query(sql);
    await db.dropCollection('t');
    await expect(db.query(sql)).rejects.toMatchObject({ code: 'ERR_COLLECTION_NOT_FOUND' });
  });
});

describe('warnings', () => {
  const warning = (field: string) =>
    `"${field}" is in double quotes, which name a field, and no document in t has a field ${field}; for the string, write '${field}' in single quotes`;

  it('warns when a double-quoted path names no field of any document, on reads and writes', async () => {
    const read = await db.query(`SELECT * FROM t WHERE even = "true"`);
    expect(read).toMatchObject({ count: 0, warnings: [warning('true')] });
    const write = await db.query(`UPDATE t SET seen = 1 WHERE i = "seven"`);
    expect(write).toMatchObject({ affected: 0, warnings: [warning('seven')] });
    const deleted = await db.query(`DELETE FROM t WHERE "nothing" = 1`);
    expect(deleted.warnings).toEqual([warning('nothing')]);
    const stream = db.queryStream(`SELECT * FROM t WHERE i = "seven"`);
    expect((await stream.next()).value).toMatchObject({ count: 0, warnings: [warning('seven')] });
    await stream.return(undefined);
  });

  it('looks through the first QUOTED_FIELD_SCAN_DOCUMENTS_MAX documents, and says so past them', async () => {
    const max = QUOTED_FIELD_SCAN_DOCUMENTS_MAX;
    const docs = Array.from({ length: max + 1 }, (_, n) => ({ n }));
    await db.collection('big').insertMany(docs);
    const says = (sql: string) => db.query(sql).then((r) => r.warnings);
    // The field only in the document one past the limit: not looked at.
    await db.query(`UPDATE big SET late = 1 WHERE n = ${max}`);
    expect(await says(`SELECT n FROM big WHERE "late" = 1`)).toEqual([
      `"late" is in double quotes, which name a field, and none of the first 10,000 documents in big has a field late; for the string, write 'late' in single quotes`,
    ]);
    // In the last document looked at: found.
    await db.query(`UPDATE big SET last = 1 WHERE n = ${max - 1}`);
    expect(await says(`SELECT n FROM big WHERE "last" = 1`)).toBeUndefined();
    // A collection of exactly the limit was read whole: no document has it.
    await db.query(`DELETE FROM big WHERE n = ${max}`);
    expect(await says(`SELECT n FROM big WHERE "nowhere" = 1`)).toEqual([
      `"nowhere" is in double quotes, which name a field, and no document in big has a field nowhere; for the string, write 'nowhere' in single quotes`,
    ]);
  });

  it('says nothing when the quoted field exists, is a SET target, or the path is unquoted', async () => {
    for (const sql of [
      `SELECT * FROM t WHERE "i" = 3`,
      `SELECT "even" FROM t LIMIT 1`,
      `UPDATE t SET "fresh" = 1 WHERE i = 3`,
      `SELECT * FROM t WHERE nowhere = 3`,
      `SELECT * FROM t WHERE "_id" = 'x'`,
    ]) {
      expect((await db.query(sql)).warnings, sql).toBeUndefined();
    }
  });
});

/**
 * The write-path prototype of issue 13 (docs/adr/0021-write-path-prototype.md): the same
 * durable writes on the benchmark's own orders, through docdb on LMDB and through RocksDB
 * (`@nxtedition/rocksdb`, the maintained N-API binding that takes `sync` per write batch),
 * side by side in one process on one disk. RocksDB is not a dependency of docdb: install it
 * for a run with `npm i --no-save @nxtedition/rocksdb@12.2.12` in bench/, then
 *
 *   npx tsx prototypes/write-path.ts [--docs N]
 *
 * What the RocksDB side writes is what docdb would write on it: every document under its
 * 16-byte id in docdb's own MessagePack encoding, every index entry of the five indexes
 * under docdb's own key encoding (a unique key holds the id; others end with it), and one
 * change-log entry per commit holding the commit's document bytes. A bulk commit checks the
 * unique pnr first (one get per document), as docdb does. Every commit is one WriteBatch
 * written with `sync: true`: acknowledged means fsynced, as for docdb.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { Packr } from 'msgpackr';
import { orderAt, ordersFrom, pnrAt, STATUSES } from '../data.js';
import { type Database, open } from '../engine.js';
import { encodeTuple } from '../../dist/storage/codec/key-codec.js';
import { parseId } from '../../dist/util/index.js';

const { values } = parseArgs({ options: { docs: { type: 'string' } } });
const DOCS = Number(values.docs ?? 250_000);
const BATCH = 1000;
const UPDATES = 2000;
const WRITER_ROUNDS = 400;
const WRITERS = 8;

type RocksDb = {
  open(options: object): Promise<void>;
  close(): Promise<void>;
  batch(): {
    put(key: Buffer, value: Buffer): void;
    del(key: Buffer): void;
    write(options: { sync: boolean }): Promise<void>;
  };
  _getManySync(keys: Buffer[], options?: object): Array<Buffer | undefined>;
};

/** One synchronous get (the binding's own sync read of a list of keys). */
function getSync(db: RocksDb, key: Buffer): Buffer | undefined {
  return db._getManySync([key])[0] ?? undefined;
}

const packr = new Packr({ useRecords: true });

/** The five indexes of the benchmark: their values in a document, as docdb indexes them. */
function indexKeys(order: ReturnType<typeof orderAt>, id: Buffer): Buffer[] {
  const keys: Buffer[] = [];
  const entry = (tag: number, value: unknown) => {
    const encoded = encodeTuple([value]);
    if (encoded) keys.push(Buffer.concat([Buffer.of(tag), encoded.bytes, id]));
  };
  entry(2, order.status);
  for (const name of new Set(order.passengers.map((p) => p.lastName))) entry(3, name);
  for (const from of new Set(order.flights.map((f) => f.from))) entry(4, from);
  entry(5, order.fare.total);
  return keys;
}

function pnrKey(pnr: string): Buffer {
  return Buffer.concat([Buffer.of(1), (encodeTuple([pnr]) as { bytes: Buffer }).bytes]);
}

const docKey = (id: Buffer) => Buffer.concat([Buffer.of(0), id]);
let logSeq = 0;
const logKey = () => {
  const key = Buffer.alloc(9);
  key[0] = 9;
  key.writeUIntBE(++logSeq, 3, 6);
  return key;
};

function dirSize(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? dirSize(full) : fs.statSync(full).size;
  }
  return total;
}

function rate(count: number, ms: number): string {
  return `${Math.round((count / ms) * 1000).toLocaleString('en-US')}/s`;
}

async function rocksLoad(db: RocksDb): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < DOCS; start += BATCH) {
    const batch = db.batch();
    const docs: Buffer[] = [];
    for (const order of ordersFrom(start, Math.min(BATCH, DOCS - start))) {
      if (getSync(db, pnrKey(order.pnr))) throw new Error(`pnr ${order.pnr} taken`);
      const id = parseId(order._id) as Buffer;
      const bytes = packr.pack(order);
      docs.push(bytes);
      batch.put(docKey(id), bytes);
      batch.put(pnrKey(order.pnr), id);
      for (const key of indexKeys(order, id)) batch.put(key, Buffer.alloc(0));
    }
    batch.put(logKey(), Buffer.concat(docs));
    await batch.write({ sync: true });
  }
  return performance.now() - started;
}

/** One status update as docdb makes it: find by pnr, rewrite the document, move one entry. */
function rocksUpdate(db: RocksDb, batch: ReturnType<RocksDb['batch']>, i: number, status: string) {
  const id = getSync(db, pnrKey(pnrAt(i))) as Buffer;
  const stored = getSync(db, docKey(id)) as Buffer;
  const order = packr.unpack(stored);
  const before = indexKeys(order, id);
  order.status = status;
  const bytes = packr.pack(order);
  batch.put(docKey(id), bytes);
  batch.del(before[0] as Buffer);
  batch.put(indexKeys(order, id)[0] as Buffer, Buffer.alloc(0));
  batch.put(logKey(), bytes);
}

async function docdbLoad(db: Database): Promise<number> {
  const orders = db.collection('orders');
  await orders.createIndex({ name: 'orders_pnr', paths: ['pnr'], unique: true });
  await orders.createIndex({ name: 'orders_status', paths: ['status'] });
  await orders.createIndex({ name: 'orders_lastname', paths: ['passengers[*].lastName'] });
  await orders.createIndex({ name: 'orders_from', paths: ['flights[*].from'] });
  await orders.createIndex({ name: 'orders_fare_total', paths: ['fare.total'] });
  const started = performance.now();
  for (let start = 0; start < DOCS; start += BATCH) {
    await orders.insertMany(ordersFrom(start, Math.min(BATCH, DOCS - start)));
  }
  return performance.now() - started;
}

function pick(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 16807) % 2147483647;
    return state % DOCS;
  };
}

async function main(): Promise<void> {
  const mod = (await import('@nxtedition/rocksdb' as string)) as {
    RocksLevel: new (location: string, options?: object) => RocksDb;
  };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-write-path-'));
  console.log(
    `write-path prototype: ${DOCS.toLocaleString('en-US')} orders, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`,
  );
  try {
    const docdb = await open(path.join(root, 'docdb'));
    const rocksDir = path.join(root, 'rocks');
    const rocks = new mod.RocksLevel(rocksDir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await rocks.open({ createIfMissing: true });

    const lmdbLoad = await docdbLoad(docdb);
    const rocksLoadMs = await rocksLoad(rocks);
    console.log(
      `bulk load, 1,000 per durable commit: docdb ${rate(DOCS, lmdbLoad)}, rocksdb ${rate(DOCS, rocksLoadMs)} (${(lmdbLoad / rocksLoadMs).toFixed(2)}× faster on rocksdb)`,
    );

    const next = pick(7);
    let t = performance.now();
    for (let n = 0; n < UPDATES; n++) {
      await docdb.query('UPDATE orders SET status = ? WHERE pnr = ?', [
        STATUSES[n % 4],
        pnrAt(next()),
      ]);
    }
    const lmdbUpdate = performance.now() - t;
    t = performance.now();
    for (let n = 0; n < UPDATES; n++) {
      const batch = rocks.batch();
      rocksUpdate(rocks, batch, next(), STATUSES[n % 4] as string);
      await batch.write({ sync: true });
    }
    const rocksUpdateMs = performance.now() - t;
    console.log(
      `durable single update, one client: docdb ${rate(UPDATES, lmdbUpdate)}, rocksdb ${rate(UPDATES, rocksUpdateMs)} (${(lmdbUpdate / rocksUpdateMs).toFixed(2)}×)`,
    );

    // 8 writers: an insert and an update each per round; docdb's callers share its group
    // commits, and the RocksDB side commits the round's 16 writes as one batch, as docdb's
    // write queue would on it.
    let fresh = DOCS;
    const orders = docdb.collection('orders');
    t = performance.now();
    for (let round = 0; round < WRITER_ROUNDS; round++) {
      const writes: Promise<unknown>[] = [];
      for (let w = 0; w < WRITERS; w++) {
        writes.push(orders.insert(orderAt(fresh++)));
        writes.push(
          docdb.query('UPDATE orders SET status = ? WHERE pnr = ?', ['pending', pnrAt(next())]),
        );
      }
      await Promise.all(writes);
    }
    const lmdbWriters = performance.now() - t;
    fresh = DOCS + WRITER_ROUNDS * WRITERS;
    t = performance.now();
    for (let round = 0; round < WRITER_ROUNDS; round++) {
      const batch = rocks.batch();
      for (let w = 0; w < WRITERS; w++) {
        const order = orderAt(fresh++);
        const id = parseId(order._id) as Buffer;
        const bytes = packr.pack(order);
        batch.put(docKey(id), bytes);
        batch.put(pnrKey(order.pnr), id);
        for (const key of indexKeys(order, id)) batch.put(key, Buffer.alloc(0));
        batch.put(logKey(), bytes);
        rocksUpdate(rocks, batch, next(), 'pending');
      }
      await batch.write({ sync: true });
    }
    const rocksWriters = performance.now() - t;
    const writes = WRITER_ROUNDS * WRITERS * 2;
    console.log(
      `8 writers, insert and update each: docdb ${rate(writes, lmdbWriters)}, rocksdb ${rate(writes, rocksWriters)} (${(lmdbWriters / rocksWriters).toFixed(2)}×)`,
    );

    const reads = 50_000;
    t = performance.now();
    for (let n = 0; n < reads; n++)
      await docdb.query('SELECT * FROM orders WHERE pnr = ?', [pnrAt(next())]);
    const lmdbReads = performance.now() - t;
    t = performance.now();
    for (let n = 0; n < reads; n++) {
      const id = getSync(rocks, pnrKey(pnrAt(next()))) as Buffer;
      packr.unpack(getSync(rocks, docKey(id)) as Buffer);
    }
    const rocksReads = performance.now() - t;
    console.log(
      `point lookup by pnr (docdb: SQL; rocksdb: two gets and a decode): docdb ${rate(reads, lmdbReads)}, rocksdb ${rate(reads, rocksReads)} (${(lmdbReads / rocksReads).toFixed(2)}×)`,
    );

    await docdb.close();
    await rocks.close();
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
    console.log(
      `on disk after the writes: docdb ${mb(dirSize(path.join(root, 'docdb')))}, rocksdb ${mb(dirSize(rocksDir))}`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

await main();

/**
 * The dense row id, measured before it is built (bench/misses.md, the embedded reads' item):
 * the benchmark's orders in two LMDB layouts side by side, in one process on one disk, with
 * lmdb-js alone (no docdb code on the read path, so the layouts' own costs show).
 *
 * - **id**, today's layout: documents under their 16-byte `_id`; each index a dupsort tree
 *   whose values are the 16-byte ids.
 * - **row**: documents under a 4-byte row number given in insert order, the `_id` mapped to
 *   it in a tree of its own; each index's values are the 4-byte row numbers. (4 bytes is the
 *   layout's best case: a real one would take 6 or 8 to outlive 2^32 inserts.)
 *
 * Both hold the benchmark's five indexes, in docdb's key encoding, and load 1,000 documents a
 * commit (without a flush: the disk is not what is compared). Then, for each size, the reads
 * of the embedded rows with only their storage part: a point lookup by `pnr` (an index get,
 * then the document), a get by `_id`, equality LIMIT 100 on `status` and range LIMIT 100 on
 * `fare.total` (the index's first 100 entries from a bound, then each document). Index values
 * and the id map's row numbers are read as copies (`get`, `getValues`, `getRange`), as docdb
 * reads its index entries; documents in place (`getBinaryFast`). The layouts
 * take turns, the same keys for both, the median of the rounds kept. Run from bench/ after
 * `npm run build` at the root:
 *
 *   npx tsx prototypes/row-id.ts [--docs 250000,1000000] [--rounds 5]
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { type Database, open, type RootDatabase } from 'lmdb';
import { Packr } from 'msgpackr';
import { encodeTuple } from '../../dist/storage/codec/key-codec.js';
import { parseId } from '../../dist/util/index.js';
import { ordersFrom, pnrAt, STATUSES } from '../data.js';

const { values } = parseArgs({
  options: { docs: { type: 'string' }, rounds: { type: 'string' } },
});
const SIZES = (values.docs ?? '250000,1000000').split(',').map(Number);
const ROUNDS = Number(values.rounds ?? 5);
const BATCH = 1000;
const POINTS = 100_000;
const WINDOWS = 1_000;

type Layout = 'id' | 'row';
const INDEXES = ['pnr', 'status', 'lastName', 'from', 'fare'] as const;
type IndexName = (typeof INDEXES)[number];

interface Store {
  layout: Layout;
  env: RootDatabase;
  docs: Database<Buffer, Buffer>;
  ids: Database<Buffer, Buffer> | undefined;
  indexes: Record<IndexName, Database<Buffer, Buffer>>;
  file: string;
}

/** Records over shared structures, as docdb stores documents (about 230 bytes an order). */
const packr = new Packr({ useRecords: true, structures: [] });

function key(value: unknown): Buffer {
  return (encodeTuple([value]) as { bytes: Buffer }).bytes;
}

function openStore(dir: string, layout: Layout): Store {
  const file = path.join(dir, `${layout}.mdb`);
  const env = open({ path: file, noSubdir: true, noSync: true, maxDbs: 16, mapSize: 64 * 2 ** 30 });
  const binary = { keyEncoding: 'binary', encoding: 'binary' } as const;
  const indexes = Object.fromEntries(
    INDEXES.map((name) => [
      name,
      env.openDB<Buffer, Buffer>(`i-${name}`, { ...binary, dupSort: true }),
    ]),
  ) as Store['indexes'];
  return {
    layout,
    env,
    docs: env.openDB<Buffer, Buffer>('docs', binary),
    ids: layout === 'row' ? env.openDB<Buffer, Buffer>('ids', binary) : undefined,
    indexes,
    file,
  };
}

function rowKey(row: number): Buffer {
  const bytes = Buffer.allocUnsafe(4);
  bytes.writeUInt32BE(row);
  return bytes;
}

/** Loads documents [from, to); answers the CPU-and-wall µs per document. */
function load(store: Store, from: number, to: number): number {
  const started = performance.now();
  for (let start = from; start < to; start += BATCH) {
    const orders = [...ordersFrom(start, Math.min(BATCH, to - start))];
    store.env.transactionSync(() => {
      orders.forEach((order, k) => {
        const { _id, ...body } = order;
        const id = parseId(_id) as Buffer;
        const ref = store.layout === 'row' ? rowKey(start + k) : id;
        store.docs.putSync(ref, packr.pack(body));
        store.ids?.putSync(id, ref);
        store.indexes.pnr.putSync(key(order.pnr), ref);
        store.indexes.status.putSync(key(order.status), ref);
        for (const name of new Set(order.passengers.map((p) => p.lastName)))
          store.indexes.lastName.putSync(key(name), ref);
        for (const from of new Set(order.flights.map((f) => f.from)))
          store.indexes.from.putSync(key(from), ref);
        store.indexes.fare.putSync(key(order.fare.total), ref);
      });
    });
  }
  return ((performance.now() - started) * 1000) / (to - from);
}

/** The document under an index value or an `_id`: its bytes' length, so the read is used. */
function docByRef(store: Store, ref: Buffer): number {
  return (store.docs.getBinaryFast(ref) as Buffer).length;
}

function docById(store: Store, id: Buffer): number {
  if (!store.ids) return docByRef(store, id);
  return docByRef(store, store.ids.get(id) as Buffer);
}

interface Keys {
  pnrs: Buffer[];
  ids: Buffer[];
  statuses: Buffer[];
  fares: Buffer[];
}

function keysFor(docs: number): Keys {
  const pick = () => Math.floor(Math.random() * docs);
  const orders = Array.from({ length: WINDOWS }, () => [...ordersFrom(pick(), 1)][0]);
  return {
    pnrs: Array.from({ length: POINTS }, () => key(pnrAt(pick()))),
    ids: Array.from({ length: POINTS }, () => {
      const [order] = [...ordersFrom(pick(), 1)];
      return parseId(order?._id as string) as Buffer;
    }),
    statuses: Array.from({ length: WINDOWS }, (_, i) => key(STATUSES[i % STATUSES.length])),
    fares: orders.map((order) => key(order?.fare.total)),
  };
}

/** ns per operation of each read; `sink` keeps the reads from being optimised away. */
let sink = 0;
function reads(store: Store, keys: Keys): Record<string, number> {
  const time = (count: number, body: () => void) => {
    const started = process.hrtime.bigint();
    body();
    return Number(process.hrtime.bigint() - started) / count;
  };
  return {
    point: time(POINTS, () => {
      for (const pnr of keys.pnrs) sink += docByRef(store, store.indexes.pnr.get(pnr) as Buffer);
    }),
    getById: time(POINTS, () => {
      for (const id of keys.ids) sink += docById(store, id);
    }),
    equality100: time(WINDOWS, () => {
      for (const status of keys.statuses)
        for (const ref of store.indexes.status.getValues(status, { limit: 100 }))
          sink += docByRef(store, ref);
    }),
    range100: time(WINDOWS, () => {
      for (const fare of keys.fares)
        for (const { value } of store.indexes.fare.getRange({ start: fare, limit: 100 }))
          sink += docByRef(store, value);
    }),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The documents' tree and the id map: trees without duplicates, whose pages LMDB's
 * statistics count whole (an index's value trees it leaves out: the file's size says those).
 */
function treeBytes(store: Store): Record<string, number> {
  const pages = (db: Database) => {
    const stat = db.getStats() as {
      treeBranchPageCount: number;
      treeLeafPageCount: number;
      overflowPages: number;
      pageSize: number;
    };
    return (stat.treeBranchPageCount + stat.treeLeafPageCount + stat.overflowPages) * stat.pageSize;
  };
  const out: Record<string, number> = { docs: pages(store.docs) };
  if (store.ids) out.ids = pages(store.ids);
  return out;
}

const MB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-row-id-'));
  const stores = [openStore(dir, 'id'), openStore(dir, 'row')];
  try {
    let loaded = 0;
    for (const size of SIZES) {
      for (const store of stores) {
        const us = load(store, loaded, size);
        console.log(
          `${store.layout}: loaded to ${size.toLocaleString('en-US')}, ${us.toFixed(1)} µs a document`,
        );
      }
      loaded = size;
      const keys = keysFor(size);
      const runs: Record<Layout, Array<Record<string, number>>> = { id: [], row: [] };
      for (let round = 0; round < ROUNDS + 1; round++) {
        for (const store of round % 2 === 0 ? stores : [...stores].reverse()) {
          const measured = reads(store, keys);
          if (round > 0) runs[store.layout].push(measured); // round 0 warms the caches
        }
      }
      console.log(
        `\nat ${size.toLocaleString('en-US')} documents (median of ${ROUNDS} rounds, ns per read)`,
      );
      for (const name of ['point', 'getById', 'equality100', 'range100']) {
        const id = median(runs.id.map((r) => r[name] as number));
        const row = median(runs.row.map((r) => r[name] as number));
        console.log(
          `  ${name.padEnd(12)} id ${id.toFixed(0).padStart(8)}  row ${row.toFixed(0).padStart(8)}  row/id ${(row / id).toFixed(2)}`,
        );
      }
      for (const store of stores) {
        const trees = Object.entries(treeBytes(store)).map(
          ([name, bytes]) => `${name} ${MB(bytes)}`,
        );
        console.log(
          `  ${store.layout}: file ${MB(fs.statSync(store.file).size)} (${trees.join(', ')})`,
        );
      }
      console.log('');
    }
  } finally {
    for (const store of stores) await store.env.close();
    fs.rmSync(dir, { recursive: true, force: true });
    if (sink === -1) console.log(sink);
  }
}

await main();

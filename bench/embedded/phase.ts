/**
 * The embedded phase: docdb's embedded API against SQLite and NeDB on workloads 1–8, with a
 * warm-up, then rounds in which the systems take turns (A B C, A B C, …) on the same keys.
 * Before timing, each query runs once on every system and the row counts must agree, so a
 * wrong statement cannot produce a flattering number.
 */

import * as fs from 'node:fs';
import {
  AIRPORTS,
  FARE_TOTAL_MAX,
  FARE_TOTAL_MIN,
  fareWindow,
  keyPicker,
  type Order,
  ordersFrom,
  pnrAt,
  prng,
  STATUSES,
} from '../data.js';
import { counted, type Sample, timeBox } from '../measure.js';
import type { Options } from '../options.js';
import { tempDir } from '../proc.js';
import type { WorkloadId } from '../workloads.js';
import { DocdbEmbedded } from './docdb.js';
import { NedbEmbedded } from './nedb.js';
import { SqliteEmbedded } from './sqlite.js';
import type { EmbeddedSystem } from './system.js';

/** Documents per insert batch of the bulk load. */
export const LOAD_BATCH_DOCS = 1000;
/** Documents of the warm-up load (per system, into a scratch store). */
const WARMUP_LOAD_DOCS = 10_000;
/** Matches a fare window should hold: range LIMIT 100 fills up; JOIN joins ~500 orders. */
const RANGE_WINDOW_MATCHES = 1000;
const JOIN_WINDOW_MATCHES = 500;

/** One timed run of one workload on one system in one round. */
export interface Measurement {
  workload: WorkloadId;
  system: string;
  round: number;
  sample: Sample;
}

/** What the served phase needs from this one. */
export interface EmbeddedOutcome {
  measurements: Measurement[];
  /** docdb's loaded directory (closed), reopened by the served phase as a node. */
  docdbDir: string;
  /** Documents [0, liveDocs) are present; the deletes consumed the numbers above. */
  liveDocs: number;
}

type Factory = () => EmbeddedSystem;
const FACTORIES: Factory[] = [
  () => new DocdbEmbedded(),
  () => new SqliteEmbedded(),
  () => new NedbEmbedded(),
];

function batchesOf(docs: number): Order[][] {
  const batches: Order[][] = [];
  for (let start = 0; start < docs; start += LOAD_BATCH_DOCS) {
    batches.push(ordersFrom(start, Math.min(LOAD_BATCH_DOCS, docs - start)));
  }
  return batches;
}

async function loadAll(system: EmbeddedSystem, batches: Order[][]): Promise<Sample> {
  return counted(batches.length, (n) => system.insertBatch(batches[n] as Order[]));
}

/**
 * A read workload: how to make the parameters of its n-th query, and how to run it. With
 * `afterWrite`, each query follows one untimed durable write to the same collection.
 */
interface ReadWorkload {
  id: WorkloadId;
  minOps: number;
  run: (system: EmbeddedSystem, random: () => number, n: number) => Promise<number> | number;
  afterWrite?: boolean;
}

/** Seed of the orders the "after a write" reads update; the same for every system. */
const AFTER_WRITE_SEED = 4242;

/**
 * The write before each "after a write" read: the status of a random live order set by the
 * UPDATE statement of workload 8, one durable commit, on every system alike. Its time is
 * not the read's.
 */
function writeBefore(
  system: EmbeddedSystem,
  liveDocs: number,
  seed: number,
): (n: number) => Promise<void> {
  const pick = keyPicker(liveDocs, seed);
  return async (n) => {
    const changed = await system.update(pnrAt(pick()), STATUSES[n % STATUSES.length] as string);
    if (changed !== 1) throw new Error(`${system.name} update before a read changed ${changed}`);
  };
}

function readWorkloads(docs: number, liveDocs: number): ReadWorkload[] {
  const rangeWidth = fareWindow(docs, RANGE_WINDOW_MATCHES);
  const joinWidth = fareWindow(docs, JOIN_WINDOW_MATCHES);
  const low = (random: () => number, width: number) =>
    Math.round((FARE_TOTAL_MIN + random() * (FARE_TOTAL_MAX - FARE_TOTAL_MIN - width)) * 100) / 100;
  const filter = (s: EmbeddedSystem, _r: () => number, n: number) =>
    s.filter((AIRPORTS[n % AIRPORTS.length] as { code: string }).code, 'CHD');
  return [
    {
      id: 'point-lookup',
      minOps: 10,
      run: (s, r) => s.point(pnrAt(Math.floor(r() * liveDocs))),
    },
    {
      id: 'equality-limit',
      minOps: 10,
      run: (s, _r, n) => s.equality(STATUSES[n % STATUSES.length] as string),
    },
    {
      id: 'range-limit',
      minOps: 10,
      run: (s, r) => {
        const from = low(r, rangeWidth);
        return s.range(from, from + rangeWidth);
      },
    },
    { id: 'unindexed-filter', minOps: 2, run: filter },
    { id: 'unindexed-filter-after-write', minOps: 2, run: filter, afterWrite: true },
    { id: 'group-by', minOps: 2, run: (s) => s.groupBy() },
    { id: 'group-by-after-write', minOps: 2, run: (s) => s.groupBy(), afterWrite: true },
    {
      id: 'join',
      minOps: 5,
      run: (s, r) => {
        const from = low(r, joinWidth);
        return s.join(from, from + joinWidth);
      },
    },
  ];
}

/** Runs each read once on every system with the same parameters; the row counts must agree. */
async function crossCheck(systems: EmbeddedSystem[], workloads: ReadWorkload[]): Promise<void> {
  for (const workload of workloads) {
    for (let n = 0; n < 3; n++) {
      const counts: string[] = [];
      for (const system of systems) {
        counts.push(`${system.name}=${await workload.run(system, prng(7 + n), n)}`);
      }
      const values = new Set(counts.map((c) => c.split('=')[1]));
      if (values.size !== 1) {
        throw new Error(`${workload.id}: the systems disagree (${counts.join(', ')})`);
      }
    }
  }
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Runs workloads 1–8. */
export async function runEmbedded(options: Options): Promise<EmbeddedOutcome> {
  const measurements: Measurement[] = [];
  const record = (workload: WorkloadId, system: string, round: number, sample: Sample) =>
    measurements.push({ workload, system, round, sample });

  log(`generating ${options.docs.toLocaleString('en-US')} documents…`);
  const batches = batchesOf(options.docs);

  // 1. bulk load: a warm-up load into a scratch store, then a fresh store per round.
  log('bulk load: warm-up');
  const warmBatches = batches.slice(0, Math.ceil(WARMUP_LOAD_DOCS / LOAD_BATCH_DOCS));
  for (const factory of FACTORIES) {
    const system = factory();
    const dir = tempDir(`docdb-bench-warm-${system.name}-`);
    await system.open(dir);
    await loadAll(system, warmBatches);
    await system.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  let systems: EmbeddedSystem[] = [];
  const dirs = new Map<string, string>();
  for (let round = 0; round < options.rounds; round++) {
    const last = round === options.rounds - 1;
    for (const factory of FACTORIES) {
      const system = factory();
      const dir = tempDir(`docdb-bench-${system.name}-`);
      await system.open(dir);
      const sample = await loadAll(system, batches);
      record('bulk-load', system.name, round, { ...sample, p50Ms: null, p99Ms: null });
      log(`bulk load round ${round + 1}: ${system.name} ${Math.round(sample.opsPerSec)} docs/s`);
      if (last) {
        systems.push(system);
        dirs.set(system.name, dir);
      } else {
        await system.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  batches.length = 0;
  for (const system of systems) await system.loadAirports(AIRPORTS);

  // 2–7. reads.
  const writeOps = options.writeOps;
  const deletes = writeOps * (options.rounds + 1);
  const liveDocs = options.docs - deletes;
  if (liveDocs < options.docs / 2) {
    throw new Error(`--docs ${options.docs} is too small for ${deletes} deletes; use more`);
  }
  const reads = readWorkloads(options.docs, liveDocs);
  await crossCheck(systems, reads);
  for (const [w, workload] of reads.entries()) {
    log(`${workload.id}: warm-up`);
    for (const system of systems) {
      const random = prng(1000 + w);
      const untimed = workload.afterWrite
        ? writeBefore(system, liveDocs, AFTER_WRITE_SEED + w)
        : undefined;
      await timeBox(
        options.warmupMs,
        1,
        async (n) => {
          await workload.run(system, random, n);
          return 1;
        },
        untimed,
      );
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const system of systems) {
        // The same seed for every system in a round: they answer the same queries.
        const random = prng(10_000 * (w + 1) + round);
        const untimed = workload.afterWrite
          ? writeBefore(system, liveDocs, AFTER_WRITE_SEED + 100 * (w + 1) + round)
          : undefined;
        // One query is one operation, whatever its row count.
        const sample = await timeBox(
          options.embeddedMs,
          workload.minOps,
          async (n) => {
            await workload.run(system, random, n);
            return 1;
          },
          untimed,
        );
        record(workload.id, system.name, round, { ...sample, p50Ms: null, p99Ms: null });
      }
    }
    log(`${workload.id}: done`);
  }

  // 8. update and delete by key, each a durable commit of its own; deletes take documents
  // from the top of the numbering (downwards) so the served phase knows which remain.
  let nextDelete = options.docs - 1;
  const updateKeys = keyPicker(liveDocs, 77);
  for (let round = -1; round < options.rounds; round++) {
    const pnrs = Array.from({ length: writeOps }, () => pnrAt(updateKeys()));
    const doomed = Array.from({ length: writeOps }, (_, k) => pnrAt(nextDelete - k));
    nextDelete -= writeOps;
    for (const system of systems) {
      const updates = await counted(writeOps, async (n) => {
        const changed = await system.update(pnrs[n] as string, STATUSES[n % 4] as string);
        if (changed !== 1) throw new Error(`${system.name} update changed ${changed} rows`);
        return 1;
      });
      const removes = await counted(writeOps, async (n) => {
        const removed = await system.remove(doomed[n] as string);
        if (removed !== 1) throw new Error(`${system.name} delete removed ${removed} rows`);
        return 1;
      });
      // Round -1 is the warm-up.
      if (round >= 0) {
        record('update-by-key', system.name, round, { ...updates, p50Ms: null, p99Ms: null });
        record('delete-by-key', system.name, round, { ...removes, p50Ms: null, p99Ms: null });
      }
    }
    // The disk's own limit, on the same disk in the same round: one append of an entry's
    // size and one fdatasync per write, what docdb's write path cannot beat.
    const disk = diskLimit(dirs.get('docdb') as string, writeOps, entryBytes(liveDocs));
    if (round >= 0) record('update-by-key', 'disk', round, { ...disk, p50Ms: null, p99Ms: null });
  }
  log('update and delete by key: done');

  for (const system of systems) await system.close();
  systems = [];
  const docdbDir = dirs.get('docdb') as string;
  for (const [name, dir] of dirs) if (name !== 'docdb') fs.rmSync(dir, { recursive: true });
  return { measurements, docdbDir, liveDocs };
}

/** The bytes of one order as the change log holds it, about: its JSON text. */
function entryBytes(liveDocs: number): number {
  const [order] = ordersFrom(Math.max(0, liveDocs - 1), 1);
  return Buffer.byteLength(JSON.stringify(order));
}

/**
 * `count` appends of `bytes` to a file in `dir`, each followed by fdatasync (a file written
 * with zeros first, as docdb's log segments are, so the flushes do not change its size).
 */
function diskLimit(dir: string, count: number, bytes: number): Sample {
  const file = `${dir}/disk-limit.bin`;
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, Buffer.alloc(count * bytes));
    fs.fdatasyncSync(fd);
    const record = Buffer.alloc(bytes, 1);
    const started = performance.now();
    for (let n = 0; n < count; n++) {
      fs.writeSync(fd, record, 0, bytes, n * bytes);
      fs.fdatasyncSync(fd);
    }
    const elapsedMs = performance.now() - started;
    return { opsPerSec: (count / elapsedMs) * 1000, p50Ms: null, p99Ms: null, ops: count };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

/** For `--only served`: loads docdb alone, untimed, and hands it to the served phase. */
export async function loadDocdbOnly(options: Options): Promise<EmbeddedOutcome> {
  const system = new DocdbEmbedded();
  const docdbDir = tempDir('docdb-bench-docdb-');
  await system.open(docdbDir);
  for (let start = 0; start < options.docs; start += LOAD_BATCH_DOCS) {
    await system.insertBatch(ordersFrom(start, Math.min(LOAD_BATCH_DOCS, options.docs - start)));
  }
  await system.loadAirports(AIRPORTS);
  await system.close();
  return { measurements: [], docdbDir, liveDocs: options.docs };
}

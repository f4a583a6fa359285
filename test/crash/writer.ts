/**
 * The crash test's child process: opens a data directory, ensures the crash indexes, then
 * writes forever (inserts, insertMany batches, replaces, deletes, and writes the unique index
 * must refuse) from a few concurrent lanes until it is killed. Before issuing a write it
 * prints an intent line; after the write's promise settles it prints an ack line (see
 * protocol.ts). It never has two writes in flight for one document id, so the harness knows
 * every state a document may be in when the kill lands. It verifies nothing on disk itself.
 * The flags of WRITER_FLAGS (protocol.ts) add checkpoints and bulk inserts for the power-cut
 * part, or make it lie about its flushes for that part's self-test; without them it writes as
 * the kill -9 part has always seen it.
 *
 * Usage: node --import tsx test/crash/writer.ts <data-dir> <seed> [--checkpoints] [--bulk] [--lie]
 */

import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type BulkResult,
  type Collection,
  type Database,
  isDbError,
  open,
} from '../../src/index.js';
import {
  type BatchItem,
  BULK_ITEMS_MAX,
  BULK_ITEMS_MIN,
  CRASH_COLLECTION,
  CRASH_INDEXES,
  type CrashDoc,
  pick,
  randomInt,
  seededRandom,
  WRITER_FLAGS,
  type WriterFlag,
  type WriterLine,
} from './protocol.js';

/** Above this many documents the writer deletes instead of inserting most of the time. */
const LIVE_TARGET = 300;
/** Below this many documents the writer only inserts. */
const LIVE_MIN = 10;
/** Tries at picking a document no other lane is writing before falling back to an insert. */
const PICK_TRIES = 8;
/** With `--bulk`, the share of steps that make a bulk insert while under LIVE_TARGET. */
const BULK_SHARE = 0.03;
/** With `--checkpoints`, the pause between two checkpoints or flushes. */
const MAINTENANCE_GAP_MS_MIN = 20;
const MAINTENANCE_GAP_MS_MAX = 120;
/** With `--checkpoints`, the share of those that are checkpoints (the rest are flushes). */
const CHECKPOINT_SHARE = 0.7;

const STATUS_VALUES = ['new', 'paid', 'flown', 'cancelled'] as const;
const TAG_POOL: readonly unknown[] = [
  'red',
  'green',
  'blue',
  'x',
  1,
  2,
  2.5,
  true,
  false,
  null,
  ['nested'],
  { k: 1 },
];

/** A pause while the pipe to the harness is full. */
const PIPE_FULL_WAIT = new Int32Array(new SharedArrayBuffer(4));

function emit(line: WriterLine): void {
  // Written to the pipe before the write it announces is issued: process.stdout would queue
  // the line in memory once the pipe is full (Node 20 on Linux), and a kill then loses it,
  // so the harness would not know of a write that reached the disk.
  const bytes = Buffer.from(`${JSON.stringify(line)}\n`);
  for (let written = 0; written < bytes.length; ) {
    try {
      written += fs.writeSync(1, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(PIPE_FULL_WAIT, 0, 0, 1);
    }
  }
}

function fatal(message: string): never {
  emit({ fatal: message });
  process.exit(3);
}

/** What the flags ask of the writer (all false for the kill -9 part). */
interface WriterModes {
  bulk: boolean;
  /** Print each ack as soon as the write is issued, before its flush (a broken writer). */
  lie: boolean;
}

/** Acknowledged documents, with O(1) random picks and removals. */
class LiveSet {
  readonly docs = new Map<string, CrashDoc>();
  private readonly ids: string[] = [];
  private readonly positions = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  set(id: string, doc: CrashDoc): void {
    if (!this.positions.has(id)) {
      this.positions.set(id, this.ids.length);
      this.ids.push(id);
    }
    this.docs.set(id, doc);
  }

  delete(id: string): void {
    const at = this.positions.get(id);
    if (at === undefined) return;
    const last = this.ids.pop() as string;
    if (last !== id) {
      this.ids[at] = last;
      this.positions.set(last, at);
    }
    this.positions.delete(id);
    this.docs.delete(id);
  }

  randomId(random: () => number): string | undefined {
    return this.ids.length === 0 ? undefined : pick(random, this.ids);
  }
}

class Writer {
  private readonly random: () => number;
  private readonly live = new LiveSet();
  /** Ids with a write in flight: no second write may start on them. */
  private readonly busy = new Set<string>();
  /** Every pnr (typed, as JSON) this process has seen or handed out; never reused. */
  private readonly pnrsTaken = new Set<string>();
  private readonly tag: string;
  private opSeq = 0;
  private writeSeq = 0;

  constructor(
    private readonly collection: Collection,
    seed: number,
    private readonly modes: WriterModes,
  ) {
    this.random = seededRandom(seed);
    this.tag = seed.toString(36);
  }

  /** Learns the documents earlier cycles left behind (the harness verified them). */
  load(): number {
    for (const stored of this.collection.scan()) {
      const { _id, ...body } = stored;
      this.live.set(_id as string, body as CrashDoc);
      if (isUniqueValue(body.pnr)) this.pnrsTaken.add(JSON.stringify(body.pnr));
    }
    return this.live.size;
  }

  async lane(): Promise<never> {
    for (;;) await this.step();
  }

  private step(): Promise<void> {
    const r = this.random();
    if (this.live.size < LIVE_MIN) return this.insertOne();
    const crowded = this.live.size > LIVE_TARGET && this.random() < 0.8;
    if (this.modes.bulk && this.live.size < LIVE_TARGET && this.random() < BULK_SHARE) {
      return this.insertBatch(randomInt(this.random, BULK_ITEMS_MIN, BULK_ITEMS_MAX));
    }
    if (r < 0.28) return crowded ? this.deleteOne() : this.insertOne();
    if (r < 0.4) return crowded ? this.deleteOne() : this.insertBatch();
    if (r < 0.7) return this.replaceOne();
    if (r < 0.92) return this.deleteOne();
    if (r < 0.96) return this.duplicateInsert();
    return this.duplicateReplace();
  }

  // ---- documents -------------------------------------------------------------------------

  private freshPnr(): unknown {
    for (;;) {
      const r = this.random();
      let pnr: unknown;
      if (r < 0.04) return undefined;
      if (r < 0.07) return null;
      if (r < 0.12) pnr = randomInt(this.random, 0, 2 ** 40);
      // Longer than an index key holds: stored truncated, with a unique prefix.
      else if (r < 0.15) pnr = `L-${this.tag}-${this.writeSeq}-${'x'.repeat(1100)}`;
      else pnr = `P-${this.tag}-${this.writeSeq}`;
      const key = JSON.stringify(pnr);
      if (this.pnrsTaken.has(key)) continue;
      this.pnrsTaken.add(key);
      return pnr;
    }
  }

  private status(): unknown {
    const r = this.random();
    if (r < 0.8) return pick(this.random, STATUS_VALUES);
    if (r < 0.85) return null;
    if (r < 0.9) return undefined;
    if (r < 0.93) return { code: 'x' };
    if (r < 0.96) return ['paid'];
    return 5;
  }

  private n(): unknown {
    const r = this.random();
    if (r < 0.7) return randomInt(this.random, 0, 9);
    if (r < 0.8) return undefined;
    if (r < 0.85) return '3';
    if (r < 0.9) return [1, 2];
    if (r < 0.95) return 2.5;
    return true;
  }

  private tags(): unknown {
    const r = this.random();
    if (r < 0.75) {
      const count = randomInt(this.random, 0, 4);
      return Array.from({ length: count }, () => pick(this.random, TAG_POOL));
    }
    if (r < 0.85) return undefined;
    if (r < 0.9) return 'red';
    if (r < 0.95) return [];
    return null;
  }

  /** A new document; `pnr` given (even undefined) is kept, otherwise a fresh one is made. */
  private makeDoc(pnr?: { value: unknown }): CrashDoc {
    this.writeSeq += 1;
    const doc: CrashDoc = { w: `${this.tag}.${this.writeSeq}`, rev: this.writeSeq };
    const fields: Record<string, unknown> = {
      pnr: pnr ? pnr.value : this.freshPnr(),
      status: this.status(),
      n: this.n(),
      tags: this.tags(),
      note: 'n'.repeat(randomInt(this.random, 0, 200)),
    };
    for (const [key, value] of Object.entries(fields)) {
      if (value !== undefined) doc[key] = value;
    }
    return doc;
  }

  // ---- picking targets -------------------------------------------------------------------

  /** A document no lane is writing, marked busy; undefined when none was found quickly. */
  private claim(accept: (doc: CrashDoc) => boolean = () => true): string | undefined {
    for (let i = 0; i < PICK_TRIES; i++) {
      const id = this.live.randomId(this.random);
      if (id === undefined) return undefined;
      if (this.busy.has(id) || !accept(this.live.docs.get(id) as CrashDoc)) continue;
      this.busy.add(id);
      return id;
    }
    return undefined;
  }

  /** A document holding a pnr the unique index enforces, marked busy. */
  private claimHolder(): { id: string; pnr: unknown } | undefined {
    const id = this.claim((doc) => isUniqueValue(doc.pnr));
    return id === undefined ? undefined : { id, pnr: (this.live.docs.get(id) as CrashDoc).pnr };
  }

  private nextOp(): number {
    this.opSeq += 1;
    return this.opSeq;
  }

  // ---- writes ----------------------------------------------------------------------------

  // A lying writer (--lie) gives every write an id and writes nothing the unique index must
  // refuse, so it knows each ack before the write resolves and can print it at once.

  private async insertOne(): Promise<void> {
    const id = this.modes.lie || this.random() < 0.5 ? randomUUID() : undefined;
    const doc = this.makeDoc();
    const op = this.nextOp();
    emit(
      id
        ? { intent: 'insert', op, id, doc, expect: 'ok' }
        : { intent: 'insert', op, doc, expect: 'ok' },
    );
    const write = this.collection.insert(id ? { _id: id, ...doc } : doc);
    if (this.modes.lie) emit({ ack: 'insert', op, id: id as string, doc });
    const got = await write;
    if (id && got !== id) fatal(`op ${op}: insert of ${id} answered id ${got}`);
    this.live.set(got, doc);
    if (!this.modes.lie) emit({ ack: 'insert', op, id: got, doc });
  }

  /** An insertMany of `size` documents (a small random batch by default). */
  private async insertBatch(size?: number): Promise<void> {
    const items: BatchItem[] = [];
    const count = size ?? randomInt(this.random, 2, 5);
    for (let i = 0; i < count; i++) {
      const doc = this.makeDoc();
      items.push(
        this.modes.lie || this.random() < 0.5
          ? { id: randomUUID(), doc, expect: 'ok' }
          : { doc, expect: 'ok' },
      );
    }
    const holder = !this.modes.lie && this.random() < 0.15 ? this.claimHolder() : undefined;
    const atomic = this.random() < 0.3;
    try {
      if (holder) {
        // One item the unique index must refuse: it repeats a stored document's pnr.
        const doc = this.makeDoc({ value: holder.pnr });
        items.splice(randomInt(this.random, 0, items.length), 0, { doc, expect: 'reject' });
      }
      const op = this.nextOp();
      emit({ intent: 'insertMany', op, atomic, items });
      const write = this.collection.insertMany(
        items.map((item) => (item.id ? { _id: item.id, ...item.doc } : item.doc)),
        { atomic },
      );
      if (this.modes.lie)
        emit({ ack: 'insertMany', op, ids: items.map((item) => item.id ?? null) });
      const ids = batchOutcome(op, items, atomic, await write);
      items.forEach((item, i) => {
        const id = ids[i];
        if (id) this.live.set(id, item.doc);
      });
      if (!this.modes.lie) emit({ ack: 'insertMany', op, ids });
    } finally {
      if (holder) this.busy.delete(holder.id);
    }
  }

  private async replaceOne(): Promise<void> {
    const id = this.claim();
    if (id === undefined) return this.insertOne();
    try {
      const old = this.live.docs.get(id) as CrashDoc;
      // Keeping the pnr exercises the unique check's "the document itself holds it" case.
      const doc = this.makeDoc(this.random() < 0.3 ? { value: old.pnr } : undefined);
      const op = this.nextOp();
      emit({ intent: 'replace', op, id, doc, expect: 'ok' });
      const write = this.collection.replace(id, this.random() < 0.2 ? { _id: id, ...doc } : doc);
      if (this.modes.lie) emit({ ack: 'replace', op, id, doc });
      await write;
      this.live.set(id, doc);
      if (!this.modes.lie) emit({ ack: 'replace', op, id, doc });
    } finally {
      this.busy.delete(id);
    }
  }

  private async deleteOne(): Promise<void> {
    const id = this.claim();
    if (id === undefined) return this.insertOne();
    try {
      const op = this.nextOp();
      emit({ intent: 'delete', op, id });
      const write = this.collection.delete(id);
      if (this.modes.lie) emit({ ack: 'delete', op, id });
      if (!(await write)) fatal(`op ${op}: delete of acknowledged document ${id} found nothing`);
      this.live.delete(id);
      if (!this.modes.lie) emit({ ack: 'delete', op, id });
    } finally {
      this.busy.delete(id);
    }
  }

  /** An insert repeating a stored pnr: it must be refused and leave nothing behind. */
  private async duplicateInsert(): Promise<void> {
    if (this.modes.lie) return this.insertOne();
    const holder = this.claimHolder();
    if (!holder) return this.insertOne();
    try {
      const id = this.random() < 0.5 ? randomUUID() : undefined;
      const doc = this.makeDoc({ value: holder.pnr });
      const op = this.nextOp();
      emit(
        id
          ? { intent: 'insert', op, id, doc, expect: 'reject' }
          : { intent: 'insert', op, doc, expect: 'reject' },
      );
      await this.expectRefused(op, () => this.collection.insert(id ? { _id: id, ...doc } : doc));
    } finally {
      this.busy.delete(holder.id);
    }
  }

  /** A replace taking another document's pnr: it must be refused and change nothing. */
  private async duplicateReplace(): Promise<void> {
    if (this.modes.lie) return this.insertOne();
    const holder = this.claimHolder();
    if (!holder) return this.insertOne();
    const id = this.claim();
    try {
      if (id === undefined) return await this.insertOne();
      const doc = this.makeDoc({ value: holder.pnr });
      const op = this.nextOp();
      emit({ intent: 'replace', op, id, doc, expect: 'reject' });
      await this.expectRefused(op, () => this.collection.replace(id, doc));
    } finally {
      this.busy.delete(holder.id);
      if (id !== undefined) this.busy.delete(id);
    }
  }

  private async expectRefused(op: number, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (isDbError(error, 'ERR_UNIQUE_VIOLATION')) {
        emit({ ack: 'rejected', op, code: error.code });
        return;
      }
      throw error;
    }
    fatal(`op ${op}: a write repeating a unique pnr was accepted`);
  }
}

/**
 * The id each batch item was stored under (null: not stored), after checking the result is
 * exactly what the items' expectations call for: only the `reject` items refused, and with
 * `atomic` nothing stored when any was.
 */
function batchOutcome(
  op: number,
  items: BatchItem[],
  atomic: boolean,
  result: BulkResult,
): Array<string | null> {
  const refused = new Set(result.errors.map((e) => e.index));
  const expectRefused = items.flatMap((item, i) => (item.expect === 'reject' ? [i] : []));
  if (
    result.errors.some((e) => e.code !== 'ERR_UNIQUE_VIOLATION') ||
    refused.size !== expectRefused.length ||
    expectRefused.some((i) => !refused.has(i))
  ) {
    fatal(
      `op ${op}: insertMany refused ${JSON.stringify(result.errors)}; expected positions ${JSON.stringify(expectRefused)}`,
    );
  }
  const nothingStored = atomic && refused.size > 0;
  const stored = nothingStored ? 0 : items.length - refused.size;
  if (result.ids.length !== stored) {
    fatal(`op ${op}: insertMany stored ${result.ids.length} documents; expected ${stored}`);
  }
  let next = 0;
  return items.map((item, i) => {
    if (nothingStored || refused.has(i)) return null;
    const id = result.ids[next++] as string;
    if (item.id && item.id !== id) fatal(`op ${op}: item ${i} kept id ${item.id} as ${id}`);
    return id;
  });
}

/** A pnr value the unique index enforces (nulls and missing values are exempt). */
function isUniqueValue(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number';
}

/**
 * Runs a checkpoint or a flush every few dozen milliseconds beside the writes, printing a line
 * before and after each, until the process dies.
 */
async function maintenanceLane(db: Database, random: () => number): Promise<never> {
  for (let n = 1; ; n++) {
    await sleep(randomInt(random, MAINTENANCE_GAP_MS_MIN, MAINTENANCE_GAP_MS_MAX));
    const maintenance = random() < CHECKPOINT_SHARE ? 'checkpoint' : 'flush';
    emit({ maintenance, phase: 'begin', n });
    await (maintenance === 'checkpoint' ? db.checkpoint() : db.flush());
    emit({ maintenance, phase: 'end', n });
  }
}

function parseFlags(args: string[]): Set<WriterFlag> {
  const known = new Set<string>(WRITER_FLAGS);
  for (const arg of args) if (!known.has(arg)) fatal(`unknown writer flag '${arg}'`);
  return new Set(args as WriterFlag[]);
}

async function main(): Promise<void> {
  const [dir, seedText, ...flagArgs] = process.argv.slice(2);
  const seed = Number(seedText);
  if (!dir || !Number.isInteger(seed)) {
    fatal(`usage: writer.ts <data-dir> <integer seed> [${WRITER_FLAGS.join('] [')}]`);
  }
  const flags = parseFlags(flagArgs);
  const db = await open(dir);
  const collection = db.collection(CRASH_COLLECTION);
  const existing = new Set(collection.exists() ? collection.listIndexes().map((i) => i.name) : []);
  for (const index of CRASH_INDEXES) {
    if (existing.has(index.name)) continue;
    await collection.createIndex({ name: index.name, paths: index.paths, unique: index.unique });
  }
  const writer = new Writer(collection, seed, {
    bulk: flags.has('--bulk'),
    lie: flags.has('--lie'),
  });
  const documents = writer.load();
  const random = seededRandom(seed ^ 0x5bd1e995);
  const lanes = randomInt(random, 2, 6);
  emit({ ready: { pid: process.pid, documents, lanes } });
  const running: Array<Promise<never>> = Array.from({ length: lanes }, () => writer.lane());
  if (flags.has('--checkpoints')) {
    running.push(maintenanceLane(db, seededRandom(seed ^ 0x2545f491)));
  }
  await Promise.all(running);
}

main().catch((error: unknown) => {
  fatal(error instanceof Error ? (error.stack ?? error.message) : String(error));
});

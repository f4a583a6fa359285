/**
 * What the crash writer (writer.ts) and the crash harness (crash-harness.ts) share: the
 * collection and indexes under test, the stdout line protocol between them, and a seeded
 * random generator so a failing run can be replayed from its seed. No I/O here.
 */

/** The collection every crash cycle writes to. */
import { seededRandom } from '../../src/util/index.js';

export const CRASH_COLLECTION = 'crash';

/** An index the writer ensures and the harness checks. */
export interface CrashIndex {
  name: string;
  paths: string[];
  unique: boolean;
  multikey: boolean;
}

/** The indexes under test: unique, single path, multikey and composite. */
export const CRASH_INDEXES: readonly CrashIndex[] = [
  { name: 'by_pnr', paths: ['pnr'], unique: true, multikey: false },
  { name: 'by_status', paths: ['status'], unique: false, multikey: false },
  { name: 'by_tag', paths: ['tags[*]'], unique: false, multikey: true },
  { name: 'by_status_n', paths: ['status', 'n'], unique: false, multikey: false },
];

/**
 * A document body as the writer makes it (without `_id`). `w` is unique per write, so a
 * document inserted with a generated id can be recognised even when its ack never arrived.
 */
export type CrashDoc = Record<string, unknown> & { w: string };

/**
 * The sizes of the writer's bulk inserts (`--bulk`); its other batches hold two to six
 * documents, so an insertMany of at least BULK_ITEMS_MIN items is a bulk one.
 */
export const BULK_ITEMS_MIN = 50;
export const BULK_ITEMS_MAX = 250;

/** Whether a write is meant to succeed or to be refused by the unique index. */
export type Expect = 'ok' | 'reject';

/** One document of an insertMany intent. */
export interface BatchItem {
  id?: string;
  doc: CrashDoc;
  expect: Expect;
}

/** Printed just before a write is issued: it may or may not land if the writer dies. */
export type IntentLine =
  | { intent: 'insert'; op: number; id?: string; doc: CrashDoc; expect: Expect }
  | { intent: 'insertMany'; op: number; atomic: boolean; items: BatchItem[] }
  | { intent: 'replace'; op: number; id: string; doc: CrashDoc; expect: Expect }
  | { intent: 'delete'; op: number; id: string };

/** Printed once a write's promise resolved: the write is durable (or durably refused). */
export type AckLine =
  | { ack: 'insert'; op: number; id: string; doc: CrashDoc }
  | { ack: 'insertMany'; op: number; ids: Array<string | null> }
  | { ack: 'replace'; op: number; id: string; doc: CrashDoc }
  | { ack: 'delete'; op: number; id: string }
  | { ack: 'rejected'; op: number; code: string };

/**
 * Printed around a checkpoint or a flush the writer runs beside its writes (`--checkpoints`),
 * so the power-cut harness can cut in the middle of one.
 */
export interface MaintenanceLine {
  maintenance: 'checkpoint' | 'flush';
  phase: 'begin' | 'end';
  n: number;
}

/** Every line the writer prints on stdout, one JSON object per line. */
export type WriterLine =
  | { ready: { pid: number; documents: number; lanes: number } }
  | { fatal: string }
  | MaintenanceLine
  | IntentLine
  | AckLine;

/**
 * What the writer does besides its default writes (none for the kill -9 part):
 * `--checkpoints` runs a checkpoint or a flush every few dozen milliseconds, `--bulk` adds
 * bulk inserts of many documents, and `--lie` prints each ack as soon as its write is issued,
 * before its flush: a broken writer the power-cut harness must catch.
 */
export const WRITER_FLAGS = ['--checkpoints', '--bulk', '--lie'] as const;
export type WriterFlag = (typeof WRITER_FLAGS)[number];

/** A seeded generator of floats in [0, 1) (shared with the engine's sample data). */
export { seededRandom };

/** An integer in [min, max] from a generator. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** A random element of a non-empty array. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/**
 * Checkpoints of the data file. LMDB commits without a flush of its own (the write-ahead log
 * makes a commit durable, wal.ts), so after a power cut the file's newest pages may be torn:
 * its meta pages (the first two, which name the trees' roots) may point at pages that never
 * reached the disk. A checkpoint makes one committed state T of the file durable and records
 * it:
 *
 * 1. right after T committed, the two meta pages are read (as LMDB just wrote them) and a
 *    read transaction is pinned on T, so LMDB reuses none of T's pages while later commits
 *    run;
 * 2. the file is flushed (`fdatasync`): T's pages are on disk;
 * 3. the meta pages are written to `<data file>-wal/checkpoint` durably (in place, into the
 *    slot of the two that does not hold the last record, and flushed: planWrite); only then
 *    is the previous pin released.
 *
 * At open, when the file's meta pages differ from the record's, the record's are written
 * back: the file is T again, whole, and the write-ahead log's entries after T's last seq are
 * applied on top. The record also says whether the file was closed cleanly, so a read-only
 * open knows whether the file needs that first.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { dbError } from '../errors/index.js';
import { fsyncDirectory, makeDirectoryDurably } from '../util/index.js';
import { readFileHeader, readMeta } from './file-header.js';
import { walDirectory } from './wal.js';

const MAGIC = Buffer.from('DOCDBCKP', 'latin1');
/** Version 1: one record, replaced by a rename. Version 2: two slots, written in place. */
const VERSION = 2;
const VERSION_ONE_RECORD = 1;
/**
 * magic, version, page size, flags, generation (version 2), seq (8), then the pages, then a
 * CRC-32 of all before it.
 */
const HEAD_BYTES = 8 + 4 + 4 + 4 + 4 + 8;
const CLEAN = 1;
/** Each slot begins on a boundary of this many bytes, so a write of one leaves the other's. */
const SLOT_ALIGN = 4096;
/** LMDB's smallest and largest page sizes. */
const PAGE_SIZE_MIN = 512;
const PAGE_SIZE_MAX = 65536;

/** A checkpoint as recorded: the two meta pages of a durable state, and what it holds. */
export interface CheckpointRecord {
  pageSize: number;
  /** The file's first two pages (LMDB's meta pages) as they were at the checkpoint. */
  metaPages: Buffer;
  /** The change log's last seq at the checkpoint (for people; open reads it from the file). */
  seq: number;
  /** Set by a clean close: the file is that state and the log holds nothing after it. */
  clean: boolean;
}

/** The record's path for a data file. */
export function checkpointRecordFile(file: string): string {
  return path.join(walDirectory(file), 'checkpoint');
}

/** Reads the two meta pages of an open file (what LMDB last wrote, flushed or not). */
export function readMetaPages(fd: number, pageSize: number): Buffer {
  const pages = Buffer.alloc(2 * pageSize);
  const read = fs.readSync(fd, pages, 0, pages.length, 0);
  if (read !== pages.length) {
    throw dbError('ERR_STORAGE_TRUNCATED', 'shorterThanMeta');
  }
  return pages;
}

/** A record in its slot: the record's bytes, then zeros to the slot's end. */
function encodeSlot(record: CheckpointRecord, generation: number): Buffer {
  const bytes = Buffer.alloc(slotBytes(record.pageSize));
  MAGIC.copy(bytes, 0);
  bytes.writeUInt32LE(VERSION, 8);
  bytes.writeUInt32LE(record.pageSize, 12);
  bytes.writeUInt32LE(record.clean ? CLEAN : 0, 16);
  bytes.writeUInt32LE(generation, 20);
  bytes.writeUIntLE(record.seq, 24, 6);
  record.metaPages.copy(bytes, HEAD_BYTES);
  const end = HEAD_BYTES + record.metaPages.length;
  bytes.writeUInt32LE(zlib.crc32(bytes.subarray(0, end)), end);
  return bytes;
}

function slotBytes(pageSize: number): number {
  return Math.ceil((HEAD_BYTES + 2 * pageSize + 4) / SLOT_ALIGN) * SLOT_ALIGN;
}

interface Slot {
  record: CheckpointRecord;
  generation: number;
}

/**
 * The record file holds two slots, each a whole record with a generation. A checkpoint writes
 * the slot that does not hold the newest record, in place, and flushes it: it takes no new
 * room on the disk (a checkpoint is what lets a node on a full disk reuse the pages its
 * deletes freed, and remove its log), and a write a power cut tears leaves the other slot's
 * record, whose state the previous checkpoint's pin kept whole. The newest whole slot is the
 * record. A version 1 file (one record) is read as it is and rewritten whole, once.
 */
function newestSlot(bytes: Buffer, recordFile: string): Slot {
  if (bytes.length >= 12 && bytes.readUInt32LE(8) === VERSION_ONE_RECORD) {
    return decodeSlot(bytes, recordFile, VERSION_ONE_RECORD);
  }
  const half = bytes.length / 2;
  if (!Number.isInteger(half) || half % SLOT_ALIGN !== 0) {
    // Not two slots: the first one's own checks say what is wrong.
    return decodeSlot(bytes, recordFile, VERSION);
  }
  return newestOfTwo(bytes, half, recordFile).slot;
}

/** The newest whole slot of two of `half` bytes each, and where it lies; else the first fault. */
function newestOfTwo(bytes: Buffer, half: number, recordFile: string): { at: number; slot: Slot } {
  let newest: { at: number; slot: Slot } | undefined;
  let failure: unknown;
  for (const at of [0, half]) {
    try {
      const slot = decodeSlot(bytes.subarray(at, at + half), recordFile, VERSION);
      if (!newest || slot.generation > newest.slot.generation) newest = { at, slot };
    } catch (error) {
      failure ??= error;
    }
  }
  if (newest) return newest;
  throw failure;
}

/** The record in one slot (its bytes, padding after it allowed in version 2). */
function decodeSlot(bytes: Buffer, recordFile: string, expected: number): Slot {
  const where = { file: recordFile };
  if (bytes.length < HEAD_BYTES + 4 || !bytes.subarray(0, 8).equals(MAGIC)) {
    throw dbError('ERR_STORAGE_CORRUPT', 'checkpointNotRecord', where, where);
  }
  const version = bytes.readUInt32LE(8);
  if (version !== expected) {
    throw dbError(
      'ERR_STORAGE_CORRUPT',
      'checkpointFormat',
      { file: recordFile, version, versionRead: VERSION },
      where,
    );
  }
  const pageSize = bytes.readUInt32LE(12);
  const end = HEAD_BYTES + 2 * pageSize;
  const length = version === VERSION ? slotBytes(pageSize) : end + 4;
  if (pageSize < PAGE_SIZE_MIN || pageSize > PAGE_SIZE_MAX || bytes.length !== length) {
    throw dbError('ERR_STORAGE_CORRUPT', 'checkpointLength', { file: recordFile, pageSize }, where);
  }
  if (zlib.crc32(bytes.subarray(0, end)) !== bytes.readUInt32LE(end)) {
    throw dbError('ERR_STORAGE_CORRUPT', 'checkpointChecksum', where, where);
  }
  return {
    record: {
      pageSize,
      metaPages: bytes.subarray(HEAD_BYTES, end),
      seq: bytes.readUIntLE(24, 6),
      clean: (bytes.readUInt32LE(16) & CLEAN) !== 0,
    },
    generation: version === VERSION ? bytes.readUInt32LE(20) : 0,
  };
}

/** The record of a data file's last checkpoint, or undefined when it has none (never checkpointed). */
export function readCheckpointRecord(file: string): CheckpointRecord | undefined {
  const bytes = readRecordFile(checkpointRecordFile(file));
  return bytes && newestSlot(bytes, checkpointRecordFile(file)).record;
}

function readRecordFile(recordFile: string): Buffer | undefined {
  try {
    return fs.readFileSync(recordFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * How to write `record` over the record file's `bytes`: into the slot the newest record is
 * not in, in place; or, for a file not yet of two slots of this page size (none, version 1, a
 * damaged one), the whole file anew, by a rename (it takes room, once).
 */
function planWrite(
  bytes: Buffer | undefined,
  record: CheckpointRecord,
  recordFile: string,
): { at: number; slot: Buffer } | { whole: Buffer } {
  const half = slotBytes(record.pageSize);
  let newest: { at: number; slot: Slot } | undefined;
  try {
    if (bytes?.length === 2 * half) newest = newestOfTwo(bytes, half, recordFile);
  } catch {
    // Neither slot whole: the file is written anew.
  }
  if (!newest) {
    const whole = Buffer.alloc(2 * half);
    encodeSlot(record, 1).copy(whole, 0);
    return { whole };
  }
  return { at: newest.at === 0 ? half : 0, slot: encodeSlot(record, newest.slot.generation + 1) };
}

/** Writes the record durably, synchronously (at open and close). */
export function writeCheckpointRecordSync(file: string, record: CheckpointRecord): void {
  const target = checkpointRecordFile(file);
  makeDirectoryDurably(path.dirname(target));
  const plan = planWrite(readRecordFile(target), record, target);
  const inPlace = 'slot' in plan;
  const written = inPlace ? target : `${target}.tmp`;
  const fd = fs.openSync(written, inPlace ? 'r+' : 'w');
  try {
    if (inPlace) fs.writeSync(fd, plan.slot, 0, plan.slot.length, plan.at);
    else fs.writeSync(fd, plan.whole);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  if (inPlace) return;
  fs.renameSync(written, target);
  fsyncDirectory(path.dirname(target));
}

/** Writes the record durably off the event loop (checkpoints while writes go on). */
export async function writeCheckpointRecord(file: string, record: CheckpointRecord): Promise<void> {
  const target = checkpointRecordFile(file);
  const plan = planWrite(await readRecordFileAsync(target), record, target);
  const inPlace = 'slot' in plan;
  const written = inPlace ? target : `${target}.tmp`;
  const handle = await fs.promises.open(written, inPlace ? 'r+' : 'w');
  try {
    if (inPlace) await handle.write(plan.slot, 0, plan.slot.length, plan.at);
    else await handle.writeFile(plan.whole);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (inPlace) return;
  await fs.promises.rename(written, target);
  const dir = await fs.promises.open(path.dirname(target), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

async function readRecordFileAsync(recordFile: string): Promise<Buffer | undefined> {
  try {
    return await fs.promises.readFile(recordFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Whether the file's meta pages on disk differ from the record's: LMDB committed after the
 * checkpoint (or a crash tore what it wrote). False for a file cut shorter than its meta
 * pages, or than the last page the record's state holds: the open refuses it, naming both
 * sizes, and nothing is written into it.
 */
export function metaPagesMoved(file: string, record: CheckpointRecord): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    if (fs.fstatSync(fd).size < recordedBytes(record)) return false;
    return !readMetaPages(fd, record.pageSize).equals(record.metaPages);
  } finally {
    fs.closeSync(fd);
  }
}

/** The least size of a file in the record's state: up to its last page in use. */
function recordedBytes(record: CheckpointRecord): number {
  const lastPages = [0, 1].map(
    (n) => readMeta(record.metaPages.subarray(n * record.pageSize), n)?.lastPage ?? 1,
  );
  return (Math.max(1, ...lastPages) + 1) * record.pageSize;
}

/**
 * Puts the file back at its last checkpoint: writes the record's meta pages over the file's
 * and flushes them. Call under the writer lock, before LMDB opens the file. Returns whether
 * anything was written.
 */
export function restoreCheckpoint(file: string, record: CheckpointRecord): boolean {
  if (!metaPagesMoved(file, record)) return false;
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, record.metaPages, 0, record.metaPages.length, 0);
    fs.fdatasyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/**
 * Whether a file must be recovered before it is read: it has a checkpoint record and was not
 * closed cleanly, or its meta pages moved since (a writer is running, or one crashed).
 */
export function needsRecovery(file: string): boolean {
  const record = readCheckpointRecord(file);
  if (!record) return false;
  return !record.clean || metaPagesMoved(file, record);
}

/**
 * Readies a file for a writing open, under its writer lock and before LMDB opens it, and
 * marks it open (its record no longer clean) before anything commits when the open's commits
 * are `logged` (made durable by the write-ahead log, not flushed by LMDB):
 * - after a crash (the record is not clean), puts the file back at its last checkpoint when
 *   LMDB committed past it, and answers true: the log's entries after it must be applied
 *   again;
 * - for a file closed cleanly and written since by something that flushes its own commits
 *   (an older docdb, LMDB's tools), or never checkpointed at all, takes the file as it is on
 *   disk as the first checkpoint, so that nothing this open commits can tear it.
 */
export function prepareForWriting(file: string, logged: boolean): boolean {
  if (!fs.existsSync(file)) return false;
  const record = readCheckpointRecord(file);
  if (record && !record.clean) return restoreCheckpoint(file, record);
  // LMDB flushes each commit of this open itself: the file is always its own checkpoint.
  if (!logged) return false;
  if (record && !metaPagesMoved(file, record)) {
    writeCheckpointRecordSync(file, { ...record, clean: false });
    return false;
  }
  const pageSize = readFileHeader(file).meta?.pageSizeBytes;
  // A file LMDB cannot read is refused by the open that follows, with its reasons.
  if (pageSize === undefined || pageSize < PAGE_SIZE_MIN || pageSize > PAGE_SIZE_MAX) return false;
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fdatasyncSync(fd);
    const metaPages = readMetaPages(fd, pageSize);
    writeCheckpointRecordSync(file, { pageSize, metaPages, seq: record?.seq ?? 0, clean: false });
  } finally {
    fs.closeSync(fd);
  }
  return false;
}

/**
 * Records the file as it is on disk now as a clean checkpoint (its commits were flushed by
 * LMDB): after an open whose commits LMDB flushes applied the log again, so that later opens
 * take the file as it is.
 */
export function recordAsClean(file: string, pageSize: number, seq: number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fdatasyncSync(fd);
    const metaPages = readMetaPages(fd, pageSize);
    writeCheckpointRecordSync(file, { pageSize, metaPages, seq, clean: true });
  } finally {
    fs.closeSync(fd);
  }
}

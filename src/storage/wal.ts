/**
 * The write-ahead log: each commit group's change-log entries, as the data file stores them,
 * appended to a segment file beside the data file and flushed with one `fdatasync`; that
 * flush is the acknowledgement (docs/adr/0023-write-ahead-log.md). LMDB commits without a
 * flush of its own and is made durable at checkpoints (checkpoint.ts); at open, the entries
 * after the last checkpoint are applied again from here.
 *
 * A segment is `<data file>-wal/<first seq, 16 digits>.wal`: a 16-byte header, then frames.
 * A frame is one commit group: its length and CRC-32 (8 bytes), the seq of its first entry
 * (8 bytes; a group's seqs follow on), then its entries, each its length (4 bytes) and its
 * stored bytes. A frame cut short by a crash fails its length or its CRC and ends the log
 * there. A segment is written with zeros ahead of its frames, a MiB at a time, so that a
 * flush writes only the frames' blocks and seldom the file's size (on ext4 a size change makes
 * the flush commit the journal, which writes out the data file's new blocks too); a zero
 * frame head ends the segment's frames.
 * Appends made while a flush runs wait and go together in the next write and flush, so one
 * flush covers every group that arrived meanwhile.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { type DbError, dbError } from '../errors/index.js';
import { fsyncDirectory, makeDirectoryDurably, namesInDirectory } from '../util/index.js';

/** A segment is closed and the next begun once it holds this many bytes. */
export const WAL_SEGMENT_BYTES = 16 * 1024 * 1024;
/** Zeros written ahead of a segment's frames at a time (at most: WalWriter.extentBytes). */
export const WAL_EXTENT_BYTES = 1024 * 1024;

const MAGIC = Buffer.from('DOCDBWAL', 'latin1');
const VERSION = 1;
const HEADER_BYTES = 16;
const FRAME_HEAD_BYTES = 8;
const SEQ_BYTES = 8;
const SEGMENT_NAME = /^(\d{16})\.wal$/;
/** The zeros a segment begins with past its header: where its frames end. */
const END = Symbol('end of the log');
const ZEROS = Buffer.alloc(1024 * 1024);

/** The write-ahead log's directory for a data file. */
export function walDirectory(file: string): string {
  return `${file}-wal`;
}

function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(16, '0')}.wal`;
}

function segmentHeader(): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(VERSION, 8);
  return header;
}

/** One commit group's entries, the first at `firstSeq`, as a frame. */
export function encodeFrame(entries: readonly Uint8Array[], firstSeq: number): Buffer {
  let size = SEQ_BYTES;
  for (const entry of entries) size += 4 + entry.length;
  const frame = Buffer.allocUnsafe(FRAME_HEAD_BYTES + size);
  frame.writeUIntLE(firstSeq, FRAME_HEAD_BYTES, 6);
  frame.writeUInt16LE(0, FRAME_HEAD_BYTES + 6);
  let at = FRAME_HEAD_BYTES + SEQ_BYTES;
  for (const entry of entries) {
    frame.writeUInt32LE(entry.length, at);
    frame.set(entry, at + 4);
    at += 4 + entry.length;
  }
  frame.writeUInt32LE(size, 0);
  frame.writeUInt32LE(zlib.crc32(frame.subarray(FRAME_HEAD_BYTES)), 4);
  return frame;
}

/** A segment file on disk: its path and the seq its name says it starts at. */
export interface Segment {
  file: string;
  firstSeq: number;
}

/** The segments of a write-ahead log in seq order (none when the directory is missing). */
export function listWalSegments(dir: string): Segment[] {
  const segments: Segment[] = [];
  for (const name of namesInDirectory(dir)) {
    const match = SEGMENT_NAME.exec(name);
    if (match) segments.push({ file: path.join(dir, name), firstSeq: Number(match[1]) });
  }
  return segments.sort((a, b) => a.firstSeq - b.firstSeq);
}

/** An entry read back from the log: its seq and its stored bytes. */
export interface WalEntry {
  seq: number;
  bytes: Uint8Array;
}

/** What a read of the log found: its entries in order, and where it stopped. */
export interface WalRead {
  entries: WalEntry[];
  /** Segments read. */
  segments: number;
  /** Why the read stopped before the end of the last segment, if it did. */
  stopped?: string;
}

/**
 * Reads every whole frame of every segment, in order, keeping the entries with a seq above
 * `afterSeq` while they follow on without a gap. A segment's frames end at zeros, or at a
 * frame that is torn (short or failing its CRC) or a segment that has no header: the read goes
 * on with the next segment (a failed flush ends a segment; a checkpoint then holds what it
 * lost), and a gap in the seqs stops it. After the last segment, a torn frame stops it too.
 * What follows a stop was never acknowledged (an acknowledged group is flushed whole, after
 * every group before it is durable). A segment that begins at a seq an earlier one already
 * gave supersedes those entries from that seq on (WalWriter.erase: a frame whose commit
 * failed, taken back after its segment had ended).
 */
export function readWal(dir: string, afterSeq: number): WalRead {
  const read: WalRead = { entries: [], segments: 0 };
  let expected = afterSeq + 1;
  for (const segment of listWalSegments(dir)) {
    const bytes = fs.readFileSync(segment.file);
    read.segments++;
    read.stopped = undefined;
    if (segment.firstSeq < expected) {
      const from = Math.max(segment.firstSeq, afterSeq + 1);
      read.entries.length -= expected - from;
      expected = from;
    }
    if (bytes.length < HEADER_BYTES || !bytes.subarray(0, 8).equals(MAGIC)) {
      read.stopped = `${segment.file} has no write-ahead log header`;
      continue;
    }
    let at = HEADER_BYTES;
    while (at < bytes.length) {
      const frame = frameAt(bytes, at);
      if (frame === END) break;
      if (typeof frame === 'string') {
        read.stopped = `${segment.file} at byte ${at}: ${frame}`;
        break;
      }
      for (let k = 0; k < frame.entries.length; k++) {
        const seq = frame.firstSeq + k;
        const bytesOfEntry = frame.entries[k] as Uint8Array;
        if (seq < expected) continue;
        if (seq > expected) {
          read.stopped = `${segment.file} at byte ${at}: seq ${seq} follows ${expected - 1}`;
          return read;
        }
        read.entries.push({ seq, bytes: bytesOfEntry });
        expected++;
      }
      at = frame.end;
    }
  }
  return read;
}

/** The frame at `at`, or why there is none whole. */
function frameAt(
  bytes: Buffer,
  at: number,
): { firstSeq: number; entries: Uint8Array[]; end: number } | string | typeof END {
  if (bytes.length - at < FRAME_HEAD_BYTES) return 'a frame head cut short';
  const size = bytes.readUInt32LE(at);
  const crc = bytes.readUInt32LE(at + 4);
  if (size === 0 && crc === 0) return END;
  const start = at + FRAME_HEAD_BYTES;
  const end = start + size;
  if (size <= SEQ_BYTES || end > bytes.length) return 'a frame cut short';
  const body = bytes.subarray(start, end);
  if (zlib.crc32(body) !== crc) return 'a frame whose checksum does not match';
  const firstSeq = body.readUIntLE(0, 6);
  const entries: Uint8Array[] = [];
  for (let p = SEQ_BYTES; p < size; ) {
    const length = size - p >= 4 ? body.readUInt32LE(p) : -1;
    if (length <= 0 || p + 4 + length > size) return 'a frame whose entries do not add up';
    entries.push(body.subarray(p + 4, p + 4 + length));
    p += 4 + length;
  }
  return { firstSeq, entries, end };
}

/** Removes every segment of a write-ahead log (its checkpoint record stays). */
export function dropWalSegments(dir: string): void {
  const segments = listWalSegments(dir);
  for (const segment of segments) fs.rmSync(segment.file, { force: true });
  if (segments.length > 0) fsyncDirectory(dir);
}

/** Removes the write-ahead log of a data file (a file made anew, or restored in place). */
export function removeWal(file: string): void {
  const dir = walDirectory(file);
  if (!fs.existsSync(dir)) return;
  fs.rmSync(dir, { recursive: true, force: true });
  fsyncDirectory(path.dirname(dir));
}

/** A segment file the writer holds open: written in, or reserved in ahead of the writes. */
interface OpenSegment {
  file: string;
  /** The seq its name says it starts at. */
  firstSeq: number;
  fd: number;
  /** Where its written frames end. */
  writtenBytes: number;
  /** How far it is written with zeros (or frames). */
  zeroedBytes: number;
  /** Where its frames will end once every frame reserved in it is written. */
  reservedBytes: number;
  /** Set until its name is flushed into the directory (with its first frame's flush). */
  nameUnsynced: boolean;
}

/**
 * A frame to write into the segment its room was reserved in, or, without one, the
 * retraction of the frame of `firstSeq`.
 */
interface Waiting {
  frame?: Buffer;
  segment?: OpenSegment;
  firstSeq: number;
  /** The seq of the frame's last entry. */
  lastSeq?: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Appends frames and flushes them in groups, off the event loop (libuv's threads
 * `fdatasync`). Each append's promise resolves once its frame is on disk, in append order.
 * Which segment a frame goes in is chosen when it is appended, and its room there written
 * then: a frame that begins a new segment while frames of the old one still wait begins it
 * at once, so a full disk refuses it before its group commits, as any other. A failed write or
 * flush fails the frames waiting on it and ends their segments (what the one written holds
 * past its last whole frame is unknown); the next append begins a new one.
 */
export class WalWriter {
  /** The segment frames are written to: that of the last frame written. */
  private writing: OpenSegment | undefined;
  /** The segment the next frame's room is reserved in: `writing`, or one begun after it. */
  private tail: OpenSegment | undefined;
  /**
   * Set by a checkpoint that could not cut the segment written to back (frames after it were
   * written or waiting): the next append begins a new segment, so that the next checkpoint
   * can remove this one whole.
   */
  private rotationWanted = false;
  /** The last frame written: its first seq and where it begins in `writing`. */
  private lastWritten: { firstSeq: number; at: number } | undefined;
  /** The highest seq of the frames whose write began (in any segment), erased ones not counted. */
  private lastSeqWritten = 0;
  private waiting: Waiting[] = [];
  private flushing = false;
  /** Set once closed: every append fails. */
  private closed: DbError | undefined;
  private idle: Array<() => void> = [];
  /** Bytes appended since the last checkpoint began (the checkpoint trigger reads it). */
  bytesSince = 0;
  /** Flushes so far: fewer than appends when appends share them. */
  flushes = 0;
  /**
   * Zeros written ahead of the frames at a time: WAL_EXTENT_BYTES, less on a disk with little
   * room (set by the owner), where a MiB ahead of a few frames would be room its data lacks.
   */
  extentBytes = WAL_EXTENT_BYTES;

  constructor(private readonly dir: string) {}

  /** Makes the log's directory (durably); the first append begins a segment. */
  open(): void {
    makeDirectoryDurably(this.dir);
  }

  /**
   * Appends one commit group's entries (`firstSeq`: the seq of its first); resolves once
   * flushed. The frame's room in its segment is written with zeros now, so that a full disk
   * throws here (the file system's own error), before its group commits, rather than later.
   */
  append(entries: readonly Uint8Array[], firstSeq: number): Promise<void> {
    if (this.closed) return Promise.reject(this.closed);
    const frame = encodeFrame(entries, firstSeq);
    const segment = this.reserve(frame.length, firstSeq);
    this.bytesSince += frame.length;
    return new Promise<void>((resolve, reject) => {
      const lastSeq = firstSeq + entries.length - 1;
      this.waiting.push({ frame, segment, firstSeq, lastSeq, resolve, reject });
      if (!this.flushing) void this.flushLoop();
    });
  }

  /**
   * Takes back the frame appended last, whose first seq is `firstSeq`: its commit failed, and
   * the next commit will use its seqs again. A frame not yet written is dropped, with its room
   * (and a segment it began). A written one is overwritten with zeros once the frames before
   * it are flushed, and that is flushed too (it needs no new room on a full disk): a read ends
   * there, and the next frame is written in its place. Resolves once that is done; the frame's
   * own append resolves.
   */
  retract(firstSeq: number): Promise<void> {
    const last = this.waiting.at(-1);
    if (last?.frame && last.firstSeq === firstSeq) {
      this.waiting.pop();
      this.unreserve(last);
      last.resolve();
      return Promise.resolve();
    }
    if (this.closed) return Promise.reject(this.closed);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ firstSeq, resolve, reject });
      if (!this.flushing) void this.flushLoop();
    });
  }

  /**
   * Gives back the room of the last frame reserved, dropped unwritten; a segment it began goes
   * (not one a retraction made durable: that one supersedes a frame taken back).
   */
  private unreserve(dropped: Waiting): void {
    const segment = dropped.segment as OpenSegment;
    segment.reservedBytes -= (dropped.frame as Buffer).length;
    if (!isUnused(segment) || segment === this.writing || segment.reservedBytes > HEADER_BYTES) {
      return;
    }
    closeQuietly(segment.fd);
    removeQuietly(segment.file);
    this.tail = this.waiting.findLast((w) => w.frame)?.segment ?? this.writing;
  }

  /**
   * Zeros over the last frame written, the one of `firstSeq`, flushed; the segment goes on
   * from there. Should its segment have ended meanwhile (a failed flush), a segment begun at
   * `firstSeq` supersedes it instead: the one the next frame, which takes its seqs, was
   * reserved in, or a new one.
   */
  private async erase(firstSeq: number): Promise<void> {
    const last = this.lastWritten;
    const segment = this.writing;
    if (segment === undefined || last?.firstSeq !== firstSeq) {
      const superseding = this.tail?.firstSeq === firstSeq ? this.tail : this.beginTail(firstSeq);
      await fdatasync(superseding.fd);
      fsyncDirectory(this.dir);
      superseding.nameUnsynced = false;
      return;
    }
    writeZeros(segment.fd, last.at, segment.writtenBytes);
    await fdatasync(segment.fd);
    segment.writtenBytes = last.at;
    this.lastWritten = undefined;
    this.lastSeqWritten = firstSeq - 1;
  }

  /** Resolves once every frame appended so far is flushed (or failed). */
  whenFlushed(): Promise<void> {
    if (!this.flushing) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Removes every segment: a checkpoint holds all they hold (at open, once what they held
   * past the checkpoint was applied again and checkpointed).
   */
  dropAll(): void {
    dropWalSegments(this.dir);
  }

  /**
   * Removes every whole segment whose entries all have seqs up to `seq` (a checkpoint holds
   * them), up to the one written to. Once every frame written is covered and none waits, that
   * one is cut back to its header too, keeping its name (a read takes its later frames after
   * the checkpoint's seq as ever): after a checkpoint of a quiet moment (a clean close's, or
   * one a full disk asked for) the log takes no room, where the segment kept its frames, and
   * the zeros written ahead of them, up to WAL_SEGMENT_BYTES. It stays open so that the next
   * append still finds a full disk before its group commits (`reserve`). Should the cut not
   * reach the disk before a crash, the old frames it held come back behind the checkpoint's
   * seq, where a read skips them, or after the new ones, where a torn frame ends the read.
   * When later frames keep it from being cut, the next append begins a new segment instead,
   * and a later checkpoint removes this one whole: under steady writes too the log holds
   * about what two checkpoints apart wrote, not a segment's worth.
   */
  dropThrough(seq: number): void {
    const segments = listWalSegments(this.dir);
    const allCovered = !this.flushing && this.waiting.length === 0 && this.lastSeqWritten <= seq;
    const held = new Set([this.writing?.file, this.tail?.file]);
    let removed = false;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as Segment;
      const next = segments[i + 1];
      if (held.has(segment.file) || !(next ? next.firstSeq - 1 <= seq : allCovered)) break;
      fs.rmSync(segment.file, { force: true });
      removed = true;
    }
    if (removed) fsyncDirectory(this.dir);
    const segment = this.writing;
    if (segment === undefined || segment !== this.tail || segment.writtenBytes === HEADER_BYTES) {
      return;
    }
    if (allCovered) {
      fs.ftruncateSync(segment.fd, HEADER_BYTES);
      segment.writtenBytes = HEADER_BYTES;
      segment.zeroedBytes = HEADER_BYTES;
      segment.reservedBytes = HEADER_BYTES;
      this.lastWritten = undefined;
      this.rotationWanted = false;
    } else {
      this.rotationWanted = true;
    }
  }

  /** Closes the open segments; appends after this fail. */
  async close(): Promise<void> {
    await this.whenFlushed();
    this.endSegments([]);
    this.closed = dbError('ERR_STORAGE_CLOSED', 'closed');
  }

  /**
   * Writes and flushes what waits, group after group: the frames of one segment up to the
   * next retraction, or the retraction alone. A failed write or flush fails its group and
   * every group waiting behind it, and ends their segments: the next append begins a new one.
   * The owner must then make the failed groups' commits durable another way (a checkpoint)
   * before it acknowledges a later group.
   */
  private async flushLoop(): Promise<void> {
    this.flushing = true;
    while (this.waiting.length > 0) {
      const first = this.waiting[0] as Waiting;
      const end = first.frame
        ? this.waiting.findIndex((w) => !w.frame || w.segment !== first.segment)
        : 1;
      const group = end < 0 ? this.waiting : this.waiting.slice(0, end);
      this.waiting = end < 0 ? [] : this.waiting.slice(end);
      try {
        if (first.frame) await this.writeAndFlush(group);
        else await this.erase(first.firstSeq);
        for (const waiting of group) waiting.resolve();
      } catch (error) {
        const failed = flushFailed(this.dir, error);
        const dropped = [...group, ...this.waiting];
        this.waiting = [];
        for (const waiting of dropped) waiting.reject(failed);
        this.endSegments(dropped);
      }
    }
    this.flushing = false;
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
  }

  /** Writes a group of frames of one segment, and flushes it. */
  private async writeAndFlush(group: Waiting[]): Promise<void> {
    const segment = (group[0] as Waiting).segment as OpenSegment;
    if (segment !== this.writing) {
      if (this.writing) closeQuietly(this.writing.fd);
      this.writing = segment;
      this.lastWritten = undefined;
    }
    const frames = group.map((w) => w.frame as Buffer);
    const data = frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames);
    const at = segment.writtenBytes;
    // Counted before the write: a frame a failed write left in part is not covered either.
    this.lastSeqWritten = (group.at(-1) as Waiting).lastSeq as number;
    this.zeroAhead(segment, at + data.length);
    // The write only copies into the page cache: done here, it saves a trip through libuv's
    // threads; the flush, which waits for the disk, runs there.
    for (let written = 0; written < data.length; ) {
      written += fs.writeSync(segment.fd, data, written, data.length - written, at + written);
    }
    const last = group.at(-1) as Waiting;
    this.lastWritten = {
      firstSeq: last.firstSeq,
      at: at + data.length - (last.frame as Buffer).length,
    };
    segment.writtenBytes = at + data.length;
    segment.reservedBytes = Math.max(segment.reservedBytes, segment.writtenBytes);
    await fdatasync(segment.fd);
    if (segment.nameUnsynced) {
      fsyncDirectory(this.dir);
      segment.nameUnsynced = false;
    }
    this.flushes++;
  }

  /**
   * Chooses the segment of a frame of `bytes`, the frame of `firstSeq`, and writes zeros over
   * its room there: in the segment of the frame before, unless that one would pass
   * WAL_SEGMENT_BYTES with it (or a checkpoint wants a new one), in which case a segment is
   * begun here, though frames of the one before may still wait. So a frame's room, and its
   * segment, are taken before its group commits, and a full disk refuses the group.
   */
  private reserve(bytes: number, firstSeq: number): OpenSegment {
    const tail = this.tail;
    const full =
      tail !== undefined &&
      tail.reservedBytes > HEADER_BYTES &&
      tail.reservedBytes + bytes > WAL_SEGMENT_BYTES;
    const segment =
      tail === undefined || full || this.rotationWanted ? this.beginTail(firstSeq) : tail;
    const end = segment.reservedBytes + bytes;
    this.zeroAhead(segment, end);
    segment.reservedBytes = end;
    return segment;
  }

  /**
   * Zeros written up to `end` at least, an extent at a time: most flushes then leave the size
   * alone. On a disk too full for the extent, up to `end` is enough.
   */
  private zeroAhead(segment: OpenSegment, end: number): void {
    if (end <= segment.zeroedBytes) return;
    const to = Math.max(end, segment.zeroedBytes + this.extentBytes);
    segment.zeroedBytes = writeZeros(segment.fd, segment.zeroedBytes, to, end);
  }

  /**
   * Closes the segments written and reserved in, and those of `dropped` (frames a failed
   * flush failed); one only reserved in is removed, or it would only hold zeros.
   */
  private endSegments(dropped: readonly Waiting[]): void {
    const segments = new Set([this.writing, this.tail, ...dropped.map((w) => w.segment)]);
    for (const segment of segments) {
      if (segment === undefined) continue;
      closeQuietly(segment.fd);
      if (segment !== this.writing && isUnused(segment)) removeQuietly(segment.file);
    }
    this.writing = undefined;
    this.tail = undefined;
    this.lastWritten = undefined;
  }

  /**
   * Begins a segment at `firstSeq`, the one later frames are reserved in. Its name is made
   * durable with the first flush of a frame in it (writeAndFlush), or by a retraction it
   * supersedes for (erase).
   */
  private beginTail(firstSeq: number): OpenSegment {
    const file = path.join(this.dir, segmentName(firstSeq));
    const fd = fs.openSync(file, 'w');
    try {
      fs.writeSync(fd, segmentHeader());
    } catch (error) {
      // A full disk: no segment is left behind for each append that finds it so.
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
      throw error;
    }
    const segment: OpenSegment = {
      file,
      firstSeq,
      fd,
      writtenBytes: HEADER_BYTES,
      zeroedBytes: HEADER_BYTES,
      reservedBytes: HEADER_BYTES,
      nameUnsynced: true,
    };
    this.tail = segment;
    this.rotationWanted = false;
    return segment;
  }
}

/**
 * A segment only reserved in: no frame written, its name never flushed (a segment a retraction
 * begins is flushed at once, as it supersedes the frame taken back, and must stay).
 */
function isUnused(segment: OpenSegment): boolean {
  return segment.nameUnsynced && segment.writtenBytes === HEADER_BYTES;
}

/**
 * Removes a segment that holds only zeros. It is tidying: a file left behind reads as no
 * frames. So a failure here must not take the place of the error being handled, or go
 * unhandled from the flush loop.
 */
function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Left behind: harmless, and removed whole by a later checkpoint.
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // After a failed write the descriptor may be unusable; the segment is done with either way.
  }
}

/**
 * Zeros over the bytes [from, to) of a file, a MiB at a time; returns where they end. A full
 * disk may end them early once past `needed`; before it, its error is thrown. A write may be
 * short (a disk that fills on the way): the rest is written again, which then throws, rather
 * than room believed taken that is not.
 */
function writeZeros(fd: number, from: number, to: number, needed = to): number {
  let at = from;
  try {
    while (at < to) at += fs.writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, to - at), at);
  } catch (error) {
    if (at < needed || (error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  return at;
}

function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())),
  );
}

function flushFailed(dir: string, error: unknown): DbError {
  return notDurable('log', dir, error);
}

/**
 * The error of writes that were committed but could not be made durable: the write-ahead log
 * in the directory `at` could not be flushed, or the checkpoint of the data file `at` could not
 * be made. Not acknowledged, though a later checkpoint or the log may still hold them;
 * ERR_STORAGE_FULL when the disk is full.
 */
export function notDurable(what: 'log' | 'checkpoint', at: string, error: unknown): DbError {
  const code = (error as NodeJS.ErrnoException).code;
  const full = code === 'ENOSPC' || code === 'EDQUOT';
  const cause = error instanceof Error ? error.message : String(error);
  const failed = notDurableError(what, at, full, cause);
  failed.cause = error;
  return failed;
}

function notDurableError(what: 'log' | 'checkpoint', at: string, full: boolean, cause: string) {
  if (what === 'log') {
    const dir = at;
    return full
      ? dbError('ERR_STORAGE_FULL', 'logNotDurable', { dir, cause }, { dir })
      : dbError('ERR_STORAGE_FAILED', 'logNotDurable', { dir, cause }, { dir });
  }
  const [file, dir] = [at, path.dirname(at)];
  return full
    ? dbError('ERR_STORAGE_FULL', 'checkpointNotDurable', { dir, file, cause }, { dir })
    : dbError('ERR_STORAGE_FAILED', 'checkpointNotDurable', { file, cause }, { dir });
}

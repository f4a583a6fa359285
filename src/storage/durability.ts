/**
 * When a commit is durable. Each commit group is acknowledged, in commit order, once either
 * its change-log entries are flushed in the write-ahead log (wal.ts: one append and one
 * `fdatasync`) or a checkpoint made the whole file durable (checkpoint.ts: for commits the
 * log's entries cannot redo, such as a new collection or index, a new term or a snapshot
 * load). Checkpoints also run once the log has grown by `checkpointBytes` since the last, so
 * that an open after a crash applies at most about that much again, or once LMDB's commits
 * have written half of that in pages, which the pinned checkpoint keeps from reuse (sooner on
 * a disk with little room: checkpointInterval), and when a commit finds the disk full; they
 * run off the event loop while writes go on. The log goes first: a group's frame is written and
 * its flush begun before LMDB commits it (logAhead), and taken back if that commit fails.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  type CheckpointRecord,
  readMetaPages,
  writeCheckpointRecord,
  writeCheckpointRecordSync,
} from './checkpoint.js';
import type { Env, ReadSnapshot } from './lmdb-env.js';
import { envStats, pinSnapshot } from './lmdb-env.js';
import { notDurable, WAL_EXTENT_BYTES, WalWriter, walDirectory } from './wal.js';

/** The least checkpoint interval on a disk with little room (checkpointInterval). */
const INTERVAL_FLOOR_BYTES = 256 * 1024;

/** How a commit group is made durable. */
export type Durable =
  /** Its entries go to the write-ahead log. */
  | { by: 'log'; entries: readonly Uint8Array[]; firstSeq: number }
  /** A checkpoint (the log cannot redo it). */
  | { by: 'checkpoint' }
  /** It changed nothing that must survive: it waits only for the groups before it. */
  | { by: 'nothing' };

/**
 * A commit group on its way to durable: how it is made so, and, for the log, its append,
 * begun before LMDB commits it (the log first: the commit runs while the disk flushes).
 */
export interface Pending {
  durable: Durable;
  appended?: Promise<void>;
}

/** What a checkpoint reports. */
export interface CheckpointDone {
  seq: number;
}

export class Durability {
  private readonly wal: WalWriter;
  private readonly fd: number;
  private readonly pageSize: number;
  /** Settles when every group so far has settled, in order. */
  private tail: Promise<void> = Promise.resolve();
  /**
   * After a failed flush of the log: the checkpoint that makes the failed groups' commits
   * durable, which every later group waits for (`heal`).
   */
  private healing: Promise<unknown> | undefined;
  private healNeeded = false;
  private checkpoints: Promise<unknown> = Promise.resolve();
  private checkpointQueued = false;
  private pinned: ReadSnapshot | undefined;
  private closed = false;
  /** LMDB's count of pages written by commits at the last checkpoint, and as last read. */
  private writtenAtCheckpoint = 0;
  private written = 0;
  /** Groups logged, and log bytes, since `written` was read (reading it costs about 14 µs). */
  private groupsUnread = 0;
  private bytesAtRead = 0;
  /** checkpointBytes, or less while the disk has little room (read with `written`). */
  private interval: number;

  /**
   * `checkpointBytes`: the growth of the log, or the pages LMDB's commits write (which the
   * pinned checkpoint keeps from reuse), that begins a checkpoint (checkpointDue).
   */
  constructor(
    private readonly file: string,
    private readonly env: Env,
    private readonly checkpointBytes: number,
    private readonly lastSeq: () => number,
  ) {
    this.fd = fs.openSync(file, 'r+');
    this.pageSize = envStats(env).pageSize;
    this.wal = new WalWriter(walDirectory(file));
    this.interval = checkpointBytes;
  }

  /**
   * Makes the file's state durable now, synchronously, records it, and opens the log for
   * appends (at open, after the log's tail was applied again).
   */
  start(): void {
    const { pin, ...record } = this.capture(false);
    fs.fdatasyncSync(this.fd);
    writeCheckpointRecordSync(this.file, record);
    this.pinned?.release();
    this.pinned = pin;
    this.wal.open();
    this.wal.dropAll();
  }

  /**
   * Begins a group about to commit: a group the log redoes has its frame written and its
   * flush begun now, so that LMDB's commit runs while the disk flushes. Then either
   * `committed` (the commit went through) or `retract` (it failed).
   */
  logAhead(durable: Durable): Pending {
    if (durable.by !== 'log') return { durable };
    const appended = this.wal.append(durable.entries, durable.firstSeq);
    appended.catch(() => {
      this.healNeeded = true;
    });
    return { durable, appended };
  }

  /**
   * Takes back a group whose commit failed after its frame was logged; resolves once a log
   * read after a crash no longer gives its entries. The next group, which takes its seqs, is
   * logged after it.
   */
  retract(pending: Pending): Promise<void> | undefined {
    if (pending.durable.by !== 'log') return undefined;
    return this.wal.retract(pending.durable.firstSeq);
  }

  /**
   * A commit was refused for a full disk. A checkpoint, in the background, lets LMDB take the
   * pages freed since the last one again (the pinned checkpoint keeps them from reuse) and
   * removes the log it covers, so that deleting documents, or files, makes room for writes.
   */
  diskFull(): void {
    void this.checkpoint().catch(() => {});
  }

  /**
   * Settles once the group just committed is durable, after every group before it settled.
   * It rejects when its flush (or checkpoint) failed; a later group is then acknowledged only
   * once a checkpoint made the failed one's commit durable too.
   */
  committed(pending: Pending): Promise<void> {
    const { durable, appended } = pending;
    const healing = this.heal();
    let own: Promise<unknown> | undefined;
    if (appended) {
      own = healing ? Promise.all([appended, healing]) : appended;
      const due = this.checkpointDue();
      // A group waits for the checkpoint only once commits wrote the whole of checkpointBytes,
      // so that a writer that waits for its acknowledgements cannot outrun the pages the
      // checkpoint lets LMDB reuse; otherwise it runs in the background.
      // Its frame makes it durable either way: a failed checkpoint only ends the wait.
      if (due === 'wait') own = Promise.all([own, this.checkpoint().catch(() => {})]);
      else if (due === 'background') void this.checkpoint().catch(() => {});
    } else if (durable.by === 'checkpoint') {
      own = this.checkpoint();
    } else {
      own = healing;
    }
    const settled = this.tail.then(() => own).then(() => undefined);
    this.tail = settled.catch(() => undefined);
    return settled;
  }

  /**
   * The checkpoint later groups wait for after a failed flush: begun at the first group after
   * the failure (so it holds every commit up to that group), begun again after a failed one.
   */
  private heal(): Promise<unknown> | undefined {
    if (this.healNeeded) {
      this.healNeeded = false;
      const healing = this.checkpoint();
      this.healing = healing;
      healing.then(
        () => {
          if (this.healing === healing) this.healing = undefined;
        },
        () => {
          if (this.healing === healing) this.healNeeded = true;
        },
      );
    }
    return this.healing;
  }

  /**
   * Whether the commits since the last checkpoint wrote enough to begin the next: in the
   * background once the log grew by checkpointBytes or LMDB wrote half of that in pages
   * (which a pinned checkpoint keeps from reuse, so that they bound how far the file grows
   * between two); waited for, should LMDB write the whole of it first. The pages written and
   * the disk's free space are read every 32 groups or 256 KiB of log.
   */
  private checkpointDue(): 'background' | 'wait' | undefined {
    if (++this.groupsUnread >= 32 || this.wal.bytesSince - this.bytesAtRead >= 256 * 1024) {
      this.readWritten();
    }
    const written = (this.written - this.writtenAtCheckpoint) * this.pageSize;
    // Waited for even when one is queued behind a slow one: the queued one frees the pages.
    if (written >= this.interval) return 'wait';
    if (this.checkpointQueued) return undefined;
    const background = written >= this.interval / 2 || this.wal.bytesSince >= this.interval;
    return background ? 'background' : undefined;
  }

  private readWritten(): void {
    this.written = envStats(this.env).pagesWritten;
    this.groupsUnread = 0;
    this.bytesAtRead = this.wal.bytesSince;
    const free = freeBytes(this.file);
    this.interval = checkpointInterval(this.checkpointBytes, free);
    this.wal.extentBytes = walExtent(free);
  }

  /**
   * Makes the state committed now (or later) durable as a checkpoint, after any running one.
   * Two requests while one runs share the next.
   */
  checkpoint(): Promise<CheckpointDone> {
    if (this.checkpointQueued) return this.checkpoints as Promise<CheckpointDone>;
    this.checkpointQueued = true;
    const next = this.checkpoints
      .catch(() => undefined)
      .then(() => {
        this.checkpointQueued = false;
        return this.runCheckpoint(false);
      });
    this.checkpoints = next;
    return next;
  }

  /** A last checkpoint, marked clean, then the log and the file closed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    await this.checkpoints.catch(() => undefined);
    try {
      await this.runCheckpoint(true);
    } finally {
      await this.wal.close();
      this.pinned?.release();
      this.pinned = undefined;
      fs.closeSync(this.fd);
    }
  }

  /** The meta pages of the state committed last, with a pin that keeps its pages. */
  private capture(clean: boolean): CheckpointRecord & { pin: ReadSnapshot } {
    this.readWritten();
    this.writtenAtCheckpoint = this.written;
    const pin = pinSnapshot(this.env);
    const metaPages = readMetaPages(this.fd, this.pageSize);
    return { pageSize: this.pageSize, metaPages, seq: this.lastSeq(), clean, pin };
  }

  private async runCheckpoint(clean: boolean): Promise<CheckpointDone> {
    const { pin, ...record } = this.capture(clean);
    this.wal.bytesSince = 0;
    this.bytesAtRead = 0;
    try {
      await fdatasync(this.fd);
      await writeCheckpointRecord(this.file, record);
    } catch (error) {
      pin.release();
      this.wal.bytesSince = this.checkpointBytes;
      this.bytesAtRead = 0;
      throw notDurable('checkpoint', this.file, error);
    }
    this.pinned?.release();
    this.pinned = pin;
    this.wal.dropThrough(record.seq);
    return { seq: record.seq };
  }
}

/**
 * The checkpoint interval on a disk with `free` bytes of room: checkpointBytes, or a quarter
 * of the room when that is less (at least INTERVAL_FLOOR_BYTES). Between two checkpoints the
 * log grows and the pages LMDB writes are kept from reuse, both on the disk: on a small or
 * nearly full one, a node would otherwise fill it with them, where deleting documents cannot
 * make room (their pages are free for reuse only after the next checkpoint).
 */
export function checkpointInterval(checkpointBytes: number, free: number | undefined): number {
  if (free === undefined) return checkpointBytes;
  return Math.min(checkpointBytes, Math.max(INTERVAL_FLOOR_BYTES, Math.floor(free / 4)));
}

/**
 * The zeros the log writes ahead of its frames at a time on a disk with `free` bytes of room:
 * a MiB (WAL_EXTENT_BYTES), or a sixty-fourth of the room when that is less (at least 16
 * KiB). The data file never shrinks, so room the log holds when the disk fills is room the
 * data file may grow into for good.
 */
export function walExtent(free: number | undefined): number {
  if (free === undefined) return WAL_EXTENT_BYTES;
  return Math.min(WAL_EXTENT_BYTES, Math.max(16 * 1024, Math.floor(free / 64)));
}

/** The room left on the disk holding `file`, or undefined when it cannot be read. */
function freeBytes(file: string): number | undefined {
  try {
    const stats = fs.statfsSync(path.dirname(file));
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

function fdatasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())),
  );
}

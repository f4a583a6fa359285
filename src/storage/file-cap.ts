/**
 * Room for the data file. Its size cap (`maxFileBytes`) refuses a write job that would take
 * the pages in use past it, with ERR_STORAGE_FULL naming the cap; it only measures and
 * refuses, inside the job's transaction, and never changes what a job wrote. A commit that
 * fails in the engine is worded here too: ERR_STORAGE_FULL when the disk is full.
 *
 * LMDB as lmdb-js builds it grows its memory map on its own: a `mapSize` given at open is
 * only the map it starts with, and a transaction that needs a page past the map resizes it
 * (mdb_page_alloc's lmdb-js addition), so MDB_MAP_FULL never comes. The cap is therefore kept
 * here, on the pages in use as the transaction sees them (maintenance.ts, pageUsage: the
 * file's pages less LMDB's free list at the last commit, plus what the transaction grew the
 * trees' statistics by).
 * LMDB reuses freed pages before it grows the file, but not those the last commit freed
 * before the next commit: the cap counts them as in use, and a batch that deleted is followed
 * by a commit that changes nothing (settleFreedPages), so that room a delete made is room the
 * next write takes. The file may still pass the cap by pages older read snapshots hold.
 */

import * as fs from 'node:fs';
import { type DbError, dbError } from '../errors/index.js';
import { DATA_FILE_CAP_BYTES_MIN } from '../util/index.js';
import type { StoreContext } from './context.js';
import { pageUsage } from './maintenance.js';
import type { TxnState, WriteCounts } from './txn-state.js';

const MiB = 1024 * 1024;

/**
 * Share of the cap the change log may hold: under a cap its bound is at most this share of
 * it. Its entries carry whole documents and every delete adds one, so a log left at its
 * default bound (256 MiB) would take over a small capped file and no delete could make room.
 */
export const CHANGE_LOG_CAP_SHARE = 0.25;

/** The change log's byte bound under a cap: the smaller of its own and its share of the cap. */
export function changeLogBoundUnderCap(retainBytes: number, capBytes: number | undefined): number {
  if (capBytes === undefined) return retainBytes;
  return Math.min(retainBytes, Math.floor(capBytes * CHANGE_LOG_CAP_SHARE));
}

/** A job's measure before it ran, to compare with after. */
export interface CapMark {
  usedPages: number;
  written: WriteCounts;
}

/**
 * After a batch that deleted documents or dropped a tree under a cap: a commit that changes
 * nothing, so that the next batch can take the pages they freed. LMDB gives a transaction only
 * the pages freed before the last commit (mdb_page_alloc reads the free list's records older
 * than it), so the first write after a delete, the way room is made at the cap, would grow the
 * file by up to what the delete freed. A failure (a full disk) leaves that to the next commit.
 */
export function settleFreedPages(ctx: StoreContext): void {
  try {
    ctx.catalog.rewriteMeta();
  } catch {
    // The next batch's commit ages the freed pages as well; this one only came first.
  }
}

/** Checks a `maxFileBytes` option: a whole number of bytes, at least DATA_FILE_CAP_BYTES_MIN. */
export function checkFileCapOption(capBytes: number | undefined): void {
  if (capBytes === undefined) return;
  if (!Number.isSafeInteger(capBytes) || capBytes < DATA_FILE_CAP_BYTES_MIN) {
    throw dbError('ERR_BAD_ARGUMENT', 'maxFileBytes', { min: DATA_FILE_CAP_BYTES_MIN, capBytes });
  }
}

/** Pages in use as the running transaction sees them. */
export function markForCap(ctx: StoreContext, txn: TxnState): CapMark {
  return { usedPages: pageUsage(ctx, txn).used, written: { ...txn.written } };
}

/**
 * Throws ERR_STORAGE_FULL when the job that just ran inside `txn` took the pages in use past
 * `capBytes`. A job that grew nothing (a drop) or only deleted documents always passes, a
 * few pages past the cap at worst: space must stay freeable once the cap is reached.
 */
export function checkFileCap(
  ctx: StoreContext,
  txn: TxnState,
  capBytes: number,
  before: CapMark,
): void {
  const usage = pageUsage(ctx, txn);
  // The pages the last commit freed are free, but not to this transaction: what it needs
  // past the other free pages grows the file.
  const usedBytes = (usage.used + usage.lastFreed) * usage.pageSizeBytes;
  if (usedBytes <= capBytes || usage.used <= before.usedPages) return;
  const onlyDeleted =
    txn.written.insert === before.written.insert &&
    txn.written.replace === before.written.replace &&
    txn.written.delete > before.written.delete;
  if (onlyDeleted) return;
  const cap = capBytes % MiB === 0 ? `${capBytes / MiB} MiB` : `${capBytes} bytes`;
  throw dbError('ERR_STORAGE_FULL', 'sizeCap', { file: ctx.file, cap }, { capBytes, usedBytes });
}

/** Free bytes under which a failed commit is put down to a full disk. */
const DISK_FULL_FREE_BYTES = 4 * 1024 * 1024;

/**
 * A commit that failed in the storage engine: nothing of the batch is stored. When the disk
 * holding the file is (nearly) full, or LMDB says its map is, the write is refused as
 * ERR_STORAGE_FULL naming the free space: the node keeps serving reads and takes writes again
 * once space is freed. Otherwise (an I/O error) it is ERR_STORAGE_FAILED. The engine's own
 * text is the error's cause, for the log; it is not for clients.
 */
export function storageFailed(error: unknown, dir: string): DbError {
  const text = String((error as Error)?.message ?? error);
  let free: number | undefined;
  try {
    const stats = fs.statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch {
    // Cannot tell: judge by the engine's text alone.
  }
  const full =
    /ENOSPC|No space left|MDB_MAP_FULL|map ?size/i.test(text) ||
    (free !== undefined && free < DISK_FULL_FREE_BYTES);
  const failure = full
    ? dbError(
        'ERR_STORAGE_FULL',
        'diskFull',
        { dir, freeText: free === undefined ? '' : ` (${free} bytes free)` },
        free === undefined ? undefined : { freeBytes: free },
      )
    : dbError('ERR_STORAGE_FAILED', 'engineFailed');
  failure.cause = error;
  return failure;
}

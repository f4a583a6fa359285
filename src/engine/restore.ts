/**
 * Restores and point-in-time recovery (docs/backup.md): checks a backup (a directory, or a
 * backup stream saved to a file), puts its data file in place of a data directory's, and
 * replays change-log segments after the backup's seq up to a chosen seq or time. It refuses
 * to replace data without `force`, and never while a process holds the data file.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { dbError } from '../errors/index.js';
import {
  type ChangeEntry,
  DATA_FILE_NAME,
  lockHolder,
  removeWal,
  resolveDataFile,
} from '../storage/index.js';
import { fsyncDirectory, fsyncFile, makeDirectoryDurably } from '../util/index.js';
import { BACKUP_LOG_DIR, type BackupManifest, verifyBackup } from './backup.js';
import { unpackBackup } from './backup-archive.js';
import { type Database, open } from './database.js';
import { listSegments, readSegment } from './log-segments.js';

/** Where a point-in-time recovery stops. */
export type RestorePoint =
  /** Every entry up to and including this seq. */
  | { toSeq: number }
  /** Every entry committed at or before this time (Unix milliseconds). */
  | { toTimeMs: number }
  /** Every entry the logs hold. */
  | { toEnd: true };

/** Options of restoreBackup. */
export interface RestoreOptions {
  /** Replace a data directory that holds data. */
  force?: boolean;
  /** Replay change-log entries after the backup's seq up to this point. */
  point?: RestorePoint;
  /**
   * Directories of change-log segments (a node's `backup.logArchiveDir`, another backup's
   * `log/`); the backup's own `log/` is always read.
   */
  logDirs?: readonly string[];
  /** Called with the entries replayed so far and the entries to replay. */
  onProgress?: (done: number, total: number) => void;
}

/** What a restore did. */
export interface RestoreResult {
  file: string;
  /** The backup's seq: where the data file stood before any replay. */
  backupSeq: number;
  backupCreatedAt: string;
  /** The restored file's newest seq. */
  lastSeq: number;
  replayed: number;
  /** Set when the point fell inside a write of several entries: it stopped before that write. */
  stoppedBefore?: { seq: number; endSeq: number };
  collections: Array<{ name: string; count: number }>;
}

/** Entries replayed per write. */
const REPLAY_BATCH_ENTRIES = 1000;

/** Restores `backup` (a directory or a backup stream file) into `dataDir`. */
export async function restoreBackup(
  backup: string,
  dataDir: string,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const target = resolveDataFile(dataDir);
  requireReplaceable(target, options.force === true);
  const source = path.resolve(backup);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    throw dbError('ERR_BACKUP_INVALID', 'noBackup', { source }, { source });
  }
  if (stat.isDirectory()) return restoreFrom(source, target, options);
  // A saved stream unpacks beside the target first (same disk), and goes once restored.
  fs.mkdirSync(target.dir, { recursive: true });
  const unpacked = fs.mkdtempSync(path.join(target.dir, '.restore-'));
  try {
    await unpackBackup(fs.createReadStream(source), unpacked, source);
    return await restoreFrom(unpacked, target, options);
  } finally {
    fs.rmSync(unpacked, { recursive: true, force: true });
  }
}

/** Refuses a target that holds data (without force) or that a process has open. */
function requireReplaceable(target: { file: string; dir: string }, force: boolean): void {
  const holder = lockHolder(target.file);
  if (holder) {
    throw dbError(
      'ERR_STORAGE_LOCKED',
      'inUseByRestore',
      { file: target.file, pid: holder.pid, command: holder.command },
      { pid: holder.pid },
    );
  }
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(target.dir).filter((name) => !name.startsWith('.restore-'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (entries.length > 0 && !force) {
    throw dbError(
      'ERR_RESTORE_TARGET_NOT_EMPTY',
      'notEmpty',
      { dir: target.dir },
      { dir: target.dir },
    );
  }
}

async function restoreFrom(
  dir: string,
  target: { file: string; dir: string },
  options: RestoreOptions,
): Promise<RestoreResult> {
  const manifest = await verifyBackup(dir);
  for (const logDir of options.logDirs ?? []) requireSegments(logDir);
  const logDirs = [path.join(dir, BACKUP_LOG_DIR), ...(options.logDirs ?? [])];
  // The replay is planned first (every entry read, none kept), so a log that cannot reach the
  // point is refused before the data dir is touched.
  const plan = options.point ? planReplay(manifest, logDirs, options.point) : undefined;
  makeDirectoryDurably(target.dir);
  const incoming = `${target.file}.restoring`;
  fs.copyFileSync(path.join(dir, DATA_FILE_NAME), incoming);
  // On disk whole before it takes the data file's name, and the name durable after.
  fsyncFile(incoming);
  // The old file's LMDB lock and write-ahead log describe the old file: they go with it,
  // the log first (applied over the restored file, it would undo it; ADR 0023).
  removeWal(target.file);
  fs.rmSync(`${target.file}-lock`, { force: true });
  fs.renameSync(incoming, target.file);
  fsyncDirectory(target.dir);
  const db = await open(target.file);
  try {
    if (plan && options.point) {
      const entries = replayEntries(manifest, logDirs, options.point, plan.lastSeq);
      await applyInBatches(db, entries, plan.lastSeq - manifest.lastSeq, options.onProgress);
    }
    const stats = db.stats();
    return {
      file: target.file,
      backupSeq: manifest.lastSeq,
      backupCreatedAt: manifest.createdAt,
      lastSeq: db.nodeState().lastSeq,
      replayed: plan ? plan.lastSeq - manifest.lastSeq : 0,
      ...(plan?.stoppedBefore && { stoppedBefore: plan.stoppedBefore }),
      collections: stats.collections.map((c) => ({ name: c.name, count: c.count })),
    };
  } finally {
    await db.close();
  }
}

/** Where a replay ends: its last seq, and the write of several entries it stopped before. */
export interface ReplayPlan {
  lastSeq: number;
  stoppedBefore?: { seq: number; endSeq: number };
}

/**
 * A log directory the caller named must hold segments: a typo in its path would otherwise
 * replay nothing and restore to the backup's seq without a word (issue 23, mend 2). The
 * backup's own `log/` may be absent: a backup without --with-log has none.
 */
function requireSegments(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  const problem =
    stat === undefined
      ? 'logDirMissing'
      : !stat.isDirectory()
        ? 'logDirNotDirectory'
        : listSegments(dir).length === 0
          ? 'logDirEmpty'
          : undefined;
  if (problem === undefined) return;
  throw dbError('ERR_BAD_ARGUMENT', problem, { dir }, { dir });
}

/** The segments of every directory, in the order of their first seq (their names carry it). */
function segmentsInOrder(dirs: readonly string[]): string[] {
  const byName = (file: string) => path.basename(file);
  return dirs
    .flatMap((dir) => listSegments(dir))
    .sort((a, b) => (byName(a) < byName(b) ? -1 : byName(a) > byName(b) ? 1 : 0));
}

/**
 * The entries after the backup's seq, contiguous and in seq order, up to the last one not
 * past `point`, read one segment at a time; a seq that several directories hold is taken
 * once. Throws when the log is of another history (its entry at the backup's seq has another
 * term) or has a gap before the point. With `checkAll` every segment is read to its end, so
 * those checks see the whole log; otherwise it stops at the point.
 */
function* contiguousEntries(
  manifest: BackupManifest,
  dirs: readonly string[],
  point: RestorePoint,
  checkAll: boolean,
): Generator<ChangeEntry> {
  const base = manifest.lastSeq;
  let next = base + 1;
  let reachedPoint = false;
  for (const segment of segmentsInOrder(dirs)) {
    for (const entry of readSegment(segment)) {
      if (entry.seq === base && entry.term !== manifest.lastTerm) {
        throw dbError('ERR_RESTORE_POINT_UNREACHABLE', 'otherHistory', {
          segment,
          base,
          term: entry.term,
          lastTerm: manifest.lastTerm,
        });
      }
      if (reachedPoint || entry.seq < next) continue;
      if (past(entry, point)) {
        if (!checkAll) return;
        reachedPoint = true;
        continue;
      }
      if (entry.seq > next) {
        throw dbError(
          'ERR_RESTORE_POINT_UNREACHABLE',
          'gap',
          { next, last: next - 1 },
          { lastSeq: next - 1 },
        );
      }
      yield entry;
      next++;
    }
  }
}

/**
 * Plans the replay after the backup's seq up to `point`: contiguous, of the backup's history,
 * never ending inside a write of several entries (a write applies whole or not). Reads every
 * entry once and keeps none, so a log of any length plans in constant memory.
 */
export function planReplay(
  manifest: BackupManifest,
  dirs: readonly string[],
  point: RestorePoint,
): ReplayPlan {
  const base = manifest.lastSeq;
  if ('toSeq' in point && point.toSeq < base) {
    throw dbError(
      'ERR_RESTORE_POINT_UNREACHABLE',
      'backupNewer',
      { base, toSeq: point.toSeq },
      { backupSeq: base },
    );
  }
  let reached = base;
  let last: ChangeEntry | undefined;
  // The first seq of the write the last entry belongs to.
  let writeStart = base + 1;
  for (const entry of contiguousEntries(manifest, dirs, point, true)) {
    if (entry.endSeq === undefined || last?.endSeq !== entry.endSeq) writeStart = entry.seq;
    last = entry;
    reached = entry.seq;
  }
  if ('toSeq' in point && reached < point.toSeq) {
    throw dbError(
      'ERR_RESTORE_POINT_UNREACHABLE',
      'logsShort',
      { reached, toSeq: point.toSeq },
      { lastSeq: reached },
    );
  }
  if (last?.endSeq === undefined || last.endSeq === last.seq) return { lastSeq: reached };
  return {
    lastSeq: writeStart - 1,
    stoppedBefore: { seq: writeStart, endSeq: last.endSeq },
  };
}

function past(entry: ChangeEntry, point: RestorePoint): boolean {
  if ('toSeq' in point) return entry.seq > point.toSeq;
  if ('toTimeMs' in point) return entry.atMs > point.toTimeMs;
  return false;
}

/** The planned entries, read again one segment at a time. */
function* replayEntries(
  manifest: BackupManifest,
  dirs: readonly string[],
  point: RestorePoint,
  lastSeq: number,
): Generator<ChangeEntry> {
  for (const entry of contiguousEntries(manifest, dirs, point, false)) {
    if (entry.seq > lastSeq) return;
    yield entry;
  }
}

async function applyInBatches(
  db: Database,
  entries: Iterable<ChangeEntry>,
  total: number,
  onProgress: RestoreOptions['onProgress'],
): Promise<void> {
  let batch: ChangeEntry[] = [];
  let done = 0;
  for (const entry of entries) {
    batch.push(entry);
    // A batch ends only where a write ends, so each write applies in one transaction.
    const ends = entry.endSeq === undefined || entry.endSeq === entry.seq;
    if (batch.length >= REPLAY_BATCH_ENTRIES && ends) {
      await db.store.applyEntries(batch);
      done += batch.length;
      onProgress?.(done, total);
      batch = [];
    }
  }
  if (batch.length > 0) await db.store.applyEntries(batch);
  onProgress?.(total, total);
}

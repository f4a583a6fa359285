/**
 * Restores and point-in-time recovery (docs/backup.md): checks a backup (a directory, or a
 * backup stream saved to a file), puts its data file in place of a data directory's, and
 * replays change-log segments after the backup's seq up to a chosen seq or time. It refuses
 * to replace data without `force`, and never while a process holds the data file.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { DbError } from '../errors/index.js';
import { type ChangeEntry, DATA_FILE_NAME, lockHolder, resolveDataFile } from '../storage/index.js';
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

function unreachable(message: string, details?: Record<string, unknown>): DbError {
  return new DbError('ERR_RESTORE_POINT_UNREACHABLE', message, details);
}

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
    throw new DbError('ERR_BACKUP_INVALID', `no backup at ${source}`, { source });
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
    throw new DbError(
      'ERR_STORAGE_LOCKED',
      `${target.file} is in use by process ${holder.pid} (${holder.command}); stop it before restoring over it`,
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
    throw new DbError(
      'ERR_RESTORE_TARGET_NOT_EMPTY',
      `${target.dir} is not empty; restore into a new directory, or pass --force to replace its data file`,
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
  const replay = options.point
    ? collectEntries(
        manifest,
        [path.join(dir, BACKUP_LOG_DIR), ...(options.logDirs ?? [])],
        options.point,
      )
    : { entries: [] };
  fs.mkdirSync(target.dir, { recursive: true });
  const incoming = `${target.file}.restoring`;
  fs.copyFileSync(path.join(dir, DATA_FILE_NAME), incoming);
  // The old file's LMDB lock describes the old file: it goes with it.
  fs.rmSync(`${target.file}-lock`, { force: true });
  fs.renameSync(incoming, target.file);
  const db = await open(target.file);
  try {
    await applyInBatches(db, replay.entries, options.onProgress);
    const stats = db.stats();
    return {
      file: target.file,
      backupSeq: manifest.lastSeq,
      backupCreatedAt: manifest.createdAt,
      lastSeq: db.nodeState().lastSeq,
      replayed: replay.entries.length,
      ...(replay.stoppedBefore && { stoppedBefore: replay.stoppedBefore }),
      collections: stats.collections.map((c) => ({ name: c.name, count: c.count })),
    };
  } finally {
    await db.close();
  }
}

/**
 * The entries to replay after the backup's seq up to `point`, from every segment of `dirs`:
 * contiguous, of the backup's history, never ending inside a write of several entries.
 */
export function collectEntries(
  manifest: BackupManifest,
  dirs: readonly string[],
  point: RestorePoint,
): { entries: ChangeEntry[]; stoppedBefore?: { seq: number; endSeq: number } } {
  const base = manifest.lastSeq;
  if ('toSeq' in point && point.toSeq < base) {
    throw unreachable(
      `the backup was taken at seq ${base}, after seq ${point.toSeq}: restore an older backup to reach it`,
      { backupSeq: base },
    );
  }
  const bySeq = new Map<number, ChangeEntry>();
  for (const dir of dirs) {
    for (const segment of listSegments(dir)) {
      for (const entry of readSegment(segment)) {
        if (entry.seq === base && entry.term !== manifest.lastTerm) {
          throw unreachable(
            `${segment} holds seq ${base} of term ${entry.term}, but the backup's seq ${base} is of term ${manifest.lastTerm}: the log is of another history`,
          );
        }
        if (entry.seq > base && !past(entry, point)) bySeq.set(entry.seq, entry);
      }
    }
  }
  const entries: ChangeEntry[] = [];
  for (let seq = base + 1; bySeq.has(seq); seq++) entries.push(bySeq.get(seq) as ChangeEntry);
  const reached = base + entries.length;
  if (bySeq.size > entries.length) {
    throw unreachable(
      `the logs have no entry ${reached + 1}: they cannot be replayed past seq ${reached}; add the log directory that holds it`,
      { lastSeq: reached },
    );
  }
  if ('toSeq' in point && reached < point.toSeq) {
    throw unreachable(
      `the logs given reach seq ${reached}, not ${point.toSeq}: add the log directory that holds the rest (--log-dir)`,
      { lastSeq: reached },
    );
  }
  return cutAtWholeWrite(entries);
}

function past(entry: ChangeEntry, point: RestorePoint): boolean {
  if ('toSeq' in point) return entry.seq > point.toSeq;
  if ('toTimeMs' in point) return entry.atMs > point.toTimeMs;
  return false;
}

/** Leaves out a last write whose entries go past the point: a write applies whole or not. */
function cutAtWholeWrite(entries: ChangeEntry[]): {
  entries: ChangeEntry[];
  stoppedBefore?: { seq: number; endSeq: number };
} {
  const last = entries.at(-1);
  if (last?.endSeq === undefined || last.endSeq === last.seq) return { entries };
  let k = entries.length;
  while (k > 0 && entries[k - 1]?.endSeq === last.endSeq) k--;
  const first = entries[k] as ChangeEntry;
  return { entries: entries.slice(0, k), stoppedBefore: { seq: first.seq, endSeq: last.endSeq } };
}

async function applyInBatches(
  db: Database,
  entries: readonly ChangeEntry[],
  onProgress: RestoreOptions['onProgress'],
): Promise<void> {
  let batch: ChangeEntry[] = [];
  let done = 0;
  for (const entry of entries) {
    batch.push(entry);
    // A batch ends only where a write ends, so each write applies in one transaction.
    const ends = entry.endSeq === undefined || entry.endSeq === entry.seq;
    if (batch.length >= REPLAY_BATCH_ENTRIES && ends) {
      await db.applyChanges(batch);
      done += batch.length;
      onProgress?.(done, entries.length);
      batch = [];
    }
  }
  if (batch.length > 0) await db.applyChanges(batch);
  onProgress?.(entries.length, entries.length);
}

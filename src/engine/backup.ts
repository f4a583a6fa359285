/**
 * Hot backups and their checks (docs/backup.md). A backup is a directory: `data.docdb`, a
 * consistent copy of the data file taken while writers run (it opens as an ordinary data
 * directory), `manifest.json` (versions, seq and term, collections and counts, each file's
 * size and SHA-256), and with `withLog` a `log/` of change-log segments. The manifest is
 * written last: a directory without one is an unfinished backup. Restores are restore.ts.
 */

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type DbError, dbError } from '../errors/index.js';
import { DATA_FILE_NAME, FORMAT_VERSION, FORMAT_VERSIONS_READ } from '../storage/index.js';
import { fsyncDirectory, fsyncFile, writeFileDurably } from '../util/index.js';
import { VERSION } from '../version.js';
import { type Database, open } from './database.js';
import { SegmentWriter } from './log-segments.js';

/** The backup layout this build writes and reads. */
export const BACKUP_FORMAT = 1;

export const MANIFEST_NAME = 'manifest.json';
export const BACKUP_LOG_DIR = 'log';

/** Entries written to a backup's log per append. */
const LOG_BATCH_ENTRIES = 1000;

/** One file of a backup. */
export interface BackupFile {
  /** Relative to the backup directory, with `/`. */
  path: string;
  bytes: number;
  sha256: string;
}

/** What a backup holds, as `manifest.json` says. */
export interface BackupManifest {
  backupFormat: number;
  docdbVersion: string;
  /** The data file's format version (storage FORMAT_VERSION). */
  fileFormat: number;
  createdAt: string;
  /** The data file it was taken from. */
  source: string;
  /** The newest change the copy holds: point-in-time recovery replays from after it. */
  lastSeq: number;
  /** The term of the entry at `lastSeq`. */
  lastTerm: number;
  term: number;
  /** The oldest seq the copy's own change log does not hold. */
  seqFloor: number;
  collections: Array<{ name: string; count: number; indexes: string[] }>;
  /** Set when the backup carries change-log segments (`withLog`). */
  log?: { firstSeq: number; lastSeq: number };
  files: BackupFile[];
}

/** Options of takeBackup. */
export interface BackupOptions {
  /** Also write the copy's change log as segments under `log/`. */
  withLog?: boolean;
  /** Leave free pages out of the copy (slower, smaller). */
  compact?: boolean;
  /** Called with bytes copied so far and the bytes expected, while the copy runs. */
  onProgress?: (done: number, total: number) => void;
}

/** How often the copy's progress is looked at. */
const PROGRESS_POLL_MS = 200;

function targetExists(dir: string): DbError {
  return dbError('ERR_BACKUP_TARGET_EXISTS', 'notEmpty', { dir }, { dir });
}

/** Refuses a backup target that holds anything. */
export function requireEmptyDir(dir: string): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') throw targetExists(dir);
    throw error;
  }
  if (entries.length > 0) throw targetExists(dir);
}

/** The SHA-256 and size of a file, read as a stream. */
export async function hashFile(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Takes a hot backup of `db` into `outDir` (new or empty): the copy is one committed state
 * that holds every write acknowledged before the call, taken while writes go on. Resolves
 * with the manifest written.
 */
export async function takeBackup(
  db: Database,
  outDir: string,
  options: BackupOptions = {},
): Promise<BackupManifest> {
  const dir = path.resolve(outDir);
  requireEmptyDir(dir);
  fs.mkdirSync(dir, { recursive: true });
  const dataFile = path.join(dir, DATA_FILE_NAME);
  await copyWithProgress(db, dataFile, options);
  const copy = await open(dir, { readOnly: true });
  let described: Omit<BackupManifest, 'files' | 'createdAt' | 'source'>;
  try {
    described = describeCopy(copy);
    if (options.withLog) {
      const log = await writeLog(copy, path.join(dir, BACKUP_LOG_DIR));
      if (log) described.log = log;
    }
  } finally {
    await copy.close();
    // Opening the copy made LMDB's lock file; the backup is the files its manifest lists.
    fs.rmSync(`${dataFile}-lock`, { force: true });
  }
  // Every file the manifest lists is on disk before the manifest says it is there.
  fsyncFile(dataFile);
  fsyncDirectory(dir);
  const files = [await describeFile(dir, DATA_FILE_NAME)];
  if (described.log) {
    for (const name of fs.readdirSync(path.join(dir, BACKUP_LOG_DIR)).sort()) {
      files.push(await describeFile(dir, `${BACKUP_LOG_DIR}/${name}`));
    }
  }
  const manifest: BackupManifest = {
    ...described,
    createdAt: new Date().toISOString(),
    source: db.file,
    files,
  };
  // The manifest comes last and durably: a backup without one is no backup.
  writeFileDurably(path.join(dir, MANIFEST_NAME), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function copyWithProgress(db: Database, file: string, options: BackupOptions) {
  const { onProgress } = options;
  const total = db.stats().fileSizeBytes;
  const timer =
    onProgress &&
    setInterval(() => {
      fs.stat(file, (error, stat) => {
        if (!error) onProgress(Math.min(stat.size, total), total);
      });
    }, PROGRESS_POLL_MS);
  try {
    await db.copyTo(file, options.compact === true);
  } finally {
    if (timer) clearInterval(timer);
  }
  onProgress?.(total, total);
}

function describeCopy(copy: Database): Omit<BackupManifest, 'files' | 'createdAt' | 'source'> {
  const position = copy.nodeState();
  const stats = copy.stats();
  return {
    backupFormat: BACKUP_FORMAT,
    docdbVersion: VERSION,
    fileFormat: FORMAT_VERSION,
    lastSeq: position.lastSeq,
    lastTerm: position.lastTerm,
    term: position.term,
    seqFloor: position.seqFloor,
    collections: stats.collections.map((c) => ({
      name: c.name,
      count: c.count,
      indexes: c.indexes.map((i) => i.name),
    })),
  };
}

/** Writes the copy's retained change log as segments; undefined when it holds none. */
async function writeLog(copy: Database, dir: string): Promise<BackupManifest['log']> {
  const writer = new SegmentWriter(dir);
  let firstSeq: number | undefined;
  let lastSeq = 0;
  let batch = [];
  for (const entry of copy.changesSince(copy.nodeState().seqFloor)) {
    firstSeq ??= entry.seq;
    lastSeq = entry.seq;
    batch.push(entry);
    if (batch.length >= LOG_BATCH_ENTRIES) {
      await writer.append(batch);
      batch = [];
    }
  }
  await writer.append(batch);
  return firstSeq === undefined ? undefined : { firstSeq, lastSeq };
}

async function describeFile(dir: string, relative: string): Promise<BackupFile> {
  return { path: relative, ...(await hashFile(path.join(dir, relative))) };
}

/** Reads a backup directory's manifest and checks its shape and versions (not the files). */
export function readManifest(dir: string): BackupManifest {
  const file = path.join(dir, MANIFEST_NAME);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw dbError(
      'ERR_BACKUP_INVALID',
      'noManifest',
      { dir, manifestName: MANIFEST_NAME },
      { dir: dir },
    );
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch (error) {
    throw dbError(
      'ERR_BACKUP_INVALID',
      'manifestNotJson',
      { dir, manifestName: MANIFEST_NAME, cause: (error as Error).message },
      { dir: dir },
    );
  }
  if (manifest?.backupFormat !== BACKUP_FORMAT) {
    throw dbError('ERR_BACKUP_FORMAT', 'backupFormat', {
      dir,
      backupFormat: String(manifest?.backupFormat),
      formatRead: BACKUP_FORMAT,
    });
  }
  if (!FORMAT_VERSIONS_READ.includes(manifest.fileFormat)) {
    throw dbError('ERR_BACKUP_FORMAT', 'dataFileFormat', {
      dir,
      fileFormat: String(manifest.fileFormat),
      docdbVersion: manifest.docdbVersion,
      formatVersionsRead: FORMAT_VERSIONS_READ.join(' and '),
    });
  }
  const files = manifest.files;
  if (!Array.isArray(files) || !files.some((f) => f?.path === DATA_FILE_NAME)) {
    throw dbError(
      'ERR_BACKUP_INVALID',
      'noDataFile',
      { dir, manifestName: MANIFEST_NAME, dataFileName: DATA_FILE_NAME },
      { dir: dir },
    );
  }
  for (const f of files) {
    const safe = typeof f.path === 'string' && !f.path.split('/').includes('..');
    if (!safe || !Number.isSafeInteger(f.bytes) || typeof f.sha256 !== 'string') {
      throw dbError(
        'ERR_BACKUP_INVALID',
        'badFileEntry',
        { dir, manifestName: MANIFEST_NAME, entry: JSON.stringify(f) },
        { dir: dir },
      );
    }
  }
  return manifest;
}

/**
 * Checks a backup before anything is restored from it: its manifest, its versions, and each
 * file's size and SHA-256. Resolves with the manifest.
 */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  const manifest = readManifest(dir);
  for (const file of manifest.files) {
    const full = path.join(dir, file.path);
    let size: number;
    try {
      size = fs.statSync(full).size;
    } catch {
      throw dbError('ERR_BACKUP_CORRUPT', 'missing', { dir, path: file.path }, { file: file.path });
    }
    if (size < file.bytes) {
      throw dbError(
        'ERR_BACKUP_CORRUPT',
        'truncated',
        { dir, path: file.path, size, bytes: file.bytes },
        { file: file.path },
      );
    }
    if (size > file.bytes) {
      throw dbError(
        'ERR_BACKUP_CORRUPT',
        'sizeDiffers',
        { dir, path: file.path, size, bytes: file.bytes },
        { file: file.path },
      );
    }
    const { sha256 } = await hashFile(full);
    if (sha256 !== file.sha256) {
      throw dbError(
        'ERR_BACKUP_CORRUPT',
        'checksum',
        { dir, path: file.path },
        { file: file.path },
      );
    }
  }
  return manifest;
}

/**
 * One writing process per data file. A process that opens a file for writing holds
 * `<file>-owner`, which names its pid (and, on Linux, the boot and start time of that run of
 * it); another writer (a second node, offline `compact`) is refused with that pid. The file
 * is created atomically (link of a temp file), and a lock left by a dead process is taken
 * over, also when its pid runs again in another boot or container. Readers never take it:
 * LMDB's MVCC serves them.
 */

import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { type DbError, dbError } from '../errors/index.js';
import { isStampedProcessAlive, type ProcessStamp, processStamp } from '../util/index.js';

/** What the owner file records about the process holding the file. */
export interface LockOwner extends Partial<ProcessStamp> {
  pid: number;
  host: string;
  command: string;
  since: string;
}

/** True when the run of the process an owner record names still runs. */
function ownerAlive(owner: LockOwner): boolean {
  return isStampedProcessAlive(owner.pid, owner);
}

function readOwner(lockPath: string): LockOwner | undefined {
  try {
    return JSON.parse(fs.readFileSync(lockPath, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/** A held writer lock; release it when the file is closed. */
export interface WriterLock {
  path: string;
  release(): void;
}

/** Takes the writer lock of a data file or throws ERR_STORAGE_LOCKED naming the holder. */
export function acquireWriterLock(file: string): WriterLock {
  const lockPath = `${file}-owner`;
  const me: LockOwner = {
    pid: process.pid,
    host: hostname(),
    command: process.argv.slice(1).join(' ').slice(0, 200),
    since: new Date().toISOString(),
    ...processStamp(process.pid),
  };
  const temp = `${lockPath}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, JSON.stringify(me));
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw (error as NodeJS.ErrnoException).code === 'ENOSPC' ? diskFull(file, error) : error;
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        // link() fails if the lock exists: taking a free lock is atomic.
        fs.linkSync(temp, lockPath);
        return { path: lockPath, release: () => releaseIfMine(lockPath) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(lockPath);
      if (owner && owner.pid === process.pid && owner.host === me.host && ownerAlive(owner)) {
        throw locked(file, owner, 'this process already has it open');
      }
      if (owner && owner.host !== me.host) {
        throw locked(
          file,
          owner,
          `host ${owner.host} (process ${owner.pid}) holds it, and its liveness cannot be checked from here; remove ${lockPath} if that process is gone`,
        );
      }
      if (owner && ownerAlive(owner)) throw locked(file, owner);
      takeOverStale(lockPath, owner);
    }
    throw dbError('ERR_STORAGE_LOCKED', 'lockNotTaken', { file });
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * Moves a dead holder's lock aside. rename() is atomic, so of two processes racing here
 * only one moves the file; if what was moved is not the dead lock that was read (another
 * process took the lock in between), it is put back and the caller tries again.
 */
function takeOverStale(lockPath: string, stale: LockOwner | undefined): void {
  const aside = `${lockPath}.stale.${process.pid}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readOwner(aside);
  if (moved?.pid === stale?.pid && moved?.since === stale?.since) {
    fs.rmSync(aside, { force: true });
    return;
  }
  try {
    fs.linkSync(aside, lockPath);
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/**
 * The owner record could not be written: the disk is full. A writer cannot open the file
 * until space is freed; a read-only open takes no lock and still works.
 */
function diskFull(file: string, cause: unknown): DbError {
  const error = dbError('ERR_STORAGE_FULL', 'diskFullAtOpen', { file });
  error.cause = cause;
  return error;
}

function locked(file: string, owner: LockOwner, why?: string): DbError {
  const reason = why ?? `process ${owner.pid} (${owner.command || 'docdb'}) has it open`;
  return dbError(
    'ERR_STORAGE_LOCKED',
    'held',
    { file, reason, since: owner.since },
    { pid: owner.pid, host: owner.host },
  );
}

function releaseIfMine(lockPath: string): void {
  const owner = readOwner(lockPath);
  if (owner?.pid === process.pid && ownerAlive(owner)) fs.rmSync(lockPath, { force: true });
}

/** The process holding the writer lock, if a live one does. */
export function lockHolder(file: string): LockOwner | undefined {
  const owner = readOwner(`${file}-owner`);
  return owner && ownerAlive(owner) ? owner : undefined;
}

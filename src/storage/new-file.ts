/**
 * A new data file, made so that a power cut at any moment leaves either no data file or a
 * whole one: LMDB builds it under a temporary name with docdb's node metadata committed (and
 * so fsynced), then it takes the data file's name and its directory is fsynced. Without
 * this, a cut before the first commit left `data.docdb` empty, and every open refused it
 * until someone deleted it by hand (issue 22). It runs under the file's writer lock.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { dbError } from '../errors/index.js';
import { fileFault, fsyncDirectory, fsyncFile, makeDirectoryDurably } from '../util/index.js';
import { Catalog } from './catalog-state.js';
import { Handles } from './handles.js';
import { removeWal } from './wal.js';
import { acquireWriterLock } from './writer-lock.js';

/** The suffix of a data file being made, after `.<pid>`. */
const MAKING = '.new';

/**
 * Makes the data directory of a writing open, or says in the user's terms why it cannot be:
 * a file in its place, a parent that is a file or cannot be written.
 */
export function makeDataDirectory(dir: string): void {
  let found: fs.Stats | undefined;
  try {
    found = fs.statSync(dir, { throwIfNoEntry: false });
    if (!found) makeDirectoryDurably(dir);
  } catch (error) {
    const cause = fileFault(error);
    if (cause === undefined) throw error;
    throw dbError('ERR_STORAGE_NOT_FOUND', 'dirUnmade', { dir, cause }, { dir });
  }
  if (found && !found.isDirectory()) {
    throw dbError('ERR_STORAGE_NOT_FOUND', 'notDirectory', { dir }, { dir });
  }
}

/** Makes the data file `file` in `dir` when it does not exist yet; nothing when it does. */
export async function createDataFile(file: string, dir: string): Promise<void> {
  if (fs.existsSync(file)) return;
  makeDataDirectory(dir);
  const lock = acquireWriterLock(file);
  try {
    // Another writer may have made it while this one waited for nothing: the lock is free
    // only once that one is done.
    if (fs.existsSync(file)) return;
    removeUnfinished(file);
    // A log left by a data file that was deleted belongs to that file: applied over the new
    // one, it would undo it (ADR 0023).
    removeWal(file);
    const temporary = `${file}.${process.pid}${MAKING}`;
    const handles = new Handles(temporary, false);
    try {
      new Catalog(handles, temporary, false).load();
    } finally {
      await handles.close();
    }
    fs.rmSync(`${temporary}-lock`, { force: true });
    fsyncFile(temporary);
    fs.renameSync(temporary, file);
    fsyncDirectory(dir);
  } finally {
    lock.release();
  }
}

/** Removes what a creation cut short left (under the lock, so none is still being made). */
function removeUnfinished(file: string): void {
  const base = path.basename(file);
  const unfinished = new RegExp(`^${escapeRegExp(base)}\\.\\d+${escapeRegExp(MAKING)}(-lock)?$`);
  const dir = path.dirname(file);
  for (const name of fs.readdirSync(dir)) {
    if (unfinished.test(name)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

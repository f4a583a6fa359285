/**
 * Files that survive a power cut. A file's bytes are on disk once the file was fsynced; its
 * name (a new file, a rename, a new directory) once its directory was. Every place docdb
 * creates or renames a file it relies on after a restart goes through these.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

/** Makes the bytes of `file` durable. */
export function fsyncFile(file: string): void {
  fsyncOpened(file, 'r+');
}

/** Makes the entries of `dir` (names created, renamed or removed in it) durable. */
export function fsyncDirectory(dir: string): void {
  fsyncOpened(dir, 'r');
}

function fsyncOpened(target: string, flags: string): void {
  const fd = fs.openSync(target, flags);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates `dir` and whatever parents it lacks, each durably (the parent of each new one
 * fsynced), so a power cut cannot take a data directory away after files were made in it.
 */
export function makeDirectoryDurably(dir: string): void {
  const resolved = path.resolve(dir);
  if (fs.existsSync(resolved)) return;
  makeDirectoryDurably(path.dirname(resolved));
  try {
    fs.mkdirSync(resolved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  fsyncDirectory(path.dirname(resolved));
}

/**
 * Writes `text` to `file` so that after a power cut the file holds either its old content
 * or all of the new: a temporary file beside it, fsynced, renamed over it, the directory
 * fsynced.
 */
export function writeFileDurably(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
  fsyncDirectory(path.dirname(file));
}

/** Removes `file` (when it exists) durably: its directory is fsynced after. */
export function removeFileDurably(file: string): void {
  if (!fs.existsSync(file)) return;
  fs.rmSync(file, { force: true });
  fsyncDirectory(path.dirname(file));
}

/** The names in `dir`, or none when it does not exist. */
export function namesInDirectory(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

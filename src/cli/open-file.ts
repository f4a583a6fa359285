/**
 * How offline commands open a data file: for writing when they must, read-only when they
 * only read or when another process (a running node) holds the writer lock.
 */

import { type Database, open } from '../engine/index.js';
import { isDbError } from '../errors/index.js';
import { resolveDataFile } from '../storage/index.js';
import * as fs from 'node:fs';

/** Opens `target` for writing; when a node holds it, read-only with a notice on stderr. */
export async function openForSession(target: string): Promise<Database> {
  try {
    return await open(target);
  } catch (error) {
    if (!isDbError(error, 'ERR_STORAGE_LOCKED')) throw error;
    process.stderr.write(
      `note: ${error.message}\nnote: opened read-only; writes will be refused.\n`,
    );
    return open(target, { readOnly: true });
  }
}

/** Opens an existing data file read-only (fails clearly when there is none). */
export function openExisting(target: string): Promise<Database> {
  return open(target, { readOnly: true });
}

/** True when the data file exists (commands that only read refuse to create one). */
export function dataFileExists(target: string): boolean {
  return fs.existsSync(resolveDataFile(target).file);
}

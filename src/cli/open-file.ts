/**
 * How offline commands open a data file: for writing when they write, read-only when they
 * only read. A command that writes never falls back to a read-only open when another process
 * (a running node) holds the file: every write would then be refused. It fails at once,
 * naming the process and how to do the same work over a running node's HTTP API; only the
 * repl, which also reads, goes on read-only, and says the same.
 */

import * as fs from 'node:fs';
import { type Database, open } from '../engine/index.js';
import { type DbError, dbError, isDbError } from '../errors/index.js';
import { resolveDataFile } from '../storage/index.js';

/** A running node's address in the hints: the default, as a user who changed it knows. */
const NODE_URL = 'http://127.0.0.1:5000';

/**
 * How to do a command's work through a running node instead, for the message when one holds
 * the file: `seed` → "curl -X POST http://127.0.0.1:5000/seed …".
 */
export const VIA_NODE = {
  seed: (count: number) =>
    `seed through it instead: curl -X POST ${NODE_URL}/seed -H 'content-type: application/json' -d '{"orders": ${count}}'`,
  query: () =>
    `send the statement to it instead: POST ${NODE_URL}/query with the body {"sql": "<statement>"}`,
  compact: (collection: string) =>
    `compact through it instead: curl -X POST ${NODE_URL}/admin/compact/${encodeURIComponent(collection)}`,
} as const;

/** The lock error with the way through a running node added (other errors as they are). */
function withNodeWay(error: unknown, viaNode: string): unknown {
  if (!isDbError(error, 'ERR_STORAGE_LOCKED')) return error;
  return dbError(
    'ERR_STORAGE_LOCKED',
    'viaNode',
    { lock: error.message, nodeUrl: NODE_URL, viaNode },
    error.details,
  );
}

/**
 * Opens `target` for writing (creating it when missing), for a command that writes. When
 * another process holds the file it rejects at once with ERR_STORAGE_LOCKED naming that
 * process and `viaNode`, the way to do the work over HTTP.
 */
export async function openForWriting(target: string, viaNode: string): Promise<Database> {
  try {
    return await open(target);
  } catch (error) {
    throw withNodeWay(error, viaNode);
  }
}

/** An interactive session's database, and why it is read-only when it is. */
export interface Session {
  db: Database;
  /** Set when another process holds the file: the session reads, and refuses writes. */
  heldBy?: DbError;
}

/**
 * Opens `target` for a session that reads and writes: for writing, or read-only with a note
 * on stderr when another process holds the file (reads still work beside a running node).
 */
export async function openSession(target: string, viaNode: string): Promise<Session> {
  try {
    return { db: await open(target) };
  } catch (error) {
    if (!isDbError(error, 'ERR_STORAGE_LOCKED')) throw error;
    const heldBy = withNodeWay(error, viaNode) as DbError;
    process.stderr.write(
      `note: ${heldBy.message}\nnote: opened read-only; reads work, writes will be refused.\n`,
    );
    return { db: await open(target, { readOnly: true }), heldBy };
  }
}

/** A write refused in a read-only session, explained by who holds the file. */
export function explainSessionError(session: Session, error: unknown): unknown {
  if (!session.heldBy || !isDbError(error, 'ERR_STORAGE_READ_ONLY')) return error;
  return dbError(
    'ERR_STORAGE_READ_ONLY',
    'heldBy',
    { lock: session.heldBy.message },
    error.details,
  );
}

/** Opens an existing data file read-only (fails clearly when there is none). */
export function openExisting(target: string): Promise<Database> {
  return open(target, { readOnly: true });
}

/** True when the data file exists (commands that only read refuse to create one). */
export function dataFileExists(target: string): boolean {
  return fs.existsSync(resolveDataFile(target).file);
}

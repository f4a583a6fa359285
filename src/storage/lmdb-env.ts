/**
 * The only importer of lmdb: opens the environment with docdb's settings and hands out typed
 * sub-database handles with binary keys and binary values (docdb encodes both itself).
 */

import * as path from 'node:path';
import type { Database as LmdbDatabase, RootDatabase } from 'lmdb';
import * as lmdb from 'lmdb';
import { assert, dbError } from '../errors/index.js';
import { COLLECTIONS_MAX, INDEXES_PER_COLLECTION_MAX } from '../util/index.js';
import { checkFileHead } from './file-header.js';

/** A named sub-database: binary keys to binary values. */
export type SubDb = LmdbDatabase<Buffer, Buffer>;
/** The LMDB environment of one data file. */
export type Env = RootDatabase<Buffer, Buffer>;

/**
 * Sub-databases a file can hold: every collection with all its indexes, room for one
 * compaction's fresh copies, and the catalog and change log.
 */
export const SUB_DATABASES_MAX = (COLLECTIONS_MAX + 1) * (1 + INDEXES_PER_COLLECTION_MAX) + 8;

/**
 * LMDB's own words for a file whose pages do not hold together: a page number past the end,
 * a node whose flags contradict its tree, a header that is not LMDB's. A transaction that met
 * one is then refused with MDB_BAD_TXN, which means the same here.
 */
const ENGINE_DAMAGE =
  /MDB_(CORRUPTED|PAGE_NOTFOUND|BAD_TXN|INVALID|BAD_VALSIZE|BAD_DBI|INCOMPATIBLE)|page \d+ not found/;

/** True when `error` is LMDB reporting damaged pages (see ENGINE_DAMAGE). */
export function isEngineDamage(error: unknown): boolean {
  return error instanceof Error && ENGINE_DAMAGE.test(error.message);
}

/**
 * Opens the environment. A writing open commits without flushing (`noSync`): the write-ahead
 * log makes a commit durable, and checkpoints flush the file (durability.ts); with
 * `flushEachCommit` LMDB flushes every commit itself instead (a file with a size cap). A file
 * shorter than its meta pages say is refused before LMDB maps it (file-header.ts).
 */
export function openEnv(file: string, readOnly: boolean, flushEachCommit = false): Env {
  checkFileHead(file);
  try {
    return lmdb.open<Buffer, Buffer>({
      path: file,
      noSubdir: true,
      maxDbs: SUB_DATABASES_MAX,
      overlappingSync: false,
      noSync: !readOnly && !flushEachCommit,
      // Counts the pages commits write (envStats().pagesWritten), what checkpoints pace by
      // (none when LMDB flushes each commit): an lmdb-js option its type definitions leave out.
      ...({ trackMetrics: !readOnly && !flushEachCommit } as object),
      readOnly,
      keyEncoding: 'binary',
      encoding: 'binary',
    });
  } catch (error) {
    if (!isEngineDamage(error)) throw error;
    const damaged = dbError('ERR_STORAGE_CORRUPT', 'badHeader', { file }, { file });
    damaged.cause = error;
    throw damaged;
  }
}

/**
 * The names of the file's trees (LMDB's main tree lists them, each name stored with its
 * terminating NUL).
 */
export function namedTrees(env: Env): string[] {
  const names: string[] = [];
  for (const key of env.getKeys()) {
    const name = Buffer.from(key).toString('utf8');
    names.push(name.endsWith('\0') ? name.slice(0, -1) : name);
  }
  return names;
}

/**
 * Opens (creating unless read-only) a named sub-database. Index sub-databases are dupsort:
 * the key is the encoded value, each data item a 16-byte id, so a unique probe is one get.
 */
export function openSubDb(env: Env, name: string, create: boolean, dupSort = false): SubDb {
  // `create` is an lmdb-js option its type definitions leave out.
  const options = { keyEncoding: 'binary', encoding: 'binary', create, dupSort } as const;
  return env.openDB<Buffer, Buffer>(name, options as Parameters<Env['openDB']>[1]);
}

/**
 * A value's bytes where LMDB holds them (lmdb-js's `getBinaryFast`), as a view of exactly the
 * value: lmdb-js answers a reused buffer that says the value's size in `length` but is longer
 * underneath, which a digest or `equals` would read whole. A view costs a tenth of the copy
 * `getBinary` makes. Valid until the next read of this file in this thread.
 */
export function valueInPlace(db: SubDb, key: Buffer): Buffer | undefined {
  const bytes = db.getBinaryFast(key);
  return bytes?.subarray(0, bytes.length);
}

/**
 * Reads a document's bytes in place, during the read: what `visit` returns is what the scan
 * yields. The bytes are LMDB's shared buffer, valid only until `visit` returns.
 */
export type Visit = (bytes: Uint8Array, size: number) => unknown;

/**
 * lmdb-js records every sub-database handle it opens in a module-wide map (`allDbs`, keyed by
 * the file's base name and the tree's name) and never lets go of one. Tree names are never
 * reused (a drop, a compaction or a rebuild makes new ones), so a node that creates and drops
 * collections or indexes would keep every old handle and its buffers: the long bad-input run
 * grew the heap 68 MiB over 1,000,000 requests this way. Called for a tree whose handles
 * docdb has let go of.
 */
export function releaseSubDb(file: string, name: string): void {
  const registry = (lmdb as unknown as { allDbs?: Map<string, unknown> }).allDbs;
  registry?.delete(`${path.basename(file, path.extname(file))}-${name}`);
}

/** A second handle on a collection's sub-database for scans that decode in place. */
export interface ScanDb {
  /** Entries from `start` in key order; set `visitor.visit` before each step. */
  db: LmdbDatabase<unknown, Buffer>;
  visitor: { visit: Visit };
}

/**
 * Opens a scan handle: lmdb-js hands each value to the visitor without first copying it out
 * of the map (about a third of a plain binary scan's time goes to that copy).
 */
export function openScanDb(env: Env, name: string): ScanDb {
  const visitor = { visit: ((_bytes, size) => size) as Visit };
  const encoder = {
    encode: () => {
      assert(false, 'a scan handle is read-only');
    },
    decode: (bytes: Uint8Array, size: number) => visitor.visit(bytes, size),
  };
  const options = { keyEncoding: 'binary', encoder, create: false } as const;
  const db = env.openDB(name, options as unknown as Parameters<Env['openDB']>[1]);
  return { db: db as unknown as LmdbDatabase<unknown, Buffer>, visitor };
}

/** Page counts of one B+tree, as LMDB reports them. */
export interface TreeStats {
  entries: number;
  pages: number;
}

/** Entries and pages (branch, leaf and overflow) of a sub-database. */
export function treeStats(db: SubDb): TreeStats {
  const s = db.getStats() as {
    entryCount: number;
    treeBranchPageCount: number;
    treeLeafPageCount: number;
    overflowPages: number;
  };
  return {
    entries: s.entryCount,
    pages: s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages,
  };
}

/** Environment-wide facts: page size, highest page number, last transaction id, free tree. */
export interface EnvStats {
  pageSize: number;
  lastPageNumber: number;
  lastTxnId: number;
  mainPages: number;
  freeTreePages: number;
  /** Pages written by this process's commits so far (0 for a read-only open). */
  pagesWritten: number;
}

export function envStats(env: Env): EnvStats {
  const s = env.getStats() as {
    pageSize: number;
    lastPageNumber: number;
    lastTxnId: number;
    treeBranchPageCount: number;
    treeLeafPageCount: number;
    overflowPages: number;
    free: { treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    pagesWritten?: number;
  };
  return {
    pageSize: s.pageSize,
    lastPageNumber: s.lastPageNumber,
    lastTxnId: s.lastTxnId,
    mainPages: s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages,
    freeTreePages: s.free.treeBranchPageCount + s.free.treeLeafPageCount + s.free.overflowPages,
    pagesWritten: s.pagesWritten ?? 0,
  };
}

/**
 * Copies the environment to `file` as LMDB's `mdb_env_copy2` does: from one read
 * transaction, so the copy is one committed state however many writers run meanwhile (a hot
 * backup). `compact` leaves free pages out (slower, smaller). The copy is an ordinary data
 * file; it has no lock file until something opens it.
 */
export function copyEnv(env: Env, file: string, compact: boolean): Promise<void> {
  return env.backup(file, compact);
}

/** A read of the latest committed state: drops the cached read snapshot. */
export function refreshSnapshot(env: Env): void {
  env.resetReadTxn();
}

/** A pinned read snapshot: reads through it see one committed state until it is released. */
export interface ReadSnapshot {
  get(db: SubDb, key: Buffer): Buffer | undefined;
  /**
   * The value's bytes where LMDB holds them, not copied: valid until the next read of this
   * file in this thread.
   */
  getInPlace(db: SubDb, key: Buffer): Buffer | undefined;
  /** Entries from `start` (to `end`, excluded), in key order, or backwards with `reverse`. */
  range(
    db: SubDb,
    options: { start?: Buffer; end?: Buffer; reverse?: boolean; limit?: number },
  ): Iterable<{ key: Buffer; value: Buffer }>;
  /** How many keys lie from `start` on (counted by LMDB, no value read). */
  count(db: SubDb, options: { start: Buffer }): number;
  /**
   * Entries of a scan handle from `start` in key order, past the first `offset`, at most
   * `limit`: each value goes to the handle's visitor in place (ScanDb).
   */
  scan(
    db: ScanDb['db'],
    options: { start: Buffer; offset?: number; limit?: number },
  ): Iterable<{ key: Buffer; value: unknown }>;
  release(): void;
}

/**
 * Pins a read transaction of the state committed last, for reads spread over several
 * event-loop turns (a stream, a file snapshot, a verify) or held to keep a checkpoint's pages
 * from reuse. lmdb-js hands out its current read transaction, which it ends whenever a write
 * opens a tree (open.js, `_commitReadTxn`), pinned or not; and after a reset it makes a pinned
 * one current again when nothing was committed since (read.js, `renewReadTxn`). So the pin is
 * set apart at once: reset, then forgotten as lmdb-js's last read transaction. It is then
 * only this snapshot's, read through explicitly and ended by `release`. Before, a tree opened
 * in a write ended a stream's transaction under it (MDB_BAD_TXN, then SIGSEGV when its cursor
 * closed) and a checkpoint's pin with no commit since it.
 */
export function pinSnapshot(env: Env): ReadSnapshot {
  const transaction = env.useReadTransaction();
  // A used transaction is set aside by a reset, not reset in place (read.js, resetReadTxn);
  // `_commitReadTxn`, lmdb-js's own call before a tree opens, then finds no current one to end
  // and drops its reference to the last.
  env.resetReadTxn();
  (env as unknown as { _commitReadTxn(): void })._commitReadTxn();
  const within = { transaction } as Parameters<SubDb['get']>[1];
  return {
    get: (db, key) => db.get(key, within),
    // The options argument is lmdb-js's own; its type definitions leave it out.
    getInPlace: (db, key) =>
      (db.getBinaryFast as (key: Buffer, options: unknown) => Buffer | undefined)(key, within),
    range: (db, options) => db.getRange({ ...options, transaction }),
    count: (db, options) => db.getKeysCount({ ...options, transaction }),
    scan: (db, options) => db.getRange({ ...options, transaction }),
    release: () => transaction.done(),
  };
}

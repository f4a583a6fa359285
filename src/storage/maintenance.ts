/**
 * Upkeep of the data file: compaction of one collection into fresh trees, and the page and
 * per-collection facts of `inspect` and `/stats`, measured from LMDB's statistics and free list.
 */

import * as fs from 'node:fs';
import type { CompactResult, StoreStats } from '../types/index.js';
import type { CollectionDef, IndexDef } from './catalog.js';
import type { StoreContext } from './context.js';
import { requireForWrite } from './documents.js';
import { type EnvStats, envStats, treeStats } from './lmdb-env.js';
import { type FreeList, freeListPages, treePages } from './page-walk.js';
import { count, ID_MIN, tree } from './records.js';
import type { TxnState } from './txn-state.js';

export type { CompactResult, StoreStats };

/** Page counts of the whole file. */
export interface PageUsage {
  pageSizeBytes: number;
  total: number;
  used: number;
  free: number;
  /** Of the free pages, those the last commit freed: no transaction takes them before the next. */
  lastFreed: number;
}

/** Pages held by one collection's documents and indexes. */
function collectionPages(ctx: StoreContext, def: CollectionDef, txn?: TxnState): number {
  let pages = treeStats(tree(ctx, def.dbName, txn)).pages;
  for (const index of def.indexes) pages += treeStats(tree(ctx, index.dbName, txn)).pages;
  return pages;
}

/**
 * Pages a collection's trees hold in the file's last committed state, walked: the value trees
 * of index keys with many documents included, which `collectionPages` misses. Undefined when a
 * tree is missing (dropped meanwhile) or does not walk.
 */
function walkedCollectionPages(ctx: StoreContext, def: CollectionDef): number | undefined {
  const names = [def.dbName, ...def.indexes.map((index) => index.dbName)];
  const counts = treePages(ctx.file, names);
  if (!counts || counts.size !== names.length) return undefined;
  let pages = 0;
  for (const count of counts.values()) pages += count;
  return pages;
}

/** What the job part of a compaction reports. */
export interface CompactedTrees {
  def: CollectionDef;
  /** By the trees' statistics, inside the job. */
  pagesBefore: number;
  pagesAfter: number;
  /** Walked, inside the job: the collection as the last commit before it left it. */
  walkedBefore: number | undefined;
}

/**
 * Rewrites a collection's documents and index entries into fresh trees and drops the old
 * ones, releasing their pages to LMDB's free list. Runs inside a write transaction.
 */
export function compactTrees(ctx: StoreContext, txn: TxnState, collection: string): CompactedTrees {
  const def = requireForWrite(ctx, txn, collection);
  const pagesBefore = collectionPages(ctx, def, txn);
  const walkedBefore = txn.defs.has(def.name) ? undefined : walkedCollectionPages(ctx, def);
  const dbName = ctx.catalog.allocateName(txn, 'c');
  const db = ctx.handles.create(dbName, txn.handles);
  for (const { key, value } of tree(ctx, def.dbName, txn).getRange({ start: ID_MIN })) {
    db.putSync(key, value, { append: true });
  }
  const fresh: CollectionDef = { ...def, dbName, indexes: [] };
  for (const index of def.indexes) {
    const copy: IndexDef = { ...index, dbName: ctx.catalog.allocateName(txn, 'i') };
    const target = ctx.handles.create(copy.dbName, txn.handles);
    for (const { key, value } of tree(ctx, index.dbName, txn).getRange({
      start: Buffer.alloc(1, 0),
    })) {
      target.putSync(key, value);
    }
    fresh.indexes.push(copy);
  }
  for (const index of def.indexes) ctx.handles.drop(index.dbName, txn.handles);
  ctx.handles.drop(def.dbName, txn.handles);
  ctx.catalog.save(txn, fresh);
  // Measured inside the job: a drop or compaction queued right behind this one may remove
  // the fresh trees before its promise settles.
  return { def: fresh, pagesBefore, pagesAfter: collectionPages(ctx, fresh, txn), walkedBefore };
}

/**
 * The report of a compaction, from its job's figures and the file's before and after. Its
 * pages are walked, before in the job and after once committed, value trees included; should
 * either walk fail (the fresh trees dropped by a later job already), the trees' statistics
 * give both.
 */
export function compactResult(
  ctx: StoreContext,
  trees: CompactedTrees,
  before: PageUsage,
): CompactResult {
  const after = pageUsage(ctx);
  const walkedAfter =
    trees.walkedBefore === undefined ? undefined : walkedCollectionPages(ctx, trees.def);
  const walked = trees.walkedBefore !== undefined && walkedAfter !== undefined;
  const pagesBefore = walked ? (trees.walkedBefore as number) : trees.pagesBefore;
  const pagesAfter = walked ? (walkedAfter as number) : trees.pagesAfter;
  const compacted = pagesBefore - pagesAfter;
  return {
    collection: trees.def.name,
    pagesBefore,
    pagesAfter,
    pagesCompacted: compacted,
    bytesReclaimed: compacted * after.pageSizeBytes,
    freePagesBefore: before.free,
    freePagesAfter: after.free,
    fileSizeBytes: fs.statSync(ctx.file).size,
  };
}

/** The pages the trees' statistics count (LMDB's leave out the value trees of dupsort keys). */
function statedPages(ctx: StoreContext, env: EnvStats, txn?: TxnState): number {
  let pages = 2 + env.mainPages + env.freeTreePages;
  pages += treeStats(ctx.handles.catalog).pages + treeStats(ctx.handles.changes).pages;
  for (const def of ctx.catalog.all(txn).values()) pages += collectionPages(ctx, def, txn);
  return pages;
}

/** The last committed state's pages, as `committedPages` measured them. */
interface CommittedPages {
  txnId: number;
  total: number;
  /** On LMDB's free list; undefined when the free tree could not be read. */
  free: FreeList | undefined;
  stated: number;
}

const committedByStore = new WeakMap<StoreContext, CommittedPages>();

/**
 * The last committed state's pages: the file's, those on LMDB's free list (read from the
 * file, page-walk.ts) and those the statistics state. Measured once per committed
 * transaction; the first measure inside a write transaction comes before its first job (the
 * size cap's mark), when it has written nothing.
 */
function committedPages(ctx: StoreContext, env: EnvStats): CommittedPages {
  const known = committedByStore.get(ctx);
  if (known?.txnId === env.lastTxnId) return known;
  const measured: CommittedPages = {
    txnId: env.lastTxnId,
    total: env.lastPageNumber + 1,
    free: freeListPages(ctx.file),
    stated: statedPages(ctx, env),
  };
  committedByStore.set(ctx, measured);
  return measured;
}

/**
 * Page counts of the whole file; inside a write transaction (`txn`), as that transaction sees
 * them. Pages in use are every page of the file not on LMDB's free list: the trees' own
 * statistics miss the value trees of index keys with many documents (a tenth of a file with
 * low-cardinality indexes), and pages LMDB lost track of are in use all the same. A
 * transaction adds what the statistics say it grew by; growth of value trees within it goes
 * unseen until it commits. Should the free tree not read, the statistics alone count.
 */
export function pageUsage(ctx: StoreContext, txn?: TxnState): PageUsage {
  const env = envStats(ctx.handles.env);
  const committed = committedPages(ctx, env);
  const stated = txn ? statedPages(ctx, env, txn) : committed.stated;
  const free = committed.free;
  const used =
    free === undefined ? stated : committed.total - free.pages + (stated - committed.stated);
  const total = Math.max(committed.total, used);
  const lastFreed = free?.lastFreed ?? 0;
  return { pageSizeBytes: env.pageSize, total, used, free: total - used, lastFreed };
}

/** File, page and per-collection facts for `inspect` and `/stats`. */
export function storeStats(ctx: StoreContext): StoreStats {
  const usage = pageUsage(ctx);
  const collections = ctx.catalog.names().map((name) => {
    const def = ctx.catalog.get(name) as CollectionDef;
    return {
      name,
      count: count(ctx, def),
      indexes: def.indexes.map((index) => ({
        name: index.name,
        paths: index.paths,
        unique: index.unique,
        multikey: index.multikey,
        state: index.state,
        entries: treeStats(tree(ctx, index.dbName)).entries,
      })),
    };
  });
  const entries = treeStats(ctx.handles.changes).entries;
  const { lastSeq, term } = ctx.log.position();
  return {
    file: ctx.file,
    fileSizeBytes: fs.statSync(ctx.file).size,
    pageSizeBytes: usage.pageSizeBytes,
    pages: { total: usage.total, used: usage.used, free: usage.free },
    collections,
    changeLog: { entries, lastSeq, firstSeq: lastSeq - entries + 1 },
    term,
  };
}

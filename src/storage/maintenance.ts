/**
 * Upkeep of the data file: compaction of one collection into fresh trees, and the page and
 * per-collection facts of `inspect` and `/stats`, measured from LMDB's statistics.
 */

import * as fs from 'node:fs';
import type { CompactResult, StoreStats } from '../types/index.js';
import type { CollectionDef, IndexDef } from './catalog.js';
import type { StoreContext } from './context.js';
import { requireForWrite } from './documents.js';
import { envStats, treeStats } from './lmdb-env.js';
import { count, ID_MIN, tree } from './records.js';
import type { TxnState } from './txn-state.js';

export type { CompactResult, StoreStats };

/** Page counts of the whole file. */
export interface PageUsage {
  pageSizeBytes: number;
  total: number;
  used: number;
  free: number;
}

/** Pages held by one collection's documents and indexes. */
function collectionPages(ctx: StoreContext, def: CollectionDef, txn?: TxnState): number {
  let pages = treeStats(tree(ctx, def.dbName, txn)).pages;
  for (const index of def.indexes) pages += treeStats(tree(ctx, index.dbName, txn)).pages;
  return pages;
}

/** What the job part of a compaction reports. */
export interface CompactedTrees {
  def: CollectionDef;
  pagesBefore: number;
  pagesAfter: number;
}

/**
 * Rewrites a collection's documents and index entries into fresh trees and drops the old
 * ones, releasing their pages to LMDB's free list. Runs inside a write transaction.
 */
export function compactTrees(ctx: StoreContext, txn: TxnState, collection: string): CompactedTrees {
  const def = requireForWrite(ctx, txn, collection);
  const pagesBefore = collectionPages(ctx, def, txn);
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
  return { def: fresh, pagesBefore, pagesAfter: collectionPages(ctx, fresh, txn) };
}

/** The report of a compaction, from its job's figures and the file's before and after. */
export function compactResult(
  ctx: StoreContext,
  trees: CompactedTrees,
  before: PageUsage,
): CompactResult {
  const after = pageUsage(ctx);
  const compacted = trees.pagesBefore - trees.pagesAfter;
  return {
    collection: trees.def.name,
    pagesBefore: trees.pagesBefore,
    pagesAfter: trees.pagesAfter,
    pagesCompacted: compacted,
    bytesReclaimed: compacted * after.pageSizeBytes,
    freePagesBefore: before.free,
    freePagesAfter: after.free,
    fileSizeBytes: fs.statSync(ctx.file).size,
  };
}

/**
 * Page counts of the whole file, measured from LMDB's tree statistics; inside a write
 * transaction (`txn`), as that transaction sees them.
 */
export function pageUsage(ctx: StoreContext, txn?: TxnState): PageUsage {
  const env = envStats(ctx.handles.env);
  let used = 2 + env.mainPages + env.freeTreePages;
  used += treeStats(ctx.handles.catalog).pages + treeStats(ctx.handles.changes).pages;
  for (const def of ctx.catalog.all(txn).values()) used += collectionPages(ctx, def, txn);
  const total = env.lastPageNumber + 1;
  return { pageSizeBytes: env.pageSize, total, used, free: Math.max(0, total - used) };
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

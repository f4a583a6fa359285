/**
 * A follower's snapshot load (resync): replaces the node's whole state with a leader's
 * snapshot at one seq (snapshot.ts is the leader's side). A load drops every collection and
 * the change log and sets a mark in `meta`; it adds the snapshot's collections with their
 * index definitions and inserts their documents in batches, through the same document and
 * index writes as any write; it finishes by putting the log's floor at the snapshot's seq and
 * clearing the mark. It records no change-log entries and reads nothing from a leader.
 */

import { dbError } from '../errors/index.js';
import type {
  LogPosition,
  SnapshotIndex,
  SnapshotLoad,
  SnapshotPosition,
  TermRun,
} from '../types/index.js';
import { formatId, newId, parseId } from '../util/index.js';
import {
  type CollectionDef,
  checkIndexSpec,
  normalizeCollectionName,
  type SnapshotLoadMark,
} from './catalog.js';
import type { Structure } from './codec/index.js';
import type { StoreContext } from './context.js';
import { checkDocument, type Document } from './document-check.js';
import {
  collectionForWrite,
  dropCollection,
  insertDocuments,
  requireForWrite,
} from './documents.js';
import { createIndex, markStale } from './indexes.js';
import type { TxnState } from './txn-state.js';
import { prepareDocument } from './write-txn.js';

export type { SnapshotLoad, SnapshotPosition };

/** An index definition as a load takes it (a snapshot's). */
export type LoadIndex = SnapshotIndex;

/** Runs a job in a write transaction of the store's queue, past the write gate. */
export type LoadJobRunner = <T>(job: (txn: TxnState) => T) => Promise<T>;

/**
 * Begins replacing the node's state with a leader's snapshot at `at`: one job drops every
 * collection, removes every change-log entry and sets the mark, so a crash before `finish`
 * is visible after a restart (snapshotLoadPending). A load begun while a mark is set starts
 * over.
 */
export async function startSnapshotLoad(
  ctx: StoreContext,
  run: LoadJobRunner,
  at: SnapshotPosition,
): Promise<SnapshotLoad> {
  const mark = loadMark(at);
  await run((txn) => begin(ctx, txn, mark));
  return {
    async addCollection(name, indexes) {
      const canonical = normalizeCollectionName(name);
      const checked = checkIndexes(indexes);
      await run((txn) => {
        requireThisLoad(txn, mark);
        addCollection(ctx, txn, canonical, checked);
      });
    },
    async insert(collection, documents) {
      const canonical = normalizeCollectionName(collection);
      if (!Array.isArray(documents)) throw dbError('ERR_BAD_ARGUMENT', 'snapshotDocuments');
      await run((txn) => {
        requireThisLoad(txn, mark);
        insert(ctx, txn, canonical, documents);
      });
    },
    finish() {
      return run((txn) => {
        requireThisLoad(txn, mark);
        return finish(ctx, txn, mark);
      });
    },
  };
}

/** The snapshot a load began and never finished (a crash mid-load): the data is partial. */
export function snapshotLoadPending(ctx: StoreContext): { seq: number; term: number } | undefined {
  const loading = ctx.catalog.meta.loading;
  return loading && { seq: loading.seq, term: loading.term };
}

function loadMark(at: SnapshotPosition): SnapshotLoadMark {
  const { seq, term, lastChain } = at ?? {};
  const lastTerm = at?.lastTerm ?? term;
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'snapshotSeq', { seq });
  }
  if (!Number.isSafeInteger(term) || term < 1) {
    throw dbError('ERR_BAD_ARGUMENT', 'snapshotTerm', { term });
  }
  if (!Number.isSafeInteger(lastTerm) || lastTerm < 0 || lastTerm > term) {
    throw dbError('ERR_BAD_ARGUMENT', 'snapshotLastTerm', { term, lastTerm });
  }
  if (lastChain !== undefined && !/^[0-9a-f]{32}$/.test(lastChain)) {
    throw dbError('ERR_BAD_ARGUMENT', 'snapshotLastChain', { lastChain: String(lastChain) });
  }
  const runs = checkRuns(at.runs ?? (seq === 0 ? [] : [{ term: lastTerm, from: seq }]), seq);
  return {
    id: formatId(newId()),
    seq,
    term,
    lastTerm,
    runs,
    ...(lastChain !== undefined && { lastChain }),
  };
}

/** A snapshot's term history: runs in seq and term order, none past the snapshot's seq. */
function checkRuns(runs: readonly TermRun[], seq: number): TermRun[] {
  if (!Array.isArray(runs)) throw dbError('ERR_BAD_ARGUMENT', 'snapshotRuns');
  let previous: TermRun | undefined;
  for (const run of runs) {
    const sound =
      Number.isSafeInteger(run?.term) &&
      Number.isSafeInteger(run?.from) &&
      run.from >= 1 &&
      run.from <= seq &&
      (previous === undefined || (run.from > previous.from && run.term > previous.term));
    if (!sound) {
      throw dbError('ERR_BAD_ARGUMENT', 'snapshotRunOrder', {
        seq,
        run: JSON.stringify(run),
        previous: JSON.stringify(previous),
      });
    }
    previous = run;
  }
  return runs.map(({ term, from }) => ({ term, from }));
}

function checkIndexes(indexes: readonly LoadIndex[]): LoadIndex[] {
  if (!Array.isArray(indexes)) throw dbError('ERR_BAD_ARGUMENT', 'snapshotIndexes');
  for (const index of indexes) {
    if (index?.state !== 'ready' && index?.state !== 'stale') {
      throw dbError('ERR_BAD_ARGUMENT', 'snapshotIndexState', { state: String(index?.state) });
    }
  }
  return [...indexes];
}

/** Refuses a call of a load that finished or that a newer load replaced. */
function requireThisLoad(txn: TxnState, mark: SnapshotLoadMark): void {
  if (txn.meta.loading?.id === mark.id) return;
  throw dbError('ERR_BAD_ARGUMENT', 'snapshotLoadOver', { seq: mark.seq });
}

function begin(ctx: StoreContext, txn: TxnState, mark: SnapshotLoadMark): void {
  for (const name of ctx.catalog.names(txn)) dropCollection(ctx, txn, name);
  // The old history goes as if trimmed whole: the seqs stay where they were until the load
  // finishes, and holds and follows of the old history end now.
  ctx.log.replaceHistory(txn, {
    seq: txn.lastSeq,
    term: txn.lastTerm,
    chain: ctx.log.positionIn(txn).lastChain,
  });
  ctx.catalog.saveMeta(txn, { ...txn.meta, loading: mark });
  // Readers in other processes re-read the catalog and meta: they see the mark too.
  ctx.catalog.markChanged(txn);
}

function addCollection(ctx: StoreContext, txn: TxnState, name: string, indexes: LoadIndex[]): void {
  if (ctx.catalog.get(name, txn)) {
    throw dbError('ERR_BAD_ARGUMENT', 'snapshotCollectionTwice', { name });
  }
  let def = collectionForWrite(ctx, txn, name, true) as CollectionDef;
  for (const index of indexes) {
    const spec = checkIndexSpec(name, {
      name: index.name,
      paths: index.paths,
      unique: index.unique,
    });
    createIndex(ctx, txn, def, spec);
    def = ctx.catalog.get(name, txn) as CollectionDef;
  }
  // A stale index is marked at once, so inserts leave it alone: its leader skipped it for
  // some documents, which may even break a unique one until a rebuild says so.
  const stale = new Set(indexes.filter((i) => i.state === 'stale').map((i) => i.name));
  if (stale.size > 0) markStale(ctx, txn, def, stale);
}

function insert(
  ctx: StoreContext,
  txn: TxnState,
  collection: string,
  documents: ReadonlyArray<{ id: string; doc: Document }>,
): void {
  const def = requireForWrite(ctx, txn, collection);
  const persist = (structures: Structure[]) => ctx.catalog.saveStructures(txn, structures);
  const docs = documents.map(({ id, doc }) => {
    const bytes = parseId(id);
    if (!bytes) {
      throw dbError(
        'ERR_DOCUMENT_ID_INVALID',
        'notId',
        { id: JSON.stringify(id) },
        {
          _id: id,
        },
      );
    }
    return prepareDocument(ctx, checkDocument(doc).body, bytes, persist);
  });
  insertDocuments(ctx, txn, def.name, docs, { throwFirst: true, replayed: true });
  txn.written.insert += docs.length;
}

function finish(ctx: StoreContext, txn: TxnState, mark: SnapshotLoadMark): LogPosition {
  ctx.log.replaceHistory(
    txn,
    { seq: mark.seq, term: mark.lastTerm, chain: mark.lastChain },
    // A load begun by a build without term histories: its history starts at its seq.
    mark.runs ?? (mark.seq === 0 ? [] : [{ term: mark.lastTerm, from: mark.seq }]),
  );
  const { loading: _, ...meta } = txn.meta;
  ctx.catalog.saveMeta(txn, { ...meta, term: Math.max(meta.term, mark.term) });
  ctx.catalog.markChanged(txn);
  return ctx.log.positionIn(txn);
}

/**
 * What one write transaction has changed and not yet committed: catalog records, opened and
 * dropped trees, node metadata, the change log's end, the entries of the running job. Every
 * storage part takes it explicitly; the store applies it to its committed state only once the
 * batch's commit returned. Plain data, with the marks that roll one job back.
 */

import type { CollectionDef, NodeMeta } from './catalog.js';
import type { StoredChangeOp } from './change-entry.js';
import { noStagedHandles, type StagedHandles } from './handles.js';

/**
 * Document writes a batch notes for the selection cache to follow (scans.ts); past this many
 * it notes none and the cache drops what it kept, which a rescan rebuilds for less.
 */
const DOCUMENT_WRITES_NOTED_MAX = 10_000;

/** Documents a batch wrote, by operation (metrics read the totals). */
export interface WriteCounts {
  insert: number;
  replace: number;
  delete: number;
}

export function noWrites(): WriteCounts {
  return { insert: 0, replace: 0, delete: 0 };
}

/** One document a batch stored (`stored`: its bytes) or deleted (`stored` null). */
export interface DocumentWrite {
  tree: string;
  id: Buffer;
  stored: Uint8Array | null;
}

export interface TxnState {
  /** Collection records changed by the batch (null: dropped). */
  defs: Map<string, CollectionDef | null>;
  handles: StagedHandles;
  meta: NodeMeta;
  /** Seq of the newest entry, written or applied. */
  lastSeq: number;
  /** Term of the entry at `lastSeq` (the floor's term when the log holds none). */
  lastTerm: number;
  /** Hash-chain link of the entry at `lastSeq` (undefined when it has none). */
  lastChain: Uint8Array | undefined;
  /**
   * Set when the batch replaced the log's history (a snapshot load): holders and followers of
   * the old history must start over.
   */
  logReplaced: boolean;
  /** The running job's change-log entries, written with their seqs when it ends. */
  pending: StoredChangeOp[];
  /**
   * The stored bytes of every entry the batch wrote, in seq order (the last at `lastSeq`):
   * what the write-ahead log appends (wal.ts).
   */
  logged: Uint8Array[];
  written: WriteCounts;
  /**
   * The batch's document writes in order; undefined when it notes none (nothing was kept to
   * follow them, or there were too many), and the selection cache then keeps nothing.
   */
  documentWrites: DocumentWrite[] | undefined;
}

/**
 * A batch's state before its first job. `noteWrites`: whether it notes its document writes
 * (only while the selection cache keeps something to bring up to date).
 */
export function newTxnState(
  meta: NodeMeta,
  end: { lastSeq: number; lastTerm: number; lastChain: Uint8Array | undefined },
  noteWrites: boolean,
): TxnState {
  return {
    defs: new Map(),
    handles: noStagedHandles(),
    meta,
    lastSeq: end.lastSeq,
    lastTerm: end.lastTerm,
    lastChain: end.lastChain,
    logReplaced: false,
    pending: [],
    logged: [],
    written: noWrites(),
    documentWrites: noteWrites ? [] : undefined,
  };
}

/** Notes a document the batch stored or deleted (see DocumentWrite). */
export function noteDocumentWrite(
  state: TxnState,
  tree: string,
  id: Buffer,
  stored: Uint8Array | null,
): void {
  const writes = state.documentWrites;
  if (!writes) return;
  if (writes.length >= DOCUMENT_WRITES_NOTED_MAX) state.documentWrites = undefined;
  else writes.push({ tree, id, stored });
}

/** A copy of what a job may change, to restore when it rolls back. */
export interface JobMark {
  defs: Map<string, CollectionDef | null>;
  opened: StagedHandles['opened'];
  dropped: StagedHandles['dropped'];
  emptied: StagedHandles['emptied'];
  meta: NodeMeta;
  lastSeq: number;
  lastTerm: number;
  lastChain: Uint8Array | undefined;
  logReplaced: boolean;
  written: WriteCounts;
  /** How many entries the batch had written. */
  logged: number;
  /** How many document writes were noted (undefined: too many). */
  documentWrites: number | undefined;
  structures: number;
}

export function markJob(state: TxnState, structures: number): JobMark {
  return {
    defs: new Map(state.defs),
    opened: new Map(state.handles.opened),
    dropped: new Set(state.handles.dropped),
    emptied: new Set(state.handles.emptied),
    meta: state.meta,
    lastSeq: state.lastSeq,
    lastTerm: state.lastTerm,
    lastChain: state.lastChain,
    logReplaced: state.logReplaced,
    written: { ...state.written },
    logged: state.logged.length,
    documentWrites: state.documentWrites?.length,
    structures,
  };
}

/** Undoes a rolled-back job's in-memory changes (LMDB undid its writes). */
export function rollBackJob(state: TxnState, mark: JobMark): void {
  state.defs = mark.defs;
  state.handles = { opened: mark.opened, dropped: mark.dropped, emptied: mark.emptied };
  state.meta = mark.meta;
  state.lastSeq = mark.lastSeq;
  state.lastTerm = mark.lastTerm;
  state.lastChain = mark.lastChain;
  state.logReplaced = mark.logReplaced;
  state.pending = [];
  state.logged.length = mark.logged;
  state.written = mark.written;
  // Past the limit the notes are gone for the whole batch; before it, the job's are cut off.
  if (mark.documentWrites === undefined) state.documentWrites = undefined;
  else state.documentWrites?.splice(mark.documentWrites);
}

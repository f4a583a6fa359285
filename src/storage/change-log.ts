/**
 * The change log: one entry per change, keyed by a strictly increasing seq, written in the
 * same transaction as the write it records (format in change-entry.ts). It appends the
 * entries of a local write at the next seqs, each linked into the hash chain, or writes a
 * leader's entries at their own seq, term and link (a follower's apply); it keeps the node's
 * term, never lowering it, the term and link of its newest entry (or of its floor), and the
 * term history (one run per term, kept past trims); it tells waiting readers when a commit
 * added entries; it trims its oldest entries to a byte bound and at checkpoints, never past
 * what a holder (a follower) still needs; and a snapshot load replaces its whole history
 * (resync.ts). It knows nothing of documents: the write that records an entry did the work.
 */

import { type DbError, dbError } from '../errors/index.js';
import type { ChangeHold, LogPosition, TermRun } from '../types/index.js';
import { CHANGE_LOG_HOLD_FACTOR, TERM_RUNS_MAX } from '../util/index.js';
import type { NodeMeta } from './catalog.js';
import type { Catalog } from './catalog-state.js';
import {
  type ChangeEntry,
  chainFromText,
  chainText,
  decodeStoredEntry,
  encodeStoredBody,
  linkedEntryBytes,
  linkOf,
  type StoredChangeEntry,
  type StoredChangeOp,
  seqKey,
  seqOfKey,
  storedEntryBytes,
  storedEntryHead,
} from './change-entry.js';
import type { Document } from './document-check.js';
import type { Handles } from './handles.js';
import { FollowedEntries } from './followed-entries.js';
import { envStats, treeStats } from './lmdb-env.js';
import type { TxnState } from './txn-state.js';

/**
 * The change log's size (its tree's statistics, about 14 µs to read) is checked every this
 * many entries, or sooner each sixteenth of its bound its entries' bytes add up to.
 */
const SIZE_CHECK_ENTRIES = 256;
const SIZE_CHECK_PARTS = 16;

/** Greater than every seq key: the start of a reverse read. */
const PAST_LAST_KEY = Buffer.alloc(9, 0xff);

/** Entries a follow reads per synchronous step (between two awaits of its consumer). */
const FOLLOW_CHUNK_ENTRIES = 64;
/**
 * Documents those entries may hold, so a step of large inserts ends early: each follower of
 * a feed held 64 decoded entries at once, and 60 clients not reading a log of 3 MB inserts
 * filled the heap. One entry is read whatever it holds.
 */
const FOLLOW_CHUNK_DOCUMENTS = 1024;

export type { ChangeHold };

interface HoldState {
  seq: number;
  lost: boolean;
}

interface Waiter {
  after: number;
  /** Woken too when a snapshot load replaces the history (a follow, which then stops). */
  wakeOnReplace: boolean;
  resolve: (lastSeq: number) => void;
  reject: (error: unknown) => void;
}

export type { LogPosition, TermRun };

export class ChangeLog {
  private committedLastSeq = 0;
  /**
   * The last seq whose commit is durable, on a writer whose commits become durable after they
   * commit (the write-ahead log): entries past it are neither read nor waited for, so the
   * change feed, replication and the log archive never see an entry a power cut could take
   * back. Undefined: every committed entry is durable (read-only, or LMDB flushes each commit).
   */
  private durableLastSeq: number | undefined;
  /** The term of the entry at committedLastSeq (the floor's term when the log is empty). */
  private committedLastTerm = 0;
  /** The link of the entry at committedLastSeq (the floor's when the log is empty). */
  private committedLastChain: Uint8Array | undefined;
  /**
   * The term history of a file written before `meta.termRuns` existed, derived from its
   * entries at load; the first run with a new term stores the whole list in `meta`.
   */
  private derivedRuns: TermRun[] = [];
  /** Counts the commits that replaced the log's history: a follow that saw one stops. */
  private replacements = 0;
  private pageBytes: number | undefined;
  /** Bytes appended since the size was last checked. */
  private uncheckedBytes = 0;
  private readonly holds = new Set<HoldState>();
  private waiters: Waiter[] = [];
  private closed = false;
  /** Entries decoded once for every follower that reads them. */
  private readonly followed: FollowedEntries;

  constructor(
    private readonly handles: Handles,
    private readonly catalog: Catalog,
    private readonly retainBytes: number,
    /** Reads the stored document bytes of entries (the file's document codec). */
    private readonly decodeStored: (bytes: Uint8Array) => Document,
  ) {
    this.followed = new FollowedEntries((bytes) => decodeStoredEntry(bytes, decodeStored));
  }

  /**
   * Reads where the log ends, that entry's term and link, and the term history (at open, and
   * when the catalog is re-read).
   */
  load(): void {
    const { seqFloor, floorTerm, floorChain } = this.catalog.meta;
    const last = this.lastEntry();
    if (last && last.seq > seqFloor) {
      this.committedLastSeq = last.seq;
      this.committedLastTerm = last.term;
      this.committedLastChain = last.chain;
    } else {
      this.committedLastSeq = seqFloor;
      this.committedLastTerm = floorTerm ?? 0;
      this.committedLastChain = chainFromText(floorChain);
    }
    this.derivedRuns = this.catalog.meta.termRuns ? [] : this.deriveRuns();
  }

  private lastEntry(): { seq: number; term: number; chain: Uint8Array | undefined } | undefined {
    for (const { key, value } of this.handles.changes.getRange({
      start: PAST_LAST_KEY,
      reverse: true,
      limit: 1,
    })) {
      return { seq: seqOfKey(key), ...storedEntryHead(value) };
    }
    return undefined;
  }

  /**
   * The term history of a file that has none stored, from its floor and entries: terms never
   * go down along the log, so each run's start is found by a binary search.
   */
  private deriveRuns(): TermRun[] {
    const { seqFloor, floorTerm } = this.catalog.meta;
    const last = this.committedLastSeq;
    const termAt = (seq: number) =>
      seq === seqFloor ? (floorTerm ?? 0) : (this.storedHead(seq)?.term ?? 0);
    const runs: TermRun[] = [];
    let from = seqFloor === 0 ? 1 : seqFloor;
    while (from <= last) {
      const term = termAt(from);
      runs.push({ term, from });
      let low = from;
      let high = last;
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (termAt(mid) <= term) low = mid;
        else high = mid - 1;
      }
      from = low + 1;
    }
    return runs;
  }

  private storedHead(seq: number): { term: number; chain: Uint8Array | undefined } | undefined {
    const bytes = this.handles.changes.get(seqKey(seq));
    return bytes === undefined ? undefined : storedEntryHead(bytes);
  }

  /** The committed position. */
  position(): LogPosition {
    const { term, seqFloor } = this.catalog.meta;
    return {
      term,
      lastSeq: this.committedLastSeq,
      seqFloor,
      lastTerm: this.committedLastTerm,
      ...(this.committedLastChain && { lastChain: chainText(this.committedLastChain) }),
    };
  }

  /** The position as a write transaction leaves it. */
  positionIn(txn: TxnState): LogPosition {
    const { term, seqFloor } = txn.meta;
    return {
      term,
      lastSeq: txn.lastSeq,
      seqFloor,
      lastTerm: txn.lastTerm,
      ...(txn.lastChain && { lastChain: chainText(txn.lastChain) }),
    };
  }

  /** The committed term history, oldest run first. */
  termRuns(): readonly TermRun[] {
    return this.runsOf(this.catalog.meta);
  }

  private runsOf(meta: NodeMeta): readonly TermRun[] {
    return meta.termRuns ?? this.derivedRuns;
  }

  /**
   * The term of the committed entry at `seq`, from the term history: known from the
   * history's first run to the last seq (0 at seq 0), even where trims took the entry;
   * undefined elsewhere.
   */
  termAt(seq: number): number | undefined {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq > this.committedLastSeq) return undefined;
    if (seq === 0) return 0;
    return termOfRuns(this.termRuns(), seq);
  }

  /**
   * The hash-chain link (hex) of the committed entry at `seq` while the log retains it (at the
   * floor, the floor's); undefined below the floor, past the end, or for an entry without one.
   */
  chainAt(seq: number): string | undefined {
    const { seqFloor, floorChain } = this.catalog.meta;
    if (!Number.isSafeInteger(seq) || seq < seqFloor || seq > this.committedLastSeq) {
      return undefined;
    }
    if (seq === this.committedLastSeq) {
      return this.committedLastChain && chainText(this.committedLastChain);
    }
    if (seq === seqFloor) return floorChain;
    const chain = this.storedHead(seq)?.chain;
    return chain && chainText(chain);
  }

  get lastSeq(): number {
    return this.committedLastSeq;
  }

  get lastTerm(): number {
    return this.committedLastTerm;
  }

  get lastChain(): Uint8Array | undefined {
    return this.committedLastChain;
  }

  // ---- inside a write transaction -----------------------------------------------------

  /**
   * Records a change of the running job, its documents in their stored encoding; its entry is
   * written when the job ends.
   */
  record(txn: TxnState, op: StoredChangeOp): void {
    txn.pending.push(op);
  }

  /**
   * Writes the running job's entries at the next seqs, in the job's transaction. A job that
   * made several marks each with the last one's seq (`endSeq`), so it is applied whole.
   */
  writePending(txn: TxnState): void {
    const ops = txn.pending;
    if (ops.length === 0) return;
    requireNoLoad(txn);
    txn.pending = [];
    const atMs = Date.now();
    const first = txn.lastSeq + 1;
    const endSeq = ops.length > 1 ? first + ops.length - 1 : undefined;
    for (let i = 0; i < ops.length; i++) {
      const entry: StoredChangeEntry = {
        ...(ops[i] as StoredChangeOp),
        seq: first + i,
        term: txn.meta.term,
        atMs,
        ...(endSeq !== undefined && { endSeq }),
      };
      const bytes = linkedEntryBytes(txn.lastChain, encodeStoredBody(entry));
      this.put(txn, entry, bytes, linkOf(bytes));
    }
  }

  /**
   * Checks that a leader's entry can be applied next: it follows the last seq without a gap
   * and its term is not older than the last entry's.
   */
  checkApplicable(txn: TxnState, entry: { seq: number; term: number }): void {
    requireNoLoad(txn);
    if (entry.seq !== txn.lastSeq + 1) {
      throw dbError(
        'ERR_CHANGE_OUT_OF_ORDER',
        'gap',
        { seq: entry.seq, lastSeq: txn.lastSeq },
        { expectedSeq: txn.lastSeq + 1, seq: entry.seq },
      );
    }
    // Terms never go down along a log. The node's own term may be newer than the entries it
    // is catching up on (it met a newer leader whose history holds older terms); replication
    // fences a stale leader at its handshake.
    if (entry.term < txn.lastTerm) {
      throw dbError(
        'ERR_CHANGE_STALE_TERM',
        'olderThanPrevious',
        { seq: entry.seq, term: entry.term, previousTerm: txn.lastTerm },
        { term: entry.term, previousTerm: txn.lastTerm },
      );
    }
  }

  /**
   * Writes a leader's entry at its own seq, term and chain link (hex, as the leader sent it;
   * absent for an entry the leader wrote before the chain), its documents in this file's
   * stored encoding (the caller applied its change and has them).
   */
  writeApplied(txn: TxnState, entry: StoredChangeEntry, chain: string | undefined): void {
    const link = chainFromText(chain);
    if (chain !== undefined && link === undefined) {
      throw dbError('ERR_CHANGE_INVALID', 'badChainLink', { seq: entry.seq }, { seq: entry.seq });
    }
    this.writeStored(txn, entry, storedEntryBytes(encodeStoredBody(entry), link), link);
  }

  /**
   * Writes a leader's entry as the very bytes its log stores (`chain` is the link in them),
   * when this file reads its documents as the leader does (the same shared structures).
   */
  writeStored(
    txn: TxnState,
    entry: { seq: number; term: number },
    bytes: Uint8Array,
    chain: Uint8Array | undefined,
  ): void {
    if (entry.term > txn.meta.term) this.catalog.saveMeta(txn, { ...txn.meta, term: entry.term });
    const buffer = Buffer.isBuffer(bytes)
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.put(txn, entry, buffer, chain);
  }

  /** Moves the node to a higher term (a promotion, or a leader's newer term). */
  setTerm(txn: TxnState, term: number): void {
    if (!Number.isSafeInteger(term) || term < 1) {
      throw dbError('ERR_BAD_ARGUMENT', 'term', { term });
    }
    if (term < txn.meta.term) throw staleTerm(term, txn.meta.term);
    if (term > txn.meta.term) this.catalog.saveMeta(txn, { ...txn.meta, term });
  }

  private put(
    txn: TxnState,
    entry: { seq: number; term: number },
    bytes: Buffer,
    chain: Uint8Array | undefined,
  ): void {
    this.handles.changes.putSync(seqKey(entry.seq), bytes, { append: true });
    txn.logged.push(bytes);
    const runs = this.runsOf(txn.meta);
    if (runs.at(-1)?.term !== entry.term) {
      const grown = [...runs, { term: entry.term, from: entry.seq }];
      this.catalog.saveMeta(txn, { ...txn.meta, termRuns: grown.slice(-TERM_RUNS_MAX) });
    }
    txn.lastSeq = entry.seq;
    txn.lastTerm = entry.term;
    txn.lastChain = chain;
    // Checked every SIZE_CHECK_ENTRIES entries, or sooner when large ones come: the log
    // overshoots its bound by at most a sixteenth of it and one entry.
    this.uncheckedBytes += bytes.length;
    if (
      entry.seq % SIZE_CHECK_ENTRIES === 0 ||
      this.uncheckedBytes * SIZE_CHECK_PARTS >= this.retainBytes
    ) {
      this.uncheckedBytes = 0;
      this.trimToSize(txn);
    }
  }

  /**
   * Keeps the log within its byte bound: past it, the oldest entries go (about a tenth more
   * than the excess, so trims come in steps), always keeping the newest. Their size is
   * measured from the log's pages, so no entry is read.
   */
  private trimToSize(txn: TxnState): void {
    const { entries, pages } = treeStats(this.handles.changes);
    this.pageBytes ??= envStats(this.handles.env).pageSize;
    const bytes = pages * this.pageBytes;
    if (bytes <= this.retainBytes || entries < 2) return;
    const keep = (this.retainBytes * 0.9) / bytes;
    const drop = Math.ceil(entries * (1 - keep));
    const wanted = Math.min(txn.lastSeq - 1, txn.meta.seqFloor + drop);
    // Holders keep their entries until the log outgrows its bound several times over.
    const breakHolds = bytes > this.retainBytes * CHANGE_LOG_HOLD_FACTOR;
    this.trimTo(txn, breakHolds ? wanted : Math.min(wanted, this.heldFloor()), breakHolds);
  }

  /** The lowest seq a holder still needs entries after. */
  private heldFloor(): number {
    let floor = Number.POSITIVE_INFINITY;
    for (const hold of this.holds) if (!hold.lost) floor = Math.min(floor, hold.seq);
    return floor;
  }

  /**
   * Removes the entries with a seq at or below `trimTo` (never past a hold unless
   * `breakHolds`); returns how many went. The new floor keeps the term of the entry at it.
   */
  trimTo(txn: TxnState, trimTo: number, breakHolds = false): number {
    const limit = breakHolds ? trimTo : Math.min(trimTo, this.heldFloor());
    if (limit <= txn.meta.seqFloor) return 0;
    const floor = this.headIn(txn, limit);
    const doomed = [...this.handles.changes.getKeys({ start: seqKey(0), end: seqKey(limit + 1) })];
    for (const key of doomed) this.handles.changes.removeSync(key);
    const { floorChain: _, ...meta } = txn.meta;
    this.catalog.saveMeta(txn, {
      ...meta,
      seqFloor: limit,
      floorTerm: floor.term,
      ...(floor.chain && { floorChain: chainText(floor.chain) }),
    });
    return doomed.length;
  }

  /** The term and link of the entry at `seq` inside a write transaction (seqs above the floor). */
  private headIn(txn: TxnState, seq: number): { term: number; chain: Uint8Array | undefined } {
    if (seq >= txn.lastSeq) return { term: txn.lastTerm, chain: txn.lastChain };
    // Entries above the floor are contiguous, so it is there; the floor's otherwise.
    return (
      this.storedHead(seq) ?? {
        term: txn.meta.floorTerm ?? 0,
        chain: chainFromText(txn.meta.floorChain),
      }
    );
  }

  /**
   * Replaces the log's whole history (a snapshot load starting or finishing): removes every
   * entry and puts the floor at `floor.seq` with its term and link, so the log continues after
   * it; `runs`, when given, becomes the term history (a leader's, up to its snapshot). Once the
   * batch commits, every hold is lost and every follow stops (ERR_CHANGES_TRIMMED): what they
   * followed is no longer this node's history.
   */
  replaceHistory(
    txn: TxnState,
    floor: { seq: number; term: number; chain: string | undefined },
    runs?: readonly TermRun[],
  ): void {
    this.handles.changes.clearSync();
    const { floorChain: _, ...meta } = txn.meta;
    this.catalog.saveMeta(txn, {
      ...meta,
      seqFloor: floor.seq,
      floorTerm: floor.term,
      ...(floor.chain !== undefined && { floorChain: floor.chain }),
      termRuns: [...(runs ?? this.runsOf(txn.meta))],
    });
    txn.lastSeq = floor.seq;
    txn.lastTerm = floor.term;
    txn.lastChain = chainFromText(floor.chain);
    txn.logReplaced = true;
  }

  // ---- after a commit -----------------------------------------------------------------

  /**
   * Takes a committed transaction's log end, breaks holds it trimmed past (all of them when it
   * replaced the history), wakes readers: those waiting for a seq it passed, and every follow
   * when the history was replaced (it then stops).
   */
  committed(txn: TxnState): void {
    const replaced = txn.logReplaced;
    for (const hold of this.holds) {
      if (replaced || hold.seq < txn.meta.seqFloor) hold.lost = true;
    }
    this.committedLastTerm = txn.lastTerm;
    this.committedLastChain = txn.lastChain;
    if (replaced) this.replacements++;
    if (txn.lastSeq === this.committedLastSeq && !replaced) return;
    this.committedLastSeq = txn.lastSeq;
    // A history cut back (a rollback) or replaced: what is durable of it ends there at most.
    if (this.durableLastSeq !== undefined) {
      const kept = replaced ? txn.meta.seqFloor : txn.lastSeq;
      this.durableLastSeq = Math.min(this.durableLastSeq, kept);
    }
    this.wake(replaced);
  }

  /**
   * From now on, entries count only once `durable` says their commit is durable (at a writing
   * open on the write-ahead log, once everything on disk is).
   */
  trackDurable(): void {
    this.durableLastSeq = this.committedLastSeq;
  }

  /** The commits up to `seq` are durable: their entries may be read and waiters woken. */
  durable(seq: number): void {
    if (this.durableLastSeq === undefined || seq <= this.durableLastSeq) return;
    this.durableLastSeq = Math.min(seq, this.committedLastSeq);
    this.wake(false);
  }

  /** The last seq readers of the log may see: committed, and durable. */
  private get readableLastSeq(): number {
    return Math.min(this.committedLastSeq, this.durableLastSeq ?? Number.POSITIVE_INFINITY);
  }

  /** Wakes the waiters the readable end passed (all that wake on one when `replaced`). */
  private wake(replaced: boolean): void {
    const lastSeq = this.readableLastSeq;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.after < lastSeq || (replaced && waiter.wakeOnReplace)) {
        waiter.resolve(lastSeq);
      } else {
        this.waiters.push(waiter);
      }
    }
  }

  // ---- reads --------------------------------------------------------------------------

  /** Every retained entry with a seq greater than `afterSeq`, in order, up to the durable end. */
  *entriesAfter(afterSeq: number): Generator<ChangeEntry> {
    for (const { value } of this.handles.changes.getRange(this.rangeAfter(afterSeq))) {
      yield decodeStoredEntry(value, this.decodeStored);
    }
  }

  /**
   * Every retained entry with a seq greater than `afterSeq` as the bytes the log stores (its
   * documents in this file's shared structures), in order, up to the durable end.
   */
  *storedAfter(afterSeq: number): Generator<{ seq: number; bytes: Uint8Array }> {
    for (const { key, value } of this.handles.changes.getRange(this.rangeAfter(afterSeq))) {
      yield { seq: seqOfKey(key), bytes: value };
    }
  }

  private rangeAfter(afterSeq: number): { start: Buffer; end?: Buffer } {
    const end = this.durableLastSeq === undefined ? undefined : seqKey(this.durableLastSeq + 1);
    return { start: seqKey(afterSeq + 1), ...(end && { end }) };
  }

  /** Throws ERR_CHANGES_TRIMMED when entries after `afterSeq` are no longer all kept. */
  requireRetained(afterSeq: number): void {
    const { seqFloor } = this.catalog.meta;
    if (afterSeq < seqFloor) {
      throw dbError(
        'ERR_CHANGES_TRIMMED',
        'trimmed',
        { since: afterSeq, seqFloor },
        { since: afterSeq, seqFloor },
      );
    }
  }

  /**
   * Resolves with the last seq once a commit took the log past `afterSeq` (at once when it
   * already is), or when `signal` aborts. Commits of this process only: a read-only process
   * is not told of another's.
   */
  whenCommittedAfter(afterSeq: number, signal?: AbortSignal): Promise<number> {
    return this.waitPast(afterSeq, signal, false);
  }

  private waitPast(afterSeq: number, signal: AbortSignal | undefined, wakeOnReplace: boolean) {
    if (this.readableLastSeq > afterSeq || signal?.aborted) {
      return Promise.resolve(this.readableLastSeq);
    }
    if (this.closed) {
      return Promise.reject(dbError('ERR_STORAGE_CLOSED', 'closed'));
    }
    return new Promise<number>((resolve, reject) => {
      const onAbort = () => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(this.readableLastSeq);
      };
      const waiter: Waiter = {
        after: afterSeq,
        wakeOnReplace,
        resolve: (lastSeq) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(lastSeq);
        },
        reject,
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * The entries after `afterSeq`, then each new one as commits add it, until `signal`
   * aborts: a tail that never polls. Throws ERR_CHANGES_TRIMMED when the entries it needs
   * were trimmed (before or while it reads), or when a snapshot load replaced the history it
   * followed.
   */
  async *follow(afterSeq: number, signal?: AbortSignal): AsyncGenerator<ChangeEntry> {
    let seq = afterSeq;
    const replacements = this.replacements;
    this.followed.enter();
    try {
      while (!signal?.aborted) {
        if (this.replacements !== replacements) throw historyReplaced(seq, this.catalog.meta);
        this.requireRetained(seq);
        const chunk: ChangeEntry[] = [];
        let documents = 0;
        let full = false;
        for (const { key, value } of this.handles.changes.getRange(this.rangeAfter(seq))) {
          const entry = this.followed.entry(seqOfKey(key), value, replacements);
          chunk.push(entry);
          documents += entry.op === 'insert' ? entry.documents.length : 1;
          full = chunk.length >= FOLLOW_CHUNK_ENTRIES || documents >= FOLLOW_CHUNK_DOCUMENTS;
          if (full) break;
        }
        for (const entry of chunk) {
          yield entry;
          seq = entry.seq;
          if (signal?.aborted) return;
        }
        if (!full) await this.waitPast(seq, signal, true);
      }
    } finally {
      this.followed.leave();
    }
  }

  /** Holds the entries after `seq` until released (see ChangeHold). */
  hold(seq: number): ChangeHold {
    const state: HoldState = { seq, lost: seq < this.catalog.meta.seqFloor };
    this.holds.add(state);
    return {
      get seq() {
        return state.seq;
      },
      get lost() {
        return state.lost;
      },
      move: (next) => {
        if (next > state.seq) state.seq = next;
      },
      release: () => {
        this.holds.delete(state);
      },
    };
  }

  /** Wakes every waiting reader with ERR_STORAGE_CLOSED. */
  close(): void {
    this.closed = true;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      waiter.reject(dbError('ERR_STORAGE_CLOSED', 'closed'));
    }
  }
}

/**
 * Refuses new entries while a snapshot load replaces the node's state (resync.ts): the data
 * is partial until it finishes, and an entry would land in a history the load then discards.
 */
function requireNoLoad(txn: TxnState): void {
  const loading = txn.meta.loading;
  if (!loading) return;
  throw dbError(
    'ERR_NODE_READ_ONLY',
    'loadingSnapshot',
    { seq: loading.seq },
    { loadingSeq: loading.seq },
  );
}

/** The term `runs` give `seq` (undefined before the first run). */
export function termOfRuns(runs: readonly TermRun[], seq: number): number | undefined {
  let low = 0;
  let high = runs.length - 1;
  let found: number | undefined;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const run = runs[mid] as TermRun;
    if (run.from <= seq) {
      found = run.term;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

function historyReplaced(since: number, meta: { seqFloor: number }): DbError {
  return dbError(
    'ERR_CHANGES_TRIMMED',
    'replacedBySnapshot',
    { since, seqFloor: meta.seqFloor },
    { since, seqFloor: meta.seqFloor },
  );
}

function staleTerm(term: number, current: number): DbError {
  return dbError(
    'ERR_CHANGE_STALE_TERM',
    'olderThanNode',
    { term, current },
    { term, currentTerm: current },
  );
}

/**
 * The Store: opens one LMDB data file and composes its parts: the catalog
 * (catalog-state.ts), documents and indexes (documents.ts, indexes.ts), the change log
 * (change-log.ts), scans with the selection cache (scans.ts), snapshots (snapshot.ts), a
 * follower's snapshot load (resync.ts) and maintenance (maintenance.ts); its reads are
 * StoreReads' (store-reads.ts). It owns the writer lock, the open's recovery and group commit
 * (group-commit.ts): every write runs as a job in a write transaction (write-txn.ts) and is
 * acknowledged once durable. It knows nothing of SQL, HTTP or the node's role, and calls
 * nothing of theirs: the engine checks its write gate before it hands a job over and waits for
 * the commit barrier after (write-gate.ts).
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { dbError } from '../errors/index.js';
import type { CheckpointResult, VerifyReport } from '../types/index.js';
import {
  CHANGE_LOG_RETAIN_BYTES,
  CHANGE_LOG_RETAIN_ENTRIES,
  CHECKPOINT_BYTES,
  CHECKPOINT_BYTES_MIN,
} from '../util/index.js';
import { adoptStructures, applyChange, applyPeerEntry, LeaderStructures } from './apply.js';
import { Catalog } from './catalog-state.js';
import {
  type ChangeEntry,
  decodeStoredEntry,
  type PeerEntry,
  readPeerEntry,
  type StoredChangeEntry,
} from './change-entry.js';
import { ChangeLog } from './change-log.js';
import {
  needsRecovery,
  prepareForWriting,
  readCheckpointRecord,
  recordAsClean,
} from './checkpoint.js';
import { DocumentCodec } from './codec/index.js';
import type { StoreContext } from './context.js';
import { guardRead } from './damage.js';
import type { Document } from './document-check.js';
import { Durability } from './durability.js';
import { changeLogBoundUnderCap, checkFileCapOption } from './file-cap.js';
import { GroupCommit } from './group-commit.js';
import { Handles } from './handles.js';
import { copyEnv, envStats, pinSnapshot, refreshSnapshot } from './lmdb-env.js';
import {
  type CompactedTrees,
  type CompactResult,
  compactResult,
  type PageUsage,
  pageUsage,
  type StoreStats,
  storeStats,
} from './maintenance.js';
import { createDataFile, makeDataDirectory } from './new-file.js';
import { damagedTreesError, type PageCheck, walkBeforeOpen } from './open-check.js';
import { emptiedTrees, openCatalogTrees } from './records.js';
import {
  type SnapshotLoad,
  type SnapshotPosition,
  snapshotLoadPending,
  startSnapshotLoad,
} from './resync.js';
import { Scans, type SelectionCacheStats } from './scans.js';
import { type StoreParts, StoreReads } from './store-reads.js';
import type { TxnState, WriteCounts } from './txn-state.js';
import { type VerifyProgress, verifyFile } from './verify.js';
import { dropWalSegments, readWal, walDirectory } from './wal.js';
import type { WriteTxn } from './write-txn.js';
import { acquireWriterLock, type WriterLock } from './writer-lock.js';

/** Times verify starts again when a node changed the catalog under it. */
const VERIFY_ATTEMPTS_MAX = 5;

/** Entries an open applies again from the write-ahead log per commit. */
const REPLAY_BATCH_ENTRIES = 1000;

/** The file name of the data file inside a data directory. */
export const DATA_FILE_NAME = 'data.docdb';

/** Options of Store.open. */
export interface StoreOptions {
  /** Open without the writer lock; every write is refused. */
  readOnly?: boolean;
  /** Bytes the change log may hold before writes trim it (default CHANGE_LOG_RETAIN_BYTES). */
  changeLogRetainBytes?: number;
  /** Whether the file's pages are walked before it is read (default 'open'; open-check.ts). */
  pageCheck?: PageCheck;
  /**
   * Open a file whose collection or index trees failed the page check, for `verify` alone
   * (which reads only trees that pass its own walk). Damage in the trees every open reads is
   * refused all the same.
   */
  allowDamagedTrees?: boolean;
  /**
   * Size cap of the data file in bytes (at least DATA_FILE_CAP_BYTES_MIN; default none): a
   * write that would take the pages in use past it is refused with ERR_STORAGE_FULL
   * (file-cap.ts). Deletes still go through, and freed pages are used again. The change
   * log's bound becomes at most a quarter of the cap.
   */
  maxFileBytes?: number;
  /**
   * Bytes the write-ahead log may take after a checkpoint before the next one begins (default
   * CHECKPOINT_BYTES): what an open after a crash applies again at most (durability.ts).
   */
  checkpointBytes?: number;
}

/** Resolves a data directory or a `.docdb` file to the data file's path. */
export function resolveDataFile(target: string): { file: string; dir: string } {
  const resolved = path.resolve(target);
  if (resolved.endsWith('.docdb')) return { file: resolved, dir: path.dirname(resolved) };
  return { file: path.join(resolved, DATA_FILE_NAME), dir: resolved };
}

/**
 * What a writing open found and did after an unclean stop (nothing after a clean close, but
 * the emptied trees a close can leave: treesDropped).
 */
export interface Recovery {
  /** Whether the file was put back at its last checkpoint (LMDB had committed past it). */
  restored: boolean;
  /** Entries applied again from the write-ahead log. */
  replayed: number;
  /** Why the log's tail was not applied, when part of it was not (never acknowledged). */
  stopped?: string;
  /** Emptied trees the catalog no longer named, deleted by this open (records.ts, emptiedTrees). */
  treesDropped: number;
}

/**
 * Where writes go: each `write` runs its job as one atomic write in the next group commit and
 * resolves once durable. The Store is one (ungated); the engine's writers pass theirs through
 * the write gate (engine/write-gate.ts).
 */
export interface StoreWriter {
  write<T>(job: (txn: WriteTxn) => T): Promise<T>;
}

export class Store extends StoreReads implements StoreWriter {
  private readonly lock: WriterLock | undefined;
  private readonly commits: GroupCommit;
  private closed = false;
  /** What the open applied again from the write-ahead log. */
  private recovered: Recovery = { replayed: 0, restored: false, treesDropped: 0 };

  private constructor(
    file: string,
    readOnly: boolean,
    lock: WriterLock | undefined,
    options: StoreOptions,
  ) {
    const parts = storeParts(file, readOnly, options);
    super(parts);
    this.lock = lock;
    this.commits = new GroupCommit(parts, options.maxFileBytes, () => this.load());
  }

  /**
   * Makes the data file of a directory or `.docdb` path when it does not exist, so that a
   * power cut leaves either none or a whole one (new-file.ts); `open` then opens it.
   */
  static create(target: string): Promise<void> {
    const { file, dir } = resolveDataFile(target);
    return createDataFile(file, dir);
  }

  /**
   * Opens (or creates, unless read-only) the data file of a directory or `.docdb` path. A file
   * it creates is not made power-cut safe: call `create` first (the engine's `open` does).
   */
  static open(target: string, options: StoreOptions = {}): Store {
    const { file, dir } = resolveDataFile(target);
    const readOnly = options.readOnly === true;
    checkFileCapOption(options.maxFileBytes);
    if (readOnly && !fs.existsSync(file)) {
      throw dbError('ERR_STORAGE_NOT_FOUND', 'noFile', { file }, { file });
    }
    const checkpointBytes = options.checkpointBytes ?? CHECKPOINT_BYTES;
    checkCheckpointBytes(checkpointBytes);
    if (!readOnly) makeDataDirectory(dir);
    const lock = readOnly ? undefined : acquireWriterLock(file);
    try {
      // Under a size cap LMDB flushes each commit itself: the pages a checkpoint pins would
      // let the file outgrow the cap (ADR 0023).
      const logged = options.maxFileBytes === undefined;
      const restored = readOnly ? false : prepareForWriting(file, logged);
      const walk = walkBeforeOpen(file, options.pageCheck ?? 'open', readOnly);
      const store = new Store(file, readOnly, lock, options);
      store.load();
      if (walk && walk.damagedTrees.size > 0 && options.allowDamagedTrees !== true) {
        const refused = damagedTreesError(file, walk, store.catalog.all().values());
        void store.close();
        throw refused;
      }
      // A reader's reads are not pinned: no tree may be first opened during one.
      if (readOnly) openCatalogTrees(store.ctx);
      if (!readOnly) store.startDurability(restored, logged ? checkpointBytes : undefined);
      return store;
    } catch (error) {
      lock?.release();
      throw error;
    }
  }

  /**
   * Makes a file that a writer left uncleanly (a crash, a power cut) whole before a read-only
   * open reads it: opens it for writing once, which puts it back at its checkpoint and applies
   * the write-ahead log again (startDurability), and closes it. Nothing when the file was
   * closed cleanly, or when it cannot be opened for writing.
   */
  static async recoverForReading(target: string): Promise<void> {
    const { file } = resolveDataFile(target);
    if (!fs.existsSync(file) || !needsRecovery(file)) return;
    let store: Store;
    try {
      store = Store.open(target);
    } catch {
      // Locked (a running writer: its state is the live one), a read-only file system, or a
      // file that cannot be opened for writing: the read-only open reads it as it is, and
      // names whatever is wrong with it.
      return;
    }
    await store.close();
  }

  /**
   * The rest of a writing open: applies again the write-ahead log's entries after the file's
   * last seq (its checkpoint's, after `restored`), then makes the result a checkpoint. With
   * `checkpointBytes`, commits are acknowledged from then on once the log holds them
   * (durability.ts); without (LMDB flushes each commit), the file is recorded as its own
   * clean checkpoint and the log emptied.
   */
  private startDurability(restored: boolean, checkpointBytes: number | undefined): void {
    // The checkpoint's pages stay as they are until the next checkpoint is recorded: a crash
    // while the log is applied again comes back to the same state.
    const base = pinSnapshot(this.handles.env);
    try {
      this.replayLog(restored);
      this.recovered.treesDropped = this.dropEmptiedTrees();
      if (checkpointBytes !== undefined) {
        const durability = new Durability(
          this.file,
          this.handles.env,
          checkpointBytes,
          () => this.log.lastSeq,
        );
        durability.start();
        this.commits.useDurability(durability);
        this.log.trackDurable();
      } else if (readCheckpointRecord(this.file)) {
        recordAsClean(this.file, envStats(this.handles.env).pageSize, this.log.lastSeq);
        dropWalSegments(walDirectory(this.file));
      }
    } finally {
      base.release();
    }
  }

  /** Applies the write-ahead log's entries after the last seq again, in commits of its own. */
  private replayLog(restored: boolean): void {
    const read = readWal(walDirectory(this.file), this.log.lastSeq);
    let replayed = 0;
    let failed: string | undefined;
    for (let i = 0; i < read.entries.length && failed === undefined; i += REPLAY_BATCH_ENTRIES) {
      const chunk = read.entries.slice(i, i + REPLAY_BATCH_ENTRIES);
      this.commits.runNow((opened) => {
        for (const { seq, bytes } of chunk) {
          try {
            this.commits.runJob(opened, (t) => this.applyStored(t.state, bytes));
            replayed++;
          } catch (error) {
            // Never acknowledged: a later entry cannot follow an earlier one that failed.
            failed = `seq ${seq} could not be applied again (${error instanceof Error ? error.message : String(error)})`;
            break;
          }
        }
      });
    }
    const stopped = failed ?? read.stopped;
    this.recovered = {
      restored,
      replayed,
      treesDropped: 0,
      ...(stopped !== undefined && { stopped }),
    };
  }

  /**
   * Deletes, in a commit of its own, the trees a stop left emptied but not deleted
   * (emptiedTrees): no snapshot reads yet. Returns how many.
   */
  private dropEmptiedTrees(): number {
    const names = emptiedTrees(this.ctx);
    if (names.length === 0) return 0;
    this.commits.runNow((opened) => {
      for (const name of names) this.handles.drop(name, opened.state.handles);
    });
    return names.length;
  }

  /** What this open found and did after an unclean stop (writing stores). */
  recovery(): Recovery {
    return { ...this.recovered };
  }

  private load(): void {
    guardRead(this.site('the catalog'), () => {
      const { structures } = this.catalog.load();
      this.docs.reset(structures);
    });
    guardRead(this.site('the change log'), () => this.log.load());
  }

  /**
   * For read-only stores: picks up what a writing process committed since the last look.
   * Cheap when the catalog did not change: a fresh snapshot and one read of `meta`.
   */
  refresh(): void {
    // The writing process sees its own commits at once; only readers need a new snapshot.
    if (!this.readOnly) return;
    refreshSnapshot(this.handles.env);
    if (!this.catalog.changedOnDisk()) return;
    this.handles.forget();
    this.load();
    openCatalogTrees(this.ctx);
  }

  /**
   * A number that changes whenever a collection or index definition changes: plans cached
   * under one version are still right while it holds.
   */
  get catalogVersion(): number {
    return this.catalog.version;
  }

  // ---- writes --------------------------------------------------------------------------

  /**
   * Runs `job` as one atomic write in the next group commit; resolves once durable. No gate:
   * the engine's writers check theirs before and inside the job (engine/write-gate.ts).
   */
  write<T>(job: (txn: WriteTxn) => T): Promise<T> {
    return this.enqueue(job);
  }

  /** Queues a job: every write, the engine's, apply, snapshot loads, terms and checkpoints. */
  private enqueue<T>(job: (txn: WriteTxn) => T): Promise<T> {
    if (this.closed) {
      return Promise.reject(dbError('ERR_STORAGE_CLOSED', 'closed'));
    }
    if (this.readOnly) {
      return Promise.reject(
        dbError('ERR_STORAGE_READ_ONLY', 'readOnlyWrites', { file: this.file }),
      );
    }
    return this.commits.enqueue(job);
  }

  /**
   * Applies a leader's change-log entries in one atomic write: each must follow the last seq
   * without a gap and carry a term no older than this node's. Resolves with the new last seq
   * once durable.
   */
  applyEntries(entries: readonly ChangeEntry[]): Promise<number> {
    return this.enqueue((txn) => {
      for (const entry of entries) this.applyEntry(txn.state, entry);
      return txn.state.lastSeq;
    });
  }

  /**
   * Applies a run of a leader's stored entries (replication protocol 3) in one atomic write,
   * as applyEntries. `take` is called once the write runs and answers the run, so entries
   * received until then join it: one commit and one durability wait for all. Their documents
   * are read with `leader`'s structures, and stored as they came when this file's structures
   * are the leader's (apply.ts).
   */
  applyPeerEntries(take: () => readonly PeerEntry[], leader: LeaderStructures): Promise<number> {
    return this.enqueue((txn) => {
      const verbatim = adoptStructures(this.ctx, txn.state, leader);
      for (const entry of take()) applyPeerEntry(this.ctx, txn.state, entry, leader, verbatim);
      return txn.state.lastSeq;
    });
  }

  /**
   * Reads one entry as a leader's log stores it (the bytes replication sends), its documents
   * left in the leader's encoding: what `applyPeerEntries` takes.
   */
  readPeerEntry(bytes: Uint8Array): PeerEntry {
    return readPeerEntry(bytes);
  }

  /** An empty table of a leader's shared structures, one per replication session. */
  newLeaderStructures(): LeaderStructures {
    return new LeaderStructures();
  }

  private applyEntry(state: TxnState, entry: ChangeEntry): void {
    this.log.checkApplicable(state, entry);
    const { chain, ...stored } = applyChange(this.ctx, state, entry) as StoredChangeEntry & {
      chain?: string;
    };
    this.log.writeApplied(state, stored, chain);
  }

  /** Applies an entry of this file's own log again, from its stored bytes (an open's replay). */
  private applyStored(state: TxnState, bytes: Uint8Array): void {
    this.applyEntry(
      state,
      decodeStoredEntry(bytes, (doc) => this.docs.decode<Document>(doc)),
    );
  }

  /**
   * Begins replacing this node's whole state with a leader's snapshot at `at.seq`
   * (resync.ts): drops every collection and the change log and marks the load in progress.
   * Its calls pass the write guard, like applyEntries: a follower refuses client writes but
   * takes its leader's. While the mark is set the log takes no entries.
   */
  startSnapshotLoad(at: SnapshotPosition): Promise<SnapshotLoad> {
    return startSnapshotLoad(this.ctx, (job) => this.enqueue((txn) => job(txn.state)), at);
  }

  /** Set when a snapshot load began and never finished (a crash mid-load): the data is partial. */
  snapshotLoadPending(): { seq: number; term: number } | undefined {
    return snapshotLoadPending(this.ctx);
  }

  /** Moves the node to a higher term and persists it (a promotion). Never lowers it. */
  setTerm(term: number): Promise<number> {
    return this.enqueue((txn) => {
      this.log.setTerm(txn.state, term);
      return txn.state.meta.term;
    });
  }

  /** Persists this node's term tag (see NodeMeta.termTag). */
  setTermTag(tag: number): Promise<void> {
    if (!Number.isSafeInteger(tag) || tag < 0) {
      return Promise.reject(dbError('ERR_BAD_ARGUMENT', 'termTagNegative', { tag }));
    }
    return this.enqueue((txn) => {
      this.catalog.saveMeta(txn.state, { ...txn.state.meta, termTag: tag });
    });
  }

  /** Documents written by this process since it opened the file, by operation. */
  writeCounts(): WriteCounts {
    return { ...this.commits.written };
  }

  /** What the selection cache holds now (scans.ts). */
  selectionCache(): SelectionCacheStats {
    return this.scans.stats();
  }

  // ---- maintenance ---------------------------------------------------------------------

  /** Resolves once every queued write is durable. */
  async flush(): Promise<{ lastSeq: number }> {
    await this.commits.whenIdle();
    return { lastSeq: this.log.lastSeq };
  }

  /**
   * Flushes, then trims the change log to its retention bound, never past what a follower
   * holds. Returns what was trimmed.
   */
  async checkpoint(retainEntries: number = CHANGE_LOG_RETAIN_ENTRIES): Promise<CheckpointResult> {
    await this.flush();
    // It trims what is already written and adds nothing: a read-only node checkpoints too.
    const result = await this.enqueue((txn) => {
      const { state } = txn;
      const trimmed = this.log.trimTo(state, state.lastSeq - retainEntries);
      return { lastSeq: state.lastSeq, trimmedEntries: trimmed, firstSeq: state.meta.seqFloor + 1 };
    });
    // The file itself made durable and recorded: the write-ahead log before it goes.
    await this.commits.durability?.checkpoint();
    return result;
  }

  /**
   * The file's pages now, in use and free: what a compaction (`WriteTxn.compactCollection`)
   * starts from, for `compactResult`.
   */
  pageUsage(): PageUsage {
    return pageUsage(this.ctx);
  }

  /** What a compaction begun at `before` reclaimed, in measured pages and bytes. */
  compactResult(trees: CompactedTrees, before: PageUsage): CompactResult {
    return compactResult(this.ctx, trees, before);
  }

  /**
   * Writes a consistent copy of the whole file to `file` (which must not exist) while
   * writers go on: every write committed before the call is in it (engine/backup.ts).
   */
  async copyTo(file: string, compact: boolean): Promise<void> {
    if (this.closed) throw dbError('ERR_STORAGE_CLOSED', 'closed');
    await copyEnv(this.handles.env, file, compact);
  }

  /** File, page and per-collection facts for `inspect` and `/stats`. */
  stats(): StoreStats {
    return guardRead(this.site('the page statistics'), () => storeStats(this.ctx));
  }

  /**
   * Checks the whole file (verify.ts): documents, index entries both ways, the change log,
   * stored counts. Reads one snapshot; writes nothing, so a read-only store beside a running
   * node can run it.
   */
  async verify(progress?: VerifyProgress): Promise<VerifyReport> {
    for (let attempt = 1; ; attempt++) {
      this.refresh();
      const report = await verifyFile(this.ctx, progress);
      if (report) return report;
      // The node changed the catalog between the load and the snapshot: read it again.
      if (attempt >= VERIFY_ATTEMPTS_MAX) {
        throw dbError('ERR_STORAGE_LOCKED', 'catalogChanging', { file: this.file });
      }
      this.handles.forget();
      this.load();
    }
  }

  /** LMDB's id of the last committed transaction (diagnostics; proves group commit). */
  lastTxnId(): number {
    return envStats(this.handles.env).lastTxnId;
  }

  /** Waits for queued writes, closes the file and releases the writer lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.commits.whenIdle();
    this.closed = true;
    try {
      // A last checkpoint, marked clean; if it fails, the next open recovers from the log.
      await this.commits.durability?.close();
    } finally {
      this.log.close();
      await this.handles.close();
      this.lock?.release();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/** The parts of a data file's Store, each over the one before (StoreReads reads through them). */
function storeParts(file: string, readOnly: boolean, options: StoreOptions): StoreParts {
  const handles = new Handles(file, readOnly, options.maxFileBytes !== undefined);
  const catalog = new Catalog(handles, file, readOnly);
  const docs = new DocumentCodec([]);
  const log = new ChangeLog(
    handles,
    catalog,
    changeLogBoundUnderCap(
      options.changeLogRetainBytes ?? CHANGE_LOG_RETAIN_BYTES,
      options.maxFileBytes,
    ),
    (bytes) => docs.decode<Document>(bytes),
  );
  const ctx: StoreContext = { file, readOnly, handles, catalog, log, docs };
  return { ctx, handles, catalog, log, docs, scans: new Scans(ctx) };
}

function checkCheckpointBytes(bytes: number): void {
  if (Number.isSafeInteger(bytes) && bytes >= CHECKPOINT_BYTES_MIN) return;
  throw dbError('ERR_BAD_ARGUMENT', 'checkpointBytes', { min: CHECKPOINT_BYTES_MIN, bytes });
}

/**
 * Sub-database handles of one environment: the catalog and change-log trees, and one handle
 * per collection and index tree, opened on first use and kept. A handle opened inside a write
 * transaction belongs to it (LMDB discards it when the transaction aborts), so it joins the
 * shared cache only once its batch commits.
 */

import {
  type Env,
  openEnv,
  openScanDb,
  openSubDb,
  pinSnapshot,
  type ReadSnapshot,
  releaseSubDb,
  type ScanDb,
  type SubDb,
} from './lmdb-env.js';

/** The handles a write transaction opened, created and dropped; committed with it. */
export interface StagedHandles {
  opened: Map<string, SubDb>;
  dropped: Set<string>;
  /** Of the trees it dropped, those only emptied while snapshots read (Handles.drop). */
  emptied: Set<string>;
}

export function noStagedHandles(): StagedHandles {
  return { opened: new Map(), dropped: new Set(), emptied: new Set() };
}

export class Handles {
  readonly env: Env;
  readonly catalog: SubDb;
  readonly changes: SubDb;
  private readonly committed = new Map<string, SubDb>();
  private readonly scans = new Map<string, ScanDb>();
  /** Snapshots of this process that read trees over many event-loop turns (see `pin`). */
  private snapshotReads = 0;
  /** Trees emptied but not yet deleted, because snapshots were reading when they were dropped. */
  private readonly deferred = new Set<string>();

  /** `flushEachCommit`: LMDB flushes each commit itself (see openEnv). */
  constructor(
    private readonly file: string,
    readOnly: boolean,
    flushEachCommit = false,
  ) {
    this.env = openEnv(file, readOnly, flushEachCommit);
    this.catalog = openSubDb(this.env, 'catalog', !readOnly);
    this.changes = openSubDb(this.env, 'changes', !readOnly);
  }

  /**
   * The handle of a collection (`c<N>`) or index (`i<N>`) tree. Inside a write transaction
   * pass its staged handles: a tree it created or first opened is found there.
   */
  get(name: string, staged?: StagedHandles): SubDb {
    const opened = staged?.opened.get(name) ?? this.committed.get(name);
    if (opened) return opened;
    const db = openSubDb(this.env, name, false, name.startsWith('i'));
    if (staged) staged.opened.set(name, db);
    else this.committed.set(name, db);
    return db;
  }

  /** A second handle on a collection tree for scans that decode in place (never in a write). */
  scan(name: string): ScanDb {
    let scanDb = this.scans.get(name);
    if (!scanDb) {
      scanDb = openScanDb(this.env, name);
      this.scans.set(name, scanDb);
    }
    return scanDb;
  }

  /** Creates a tree inside a write transaction. */
  create(name: string, staged: StagedHandles): SubDb {
    const db = openSubDb(this.env, name, true, name.startsWith('i'));
    staged.opened.set(name, db);
    return db;
  }

  /**
   * Drops a tree inside a write transaction. LMDB closes a deleted tree's handle in the whole
   * process at once, and a snapshot of this process still reading the tree through it would
   * crash the process (SIGSEGV in LMDB's cursor): while snapshots read, the tree is only
   * emptied (its pages stay the snapshots' until they end) and deleted by the first batch
   * after the last of them ends (`dropDeferred`).
   */
  drop(name: string, staged: StagedHandles): void {
    const db = this.get(name, staged);
    if (this.snapshotReads > 0) {
      db.clearSync();
      staged.emptied.add(name);
    } else {
      db.dropSync();
    }
    staged.dropped.add(name);
  }

  /** Deletes the trees that `drop` only emptied, once no snapshot reads (in a write). */
  dropDeferred(staged: StagedHandles): void {
    if (this.snapshotReads > 0) return;
    for (const name of this.deferred) {
      this.get(name, staged).dropSync();
      staged.dropped.add(name);
    }
  }

  /**
   * Pins a read snapshot for reads of trees spread over many event-loop turns (a stream, a
   * file snapshot, a verify): while one is pinned, dropped trees are only emptied (`drop`).
   */
  pin(): ReadSnapshot {
    const snapshot = pinSnapshot(this.env);
    this.snapshotReads++;
    let released = false;
    return {
      ...snapshot,
      release: () => {
        if (released) return;
        released = true;
        this.snapshotReads--;
        snapshot.release();
      },
    };
  }

  /** Makes a committed transaction's handles shared. */
  commit(staged: StagedHandles): void {
    for (const [name, db] of staged.opened) this.committed.set(name, db);
    for (const name of staged.dropped) {
      if (staged.emptied.has(name)) {
        // Snapshots read it through these handles until it is deleted (dropDeferred).
        this.deferred.add(name);
        continue;
      }
      this.deferred.delete(name);
      this.committed.delete(name);
      this.scans.delete(name);
      releaseSubDb(this.file, name);
    }
  }

  /** Lets go of what an aborted transaction opened: none of it reached the disk. */
  discard(staged: StagedHandles): void {
    for (const name of staged.opened.keys()) releaseSubDb(this.file, name);
  }

  /** Forgets every handle (the catalog was re-read: names may now mean other trees). */
  forget(): void {
    for (const name of new Set([...this.committed.keys(), ...this.scans.keys()])) {
      releaseSubDb(this.file, name);
    }
    this.committed.clear();
    this.scans.clear();
  }

  async close(): Promise<void> {
    await this.env.close();
  }
}

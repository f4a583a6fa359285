/**
 * The shapes a follower's catch-up passes between storage and replication: a file snapshot
 * (the leader's side), a snapshot load (the follower's side) and a hold on the change log.
 * Storage implements them; replication's port (replication/port.ts) and its wire protocol
 * name them. Handles with methods, but no behaviour here.
 */

import type { LogPosition, TermRun } from './changes.js';
import type { Document } from './documents.js';
import type { IndexState } from './stats.js';

/** An index definition as a snapshot carries it: enough to create it again. */
export interface SnapshotIndex {
  name: string;
  paths: string[];
  unique: boolean;
  state: IndexState;
}

/** A collection of a file snapshot. */
export interface SnapshotCollection {
  name: string;
  indexes: SnapshotIndex[];
}

/** The whole file at one seq. A snapshot keeps old pages from reuse: release it when done. */
export interface FileSnapshot {
  /** The seq of the newest change the snapshot holds; entries after it follow it. */
  readonly seq: number;
  /** The leader's term when the snapshot was taken. */
  readonly term: number;
  /**
   * The term of the entry at `seq` (the floor's when the log held none; 0 when nothing was
   * ever written): what a node that loads it reports as its last term.
   */
  readonly lastTerm: number;
  /** The link of the entry at `seq` (hex), when it has one. */
  readonly lastChain: string | undefined;
  /** The term history up to `seq`: the loading node's history once loaded. */
  readonly runs: readonly TermRun[];
  readonly collections: readonly SnapshotCollection[];
  /** The collection's documents in `_id` order, as plain values (portable like log entries). */
  documents(collection: string): Iterable<{ id: string; doc: Document }>;
  release(): void;
}

/** Where a leader's snapshot stands: what a load starts from. */
export interface SnapshotPosition {
  /** The snapshot's seq (FileSnapshot.seq): the log continues after it. */
  seq: number;
  /** The leader's term when it took the snapshot: the node's term becomes at least this. */
  term: number;
  /**
   * The term of the entry at `seq` on the leader (FileSnapshot.lastTerm): the node's
   * `lastTerm` once loaded, what a handshake compares. When left out, `term` stands in.
   */
  lastTerm?: number;
  /** The hash-chain link of the entry at `seq` on the leader (hex), when it has one. */
  lastChain?: string;
  /**
   * The leader's term history up to `seq` (FileSnapshot.runs): the node's once loaded. When
   * left out, the history starts at the snapshot's seq.
   */
  runs?: readonly TermRun[];
}

/**
 * A snapshot load under way (Store.startSnapshotLoad). Each call is one write job past the
 * write gate, like a follower's apply. A load that finished, or that a newer one replaced,
 * refuses further calls.
 */
export interface SnapshotLoad {
  /**
   * Creates a collection with its index definitions (state 'ready' | 'stale'). A stale index
   * stays stale and empty until rebuilt: its leader never checked the documents against it.
   */
  addCollection(name: string, indexes: readonly SnapshotIndex[]): Promise<void>;
  /**
   * Inserts documents (plain values and their ids as GUID text) into an added collection;
   * index entries maintained. One job per call: send batches (about 1,000 documents).
   */
  insert(
    collection: string,
    documents: ReadonlyArray<{ id: string; doc: Document }>,
  ): Promise<void>;
  /**
   * Makes it the node's state: change log empty, its floor at the snapshot's seq (with the
   * entry's term), term max(term, current), mark cleared. Resolves with the new position.
   */
  finish(): Promise<LogPosition>;
}

/**
 * A promise to keep the change-log entries after `seq` (a follower that has applied up to
 * `seq`). Trims stop at the lowest held seq, unless the log grows past CHANGE_LOG_HOLD_FACTOR
 * times its byte bound: then the hold is broken (`lost`), the entries go, and its holder must
 * catch up from a snapshot.
 */
export interface ChangeHold {
  readonly seq: number;
  /** True once the entries it held were trimmed after all. */
  readonly lost: boolean;
  /** Moves the hold on (the holder needs less); never back. */
  move(seq: number): void;
  release(): void;
}

/**
 * The replication port: all that replication reaches of the node it runs on, declared here by
 * its one user. `storage` is the change log's side (its reads, a leader's entries applied,
 * terms, holds, snapshot loads), which storage's Store implements; `gate` is the node's write
 * gate (role, read-only mode, the lease check, the commit barrier), which the engine's
 * WriteGate implements. The node's wiring (server/, cli/) hands both in: replication imports
 * neither storage nor the engine, and must not call anything this file does not list.
 */

import type {
  ChangeEntry,
  ChangeHold,
  FileSnapshot,
  LogPosition,
  Role,
  SnapshotLoad,
  SnapshotPosition,
  TermRun,
} from '../types/index.js';

/** A shared document structure: the keys of one document shape, in order. */
export type Structure = string[];

/**
 * One entry as a leader's log stores it, read by `readPeerEntry` with its documents left in
 * the leader's encoding: replication looks at its seqs, and hands it back to apply.
 */
export interface PeerEntry {
  readonly entry: { readonly seq: number; readonly endSeq?: number | undefined };
}

/** A session's table of the leader's shared structures, as the leader told them. */
export interface LeaderStructures {
  /** Takes the leader's structures from id `from` on (it knows those before `from`). */
  take(from: number, structures: readonly Structure[]): void;
}

/**
 * The change log's side of the port (storage's Store). Its writes pass no write gate: a
 * follower refuses client writes but applies its leader's entries.
 */
export interface ReplicationStorage {
  /** The data file: replication keeps its lease and rollback files in its directory. */
  readonly file: string;
  /** Resolves once every write issued so far is durable. */
  flush(): Promise<{ lastSeq: number }>;
  /** The term, the log's last and trimmed seqs, the last entry's term and link. */
  nodeState(): LogPosition;
  /** The term history: one run per term the node's entries carry, oldest first. */
  termRuns(): readonly TermRun[];
  /** The hash-chain link (hex) of the entry at `seq` while the log retains it. */
  chainAt(seq: number): string | undefined;
  /** This node's tag in the terms it makes when promoted, once one was drawn. */
  termTag(): number | undefined;
  /** Moves the node to a higher term, durably; never lower. Resolves with the term. */
  setTerm(term: number): Promise<number>;
  /** Persists this node's term tag. */
  setTermTag(tag: number): Promise<void>;
  /** The retained entries after `seq`, oldest first. */
  changesAfter(seq: number): Iterable<ChangeEntry>;
  /** The retained entries after `seq` as the bytes the log stores (what a leader sends). */
  storedChangesAfter(seq: number): Iterable<{ seq: number; bytes: Uint8Array }>;
  /** This file's shared document structures now, in id order; they only grow. */
  sharedStructures(): readonly Structure[];
  /** Resolves with the last seq once a commit takes the log past `seq` (or `signal` aborts). */
  whenCommittedAfter(seq: number, signal?: AbortSignal): Promise<number>;
  holdChanges(seq: number): ChangeHold;
  openFileSnapshot(): FileSnapshot;
  /** Set when a snapshot load began and never finished: the data is partial. */
  snapshotLoadPending(): { seq: number; term: number } | undefined;
  /** Begins replacing the node's whole state with a leader's snapshot at `at.seq`. */
  startSnapshotLoad(at: SnapshotPosition): Promise<SnapshotLoad>;
  /** Reads one entry a leader sent (refused with ERR_CHANGE_INVALID when it is none). */
  readPeerEntry(bytes: Uint8Array): PeerEntry;
  /** An empty table of a leader's shared structures, one per session. */
  newLeaderStructures(): LeaderStructures;
  /**
   * Applies a run of the leader's entries (`take` answers it when the write runs, so entries
   * that arrive until then join it) in one atomic write; resolves with the new last seq once
   * durable. Only entries and a table this port made.
   */
  applyPeerEntries(take: () => readonly PeerEntry[], leader: LeaderStructures): Promise<number>;
}

/** The write gate's side of the port (the engine's WriteGate): what replication switches. */
export interface ReplicationGate {
  readonly role: Role;
  readonly readOnly: boolean;
  /** The leader writes should go to (a follower's), when known. */
  readonly leader: string | undefined;
  setRole(role: Role, leader?: string): void;
  setReadOnly(readOnly: boolean): void;
  setLeader(leader: string | undefined): void;
  /** The check a leader's client writes pass (its lease); undefined: none. */
  setLeaseCheck(check: (() => void) | undefined): void;
  /** What a client write that changed something waits for once committed (syncFollowers). */
  setCommitBarrier(barrier: ((seq: number) => Promise<void>) | undefined): void;
}

/** The port: the node's change log and its write gate. */
export interface ReplicationPort {
  storage: ReplicationStorage;
  gate: ReplicationGate;
}

/**
 * Change-log entries, format version 1 (storage/change-entry.ts encodes them): what one write
 * did, with documents as plain values, so any node or client can read them.
 */

import type { Document } from './documents.js';

/** What one change-log entry records. */
export type ChangeOp =
  /** One atomic write of one or more documents (a bulk insert is one entry). */
  | {
      op: 'insert';
      collection: string;
      documents: Array<{ id: string; doc: Document }>;
      /** A cold load: no index entries were written and the indexes were marked stale. */
      skipIndexes?: true;
    }
  | { op: 'replace'; collection: string; id: string; doc: Document }
  | { op: 'delete'; collection: string; id: string }
  | { op: 'dropCollection'; collection: string }
  | {
      op: 'createIndex';
      collection: string;
      index: { name: string; paths: string[]; unique: boolean };
    }
  | { op: 'dropIndex'; collection: string; name: string }
  /** Indexes rebuilt from the documents and marked ready. */
  | { op: 'rebuildIndexes'; collection: string; names: string[] };

/** Where an entry stands in the log. */
export interface ChangeStamp {
  /** Its place in the log: strictly increasing from 1, never reused. */
  seq: number;
  /** The replication term of the leader that wrote it. */
  term: number;
  /** The commit time on that leader (Unix milliseconds). */
  atMs: number;
  /** Set on each entry of a write that made several: the seq of its last one. */
  endSeq?: number;
  /**
   * The entry's link in the log's hash chain, 32 hex digits: the first 16 bytes of a SHA-256
   * over the link before it and the entry as the leader that wrote it stored it. Followers keep
   * it as they keep `seq` and `term`, so two logs with the same link at a seq hold the same
   * history up to it. Absent on entries written before docdb kept a chain.
   */
  chain?: string;
}

/** A change-log entry as readers get it. */
export type ChangeEntry = ChangeOp & ChangeStamp;

/** Where a node's change log stands. */
export interface LogPosition {
  /** The replication term this node is in. */
  term: number;
  /** The newest entry's seq (0 before the first write). */
  lastSeq: number;
  /** The highest seq trimmed away: entries after it are kept. */
  seqFloor: number;
  /**
   * The term of the newest entry (the one at `lastSeq`); when the log holds none, the term
   * recorded at the floor (of the last entry trimmed, or of a loaded snapshot's seq); 0 when
   * nothing was ever written. Two nodes whose logs hold the same seq with the same term agree
   * on the history up to it.
   */
  lastTerm: number;
  /** The hash-chain link of the entry at `lastSeq` (of the floor when the log holds none). */
  lastChain?: string;
}

/**
 * One run of a node's term history: the entries from seq `from` on carry `term`, up to the
 * next run's `from`. Terms never go down along a history, and a promotion makes a term no
 * other promotion makes, so two histories agree at a seq exactly when their runs give it the
 * same term (the hash chain confirms it where both logs still hold the entry).
 */
export interface TermRun {
  term: number;
  from: number;
}

/**
 * A change feed's heartbeat (GET /changes): sent when the feed opens and after a few seconds
 * of silence. A node's says `lastSeq`, a router's `cursor`: every entry up to it was sent or
 * filtered out, so a consumer resumes with `since` set to it.
 */
export interface ChangeHeartbeat {
  /** The sender's clock (Unix milliseconds). */
  heartbeat: number;
  lastSeq?: number;
  cursor?: string;
}

/**
 * One entry of a change feed. Through a router it also names its `shard` (whose log `seq`
 * is in) and the router `cursor` to resume after it.
 */
export type FeedEntry = ChangeEntry & { shard?: string; cursor?: string };

/**
 * A line of a change feed as GET /changes sends it: an entry or a heartbeat. Each says where a
 * consumer resumes after it (util's `resumePoint`): a router's `cursor`, else a node's seq
 * (an entry's `seq`, a heartbeat's `lastSeq`).
 */
export type ChangeLine = FeedEntry | ChangeHeartbeat;

/** Options of a change feed (`NodeApi.changesWithHeartbeats`; GET /changes's query string). */
export interface ChangeFeedOptions {
  /**
   * Start after this resume point, as text: a node's seq (`0`: every retained entry) or a
   * router's cursor, from a line or heartbeat of the same node or router. Absent: from now.
   */
  since?: string;
  /** Only this collection's entries. */
  collection?: string;
  /** Ends the feed, even while it waits for a commit: the iteration just finishes. */
  signal?: AbortSignal;
  /**
   * Silence before a heartbeat where the feed is made (a node or a router in this process;
   * default CHANGES_HEARTBEAT_MS). A client's feed gets the heartbeats its server sends.
   */
  heartbeatMs?: number;
}

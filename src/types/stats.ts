/** Facts about a data file, its collections and indexes, and what maintenance reports. */

import type { Role } from './node.js';

/** Whether the planner may answer from an index: `stale` after a `skipIndexes` load. */
export type IndexState = 'ready' | 'stale';

/** An index as the API reports it. */
export interface IndexInfo {
  name: string;
  paths: string[];
  unique: boolean;
  multikey: boolean;
  state: IndexState;
}

/** Storage facts of a data file (`inspect`, `GET /stats`). */
export interface StoreStats {
  file: string;
  fileSizeBytes: number;
  pageSizeBytes: number;
  pages: { total: number; used: number; free: number };
  collections: Array<{
    name: string;
    count: number;
    indexes: Array<IndexInfo & { entries: number }>;
  }>;
  changeLog: { entries: number; lastSeq: number; firstSeq: number };
  term: number;
}

/**
 * One member of a replica-set shard, as its `GET /replication/status` showed it (`docdb
 * health`, a router's `GET /stats`).
 */
export interface MemberHealth {
  endpoint: string;
  status: 'up' | 'down';
  role: Role | null;
  readOnly: boolean | null;
  term: number | null;
  /** Its change log's last seq. */
  seq: number | null;
  /** Entries behind the shard's leader (0 for the leader); null when either is unknown. */
  lag: number | null;
  /** Why it is down. */
  error: string | null;
}

/** One shard in a router's `GET /stats`: its own stats, from its leader, and its nodes. */
export interface RouterShardStats {
  name: string;
  stats: StoreStats;
  /** A one-endpoint shard's node; null for a replica set. */
  endpoint: string | null;
  /** A replica set's members in cluster.json's order, asked as /stats ran; null otherwise. */
  members: MemberHealth[] | null;
  /**
   * The member that leads (its endpoint) by the members' answers, null when none does; a
   * one-endpoint shard's endpoint (it is its own leader).
   */
  leader: string | null;
}

/**
 * `GET /stats` through a router: documents per collection (a hash collection's summed, a
 * replicated one's counted once), and every shard's stats and nodes.
 */
export interface RouterStats {
  collections: Array<{ name: string; count: number }>;
  shards: RouterShardStats[];
}

/** What a compaction measured. */
export interface CompactResult {
  collection: string;
  pagesBefore: number;
  pagesAfter: number;
  pagesCompacted: number;
  bytesReclaimed: number;
  freePagesBefore: number;
  freePagesAfter: number;
  fileSizeBytes: number;
}

/** What a checkpoint did to the change log. */
export interface CheckpointResult {
  lastSeq: number;
  trimmedEntries: number;
  /** The seq of the oldest entry kept. */
  firstSeq: number;
}

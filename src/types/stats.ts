/** Facts about a data file, its collections and indexes, and what maintenance reports. */

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

/** `GET /stats` through a router: documents per collection summed, and every shard's stats. */
export interface RouterStats {
  collections: Array<{ name: string; count: number }>;
  shards: Array<{ name: string; stats: StoreStats }>;
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

/** The result of `docdb verify` / `db.verify()`: what was checked and what is wrong. */

/** What kind of damage or disagreement a problem is. */
export type VerifyProblemKind =
  /** A document's stored bytes do not decode. */
  | 'document'
  /** An index entry whose document is missing or does not hold the entry's value. */
  | 'index-extra'
  /** A document without the index entry its value needs. */
  | 'index-missing'
  /** A unique index listing two documents under one complete value. */
  | 'unique'
  /** A tree's stored entry count differs from the entries read. */
  | 'count'
  /** A change-log entry that does not decode, or a gap or repeat in its seqs. */
  | 'change-log'
  /** A catalog record that does not decode or names a tree that is missing. */
  | 'catalog'
  /** Pages LMDB could not read (the rest of that tree was not checked). */
  | 'pages';

/** One thing wrong, for people (message) and scripts (the fields). */
export interface VerifyProblem {
  kind: VerifyProblemKind;
  message: string;
  collection?: string;
  index?: string;
  /** The document's `_id`, when the problem is about one. */
  id?: string;
  /** The change-log seq, when the problem is about an entry. */
  seq?: number;
}

/** What `verify` read and found. */
export interface VerifyReport {
  file: string;
  /** True when nothing is wrong. */
  ok: boolean;
  checked: {
    collections: number;
    documents: number;
    indexes: number;
    indexEntries: number;
    /** Stale indexes are not maintained until rebuilt: their entries are not checked. */
    staleIndexes: number;
    changes: number;
  };
  /** Problems of each kind, all counted. */
  problemCounts: Partial<Record<VerifyProblemKind, number>>;
  /** Every problem found, up to VERIFY_PROBLEMS_LISTED_MAX; `problemCount` has the total. */
  problems: VerifyProblem[];
  problemCount: number;
}

/**
 * Two nodes' change logs compared (`docdb verify --peer`): where their histories part, found
 * as a rejoining follower's are (replication/fork.ts).
 */
export interface LogComparison {
  file: string;
  peer: string;
  /**
   * `same`: the same history to the same seq; `behind`: one is a prefix of the other (a
   * follower not caught up); `diverged`: each holds entries the other lacks after the fork;
   * `unknown`: where they part lies before what either log still records.
   */
  verdict: 'same' | 'behind' | 'diverged' | 'unknown';
  /** The last seq both logs share (the fork), when known. */
  sharedThrough: number | null;
  lastSeq: number;
  peerLastSeq: number;
  /** How the fork was placed: the term histories alone, or confirmed by the hash chain. */
  foundBy: 'terms' | 'chain' | null;
  /** One sentence for people. */
  message: string;
}

/** What a SQL statement answers. */

import type { Document } from './documents.js';

/** The first value a query stream yields, known before any document. */
export interface QueryMeta {
  /** The plan string (spec §4: `INDEX_SCAN(name)`, `COLLECTION_SCAN + AGGREGATE`, …). */
  plan: string;
  /** Documents returned (a read) or affected (a write). */
  count: number;
  executionMs: number;
  /** Documents a write changed. */
  affected?: number;
  /** Ids an INSERT stored. */
  ids?: string[];
}

/** The result of one statement: reads carry documents, writes an empty list. */
export interface QueryResult extends QueryMeta {
  documents: Document[];
  /**
   * Asked for by a router (`sortKeys`): each document's sort key (its ORDER BY values, then its
   * ids), parallel to `documents`, when the statement sorts.
   */
  sortKeys?: unknown[][];
}

/**
 * What a router asks of a shard with a query (ADR 0014): `phase: 'partial'` answers an
 * aggregate's groups as `{ group, states }` for the router to merge; `sortKeys` adds each
 * row's sort key for its k-way merge.
 */
export interface ShardQueryOptions {
  phase?: 'partial';
  sortKeys?: boolean;
}

/** A streamed row with its sort key, when a router asked for sort keys. */
export type KeyedRow = {
  doc: Document;
  sortKey: unknown[];
};

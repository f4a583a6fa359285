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
}

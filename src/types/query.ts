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
  /**
   * Present only when something in the statement is likely not what was meant, though it
   * ran: a double-quoted path (a field name, not a string) that no document has.
   */
  warnings?: string[];
}

/**
 * The result of one statement: reads carry documents, writes an empty list. `Row` is
 * `Document | JsonText` when the caller asked for `{ rows: 'json' }`.
 */
export interface QueryResult<Row = Document> extends QueryMeta {
  documents: Row[];
  /**
   * Asked for by a router (ShardPlan's `sortKeys`): each document's sort key (its ORDER BY values, then its
   * ids), parallel to `documents`, when the statement sorts.
   */
  sortKeys?: unknown[][];
}

/**
 * What a router asks of a shard for its part of a scattered SELECT (ADR 0014), sent beside the
 * user's own SQL text and params (POST /query's body field `shard`). The shard's engine applies
 * it to the parsed statement in one place (engine/shard-plan.ts).
 *
 * - `partial`: the aggregate's groups as `{ group, states }`, every group, unsorted. ORDER BY,
 *   DISTINCT, OFFSET and LIMIT apply to finished rows, so the shard ignores them and the router
 *   applies them after merging the parts.
 * - `rows`: the statement's rows in its order, ignoring its OFFSET and LIMIT: the first `top`
 *   of them (the router's OFFSET + LIMIT), or all when `top` is absent. `sortKeys` adds each
 *   row's sort key (its ORDER BY values, then its ids) when the statement sorts.
 */
export type ShardPlan = { kind: 'partial' } | { kind: 'rows'; top?: number; sortKeys?: boolean };

/** A streamed row with its sort key, when a router asked for sort keys. */
export type KeyedRow = {
  doc: Document;
  sortKey: unknown[];
};

/** Documents and what writes of them report. */

/** A document as callers see it: a JSON object, with `_id` when it was read. */
export type Document = Record<string, unknown>;

/** One failed item of a bulk insert: its position in the input, the error text and code. */
export interface BulkItemError {
  index: number;
  error: string;
  code: string;
}

/** Per-item outcome of a bulk insert. */
export interface BulkResult {
  /** Id of every document inserted, in input order. */
  ids: string[];
  errors: BulkItemError[];
}

/** What seeding the demo orders did (`docdb seed`, `POST /seed`). */
export interface SeedResult {
  collection: 'orders';
  inserted: number;
  skipped: number;
  indexes: string[];
}

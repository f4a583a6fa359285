/** Documents and what writes of them report. */

/** A document as callers see it: a JSON object, with `_id` when it was read. */
export type Document = Record<string, unknown>;

/**
 * A row (a document, or a projection of one) held as its JSON text: exactly what
 * `JSON.stringify` of the row gives. A node writes it from the stored bytes without building
 * the object, and its server splices the text into the answer. Asked for with
 * `{ rows: 'json' }`; an implementation that holds no text answers objects instead, so a
 * caller handles both (util's `isJsonText`). `JSON.stringify` of one gives the row again.
 */
export interface JsonText {
  readonly json: string;
  toJSON(): unknown;
}

/**
 * Rows of a stream as NDJSON: `bytes` holds `rows` whole lines, each a row's JSON text (as a
 * JsonText holds it) and a newline. A node writes a plain SELECT's stream so, from the stored
 * bytes, in chunks of about 64 KiB that its server sends as they are. Asked for with
 * `{ rows: 'ndjson' }`; util's `isJsonLines` tells one.
 */
export interface JsonLines {
  readonly bytes: Uint8Array;
  readonly rows: number;
}

/**
 * Asks a read for its rows as JSON text where the implementation holds them so: `json` as
 * JsonText rows; `ndjson` the same, and a stream's rows may also come as JsonLines, several
 * rows at a time.
 */
export interface RowsOption {
  rows?: 'objects' | 'json' | 'ndjson';
}

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

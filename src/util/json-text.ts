/**
 * The one implementation of `JsonText` (types/documents.ts): a row held as its JSON text, and
 * the test for one. It never parses the text unless asked (`toJSON`, `parse`).
 */

import type { Document, JsonText } from '../types/index.js';

class HeldJsonText implements JsonText {
  constructor(readonly json: string) {}

  /** The row itself, so that `JSON.stringify` of an answer holding it stays right. */
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}

/** A row held as `json`, which must be `JSON.stringify` of the row. */
export function jsonText(json: string): JsonText {
  return new HeldJsonText(json);
}

/** True for a row held as JSON text. */
export function isJsonText(value: unknown): value is JsonText {
  return value instanceof HeldJsonText;
}

/** The row as an object, whichever form it came in. */
export function rowObject(row: Document | JsonText): Document {
  return isJsonText(row) ? (JSON.parse(row.json) as Document) : row;
}

/** The row's JSON text, whichever form it came in. */
export function rowJson(row: unknown): string {
  return isJsonText(row) ? row.json : JSON.stringify(row);
}

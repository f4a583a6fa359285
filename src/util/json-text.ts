/**
 * The one implementation of `JsonText` and of `JsonLines` (types/documents.ts): rows held as
 * their JSON text, and the tests for them. It never parses the text unless asked (`toJSON`).
 */

import type { Document, JsonLines, JsonText } from '../types/index.js';

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

/**
 * The row's JSON text, whichever form it came in; as an array item, so what JSON.stringify
 * leaves out of an object (undefined, a function) is `null`, as it is in an array.
 */
export function rowJson(row: unknown): string {
  return isJsonText(row) ? row.json : (JSON.stringify(row) ?? 'null');
}

class HeldJsonLines implements JsonLines {
  constructor(
    readonly bytes: Uint8Array,
    readonly rows: number,
  ) {}
}

/** `rows` rows as NDJSON: `bytes` must hold that many whole lines, each a row's JSON text. */
export function jsonLines(bytes: Uint8Array, rows: number): JsonLines {
  return new HeldJsonLines(bytes, rows);
}

/** True for rows held as NDJSON lines. */
export function isJsonLines(value: unknown): value is JsonLines {
  return value instanceof HeldJsonLines;
}

/**
 * Index entry keys for one document: the encoded tuple of the indexed paths' values followed
 * by the 16-byte id, so entries sort by value and then by id. A multikey path contributes
 * one entry per distinct element value; a path holding an array or object is not listed.
 */

import { type JsonPath, parsePath, valueAt, valuesAt } from '../util/index.js';
import type { IndexDef } from './catalog.js';
import { compareBytes, type EncodedKey, encodeTuple } from './codec/index.js';

/** An index definition with its paths parsed once. */
export interface LiveIndex {
  def: IndexDef;
  paths: JsonPath[];
}

export function liveIndex(def: IndexDef): LiveIndex {
  return { def, paths: def.paths.map((p) => parsePath(p, { allowEach: true })) };
}

/** The tuples (as arrays of values) a document contributes to an index. */
export function indexTuples(index: LiveIndex, doc: unknown): unknown[][] {
  let tuples: unknown[][] = [[]];
  for (const path of index.paths) {
    if (path.multikey) {
      const values = valuesAt(doc, path);
      if (values.length === 0) return [];
      tuples = tuples.flatMap((t) => values.map((v) => [...t, v]));
    } else {
      const value = valueAt(doc, path);
      for (const t of tuples) t.push(value);
    }
  }
  return tuples;
}

/** One value part of an index entry; `hasNull` marks tuples that unique checks skip (SQL rule). */
export interface IndexValue extends EncodedKey {
  hasNull: boolean;
  /** The indexed values, for rechecks of truncated keys and for error messages. */
  tuple: unknown[];
}

function toIndexValue(tuple: unknown[]): IndexValue | undefined {
  const key = encodeTuple(tuple);
  if (!key) return undefined;
  let hasNull = false;
  for (let i = 0; i < tuple.length; i++) {
    if (tuple[i] === null || tuple[i] === undefined) hasNull = true;
  }
  return { bytes: key.bytes, truncated: key.truncated, tuple, hasNull };
}

/**
 * Above this many values, a multikey document dedupes its keys with a set of strings; below
 * it, comparing each new key with the earlier ones is cheaper than building the strings.
 */
const DEDUPE_SCAN_VALUES_MAX = 8;

/** The distinct encoded value parts a document contributes to an index. */
export function indexValues(index: LiveIndex, doc: unknown): IndexValue[] {
  if (!index.def.multikey) {
    // One tuple per document: no expansion, no dedupe. A single path (the common case, on
    // the bulk-insert hot path) skips the mapping too.
    const tuple =
      index.paths.length === 1
        ? [valueAt(doc, index.paths[0] as JsonPath)]
        : index.paths.map((path) => valueAt(doc, path));
    const value = toIndexValue(tuple);
    return value ? [value] : [];
  }
  // A single `[*]` path: its elements are the tuples, without the general expansion.
  const tuples =
    index.paths.length === 1
      ? valuesAt(doc, index.paths[0] as JsonPath).map((element) => [element])
      : indexTuples(index, doc);
  return distinctValues(tuples);
}

/** The distinct index values of a multikey document's tuples. */
function distinctValues(tuples: unknown[][]): IndexValue[] {
  const out: IndexValue[] = [];
  const seen = tuples.length > DEDUPE_SCAN_VALUES_MAX ? new Set<string>() : undefined;
  for (const tuple of tuples) {
    const value = toIndexValue(tuple);
    if (!value) continue;
    if (seen) {
      const text = sameValueKey(value);
      if (seen.has(text)) continue;
      seen.add(text);
    } else if (out.some((earlier) => sameValue(earlier, value))) {
      continue;
    }
    out.push(value);
  }
  return out;
}

/**
 * Whether two lists of index values hold the same values in the same order (a list in
 * another order answers false, which only costs its caller the general path).
 */
export function sameValues(a: readonly IndexValue[], b: readonly IndexValue[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!sameValue(a[i] as IndexValue, b[i] as IndexValue)) return false;
  }
  return true;
}

/** sameValueKey(a) === sameValueKey(b), without building the strings in the usual case. */
function sameValue(a: IndexValue, b: IndexValue): boolean {
  if (a.truncated || b.truncated) return sameValueKey(a) === sameValueKey(b);
  return compareBytes(a.bytes, b.bytes) === 0;
}

/**
 * A string that is equal for two index values exactly when their tuples are equal: the
 * encoded bytes, plus the full tuple when the bytes were truncated.
 */
export function sameValueKey(value: IndexValue): string {
  const text = value.bytes.toString('latin1');
  return value.truncated ? `${text}\u0000${JSON.stringify(value.tuple)}` : text;
}

/**
 * Index entry keys for one document: the encoded tuple of the indexed paths' values followed
 * by the 16-byte id, so entries sort by value and then by id. A multikey path contributes
 * one entry per distinct element value; a path holding an array or object is not listed.
 */

import { type JsonPath, parsePath, valueAt, valuesAt } from '../util/index.js';
import type { IndexDef } from './catalog.js';
import { type EncodedKey, encodeTuple } from './codec/index.js';

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
  for (const v of tuple) if (v === null || v === undefined) hasNull = true;
  return { bytes: key.bytes, truncated: key.truncated, tuple, hasNull };
}

/** The distinct encoded value parts a document contributes to an index. */
export function indexValues(index: LiveIndex, doc: unknown): IndexValue[] {
  if (!index.def.multikey) {
    // One tuple per document: no expansion, no dedupe.
    const tuple = index.paths.map((path) => valueAt(doc, path));
    const value = toIndexValue(tuple);
    return value ? [value] : [];
  }
  const out: IndexValue[] = [];
  const seen = new Set<string>();
  for (const tuple of indexTuples(index, doc)) {
    const value = toIndexValue(tuple);
    if (!value) continue;
    const text = sameValueKey(value);
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(value);
  }
  return out;
}

/**
 * A string that is equal for two index values exactly when their tuples are equal: the
 * encoded bytes, plus the full tuple when the bytes were truncated.
 */
export function sameValueKey(value: IndexValue): string {
  const text = value.bytes.toString('latin1');
  return value.truncated ? `${text}\u0000${JSON.stringify(value.tuple)}` : text;
}

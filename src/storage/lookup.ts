/**
 * Key-range mechanics of index reads: the ids listed under key tuples (equality), under one
 * key of a unique index (a point lookup) and between two bounds (a range). Which index to
 * read, and whether a document found really matches, is decided above storage: the planner
 * chooses, and the executor rechecks every document with the semantics of its condition
 * unless the read proves it (keys longer than KEY_VALUE_BYTES_MAX are stored truncated, so an
 * index read can give extra candidates, never miss one).
 */

import { isScalar, typeFamily } from '../util/index.js';
import type { IndexDef } from './catalog.js';
import { encodeTuple, TAG_FALSE, TAG_NUMBER, TAG_STRING, tagOf } from './codec/index.js';
import type { StoreReader } from './reader.js';

/** Bounds of a range; at least one should be given. */
export interface RangeBounds {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
}

/** One value of a key tuple to look up. */
export interface KeyValue {
  value: unknown;
  /**
   * A null value reads the index's null entries (null and missing values); otherwise a tuple
   * holding null finds nothing (SQL `= null` is never true).
   */
  nullMatches: boolean;
}

/**
 * Appended to an encoded value, sorts after every key that starts with it: the byte after a
 * complete value encoding is another value's tag (0x01–0x05) or the end of the key.
 */
const PAST_VALUE = Buffer.from([0xff]);

/**
 * Ids listed under any of the given key tuples of an index, each id once. A tuple holding an
 * array or object finds nothing (indexes list scalars only). Truncated keys can add
 * candidates that do not match: callers always recheck the documents.
 */
export function idsForKeys(
  store: StoreReader,
  index: IndexDef,
  tuples: KeyValue[][],
): Iterable<Buffer> {
  // One key of an index that lists a document once: its ids as the store reads them, with no
  // generator between (every id of `status = ? LIMIT 100` passes here, issue 25).
  if (tuples.length === 1 && !index.multikey) {
    return idsForTuple(store, index, tuples[0] as KeyValue[]) ?? [];
  }
  return distinctIds(store, index, tuples);
}

function* distinctIds(store: StoreReader, index: IndexDef, tuples: KeyValue[][]) {
  const seen = new Set<string>();
  // Placeholders bound to one value are one lookup: `IN (?, ?, …)` given a value k times
  // read its m ids k times over (1,000 placeholders over 10k ids: 8 s).
  const looked = new Set<string>();
  for (const tuple of tuples) {
    const key = JSON.stringify(tuple.map((p) => [p.value ?? null, p.nullMatches]));
    if (looked.has(key)) continue;
    looked.add(key);
    for (const id of idsForTuple(store, index, tuple) ?? []) {
      const text = id.toString('latin1');
      if (seen.has(text)) continue;
      seen.add(text);
      yield id;
    }
  }
}

/** The ids listed under one key tuple, or undefined when the tuple can list none. */
function idsForTuple(
  store: StoreReader,
  index: IndexDef,
  tuple: KeyValue[],
): Iterable<Buffer> | undefined {
  let hasNull = false;
  let lookable = true;
  const values = tuple.map((part) => {
    const value = part.value === undefined ? null : part.value;
    if (value === null) {
      hasNull = true;
      if (!part.nullMatches) lookable = false;
    } else if (!isScalar(value)) {
      lookable = false;
    }
    return value;
  });
  const encoded = lookable ? encodeTuple(values) : undefined;
  if (!encoded) return undefined;
  // A unique index lists several documents under a key that holds null (only non-null
  // values must be unique) or that was truncated (values that differ past the cut), so
  // such a key is read as a range rather than with one get.
  return hasNull || (index.unique && encoded.truncated)
    ? store.indexIds(index, encoded.bytes, Buffer.concat([encoded.bytes, PAST_VALUE]))
    : store.indexIdsForKey(index, encoded.bytes);
}

/**
 * The id listed under one tuple of a unique index, read with one get (a point lookup's
 * whole index work): null when none is. The caller has checked that the index is unique and
 * the tuple holds only non-null scalars (what such an index lists). Undefined when one get
 * cannot answer: the key is truncated, so several documents may share it (read it with
 * idsForKeys).
 */
export function idForUniqueKey(
  store: StoreReader,
  index: IndexDef,
  tuple: unknown[],
): Buffer | null | undefined {
  const encoded = encodeTuple(tuple);
  if (!encoded || encoded.truncated) return undefined;
  return store.indexIdForUniqueKey(index, encoded.bytes) ?? null;
}

function lowerKey(bounds: RangeBounds, tag: number): Buffer {
  if (bounds.gte !== undefined) return (encodeTuple([bounds.gte]) as { bytes: Buffer }).bytes;
  if (bounds.gt !== undefined) {
    // Past every entry of the bound's value; a truncated bound stays inclusive (rechecked).
    const key = encodeTuple([bounds.gt]) as { bytes: Buffer; truncated: boolean };
    return key.truncated ? key.bytes : Buffer.concat([key.bytes, PAST_VALUE]);
  }
  return Buffer.from([tag]);
}

function upperKey(bounds: RangeBounds, tag: number): Buffer {
  if (bounds.lte !== undefined) {
    return Buffer.concat([(encodeTuple([bounds.lte]) as { bytes: Buffer }).bytes, PAST_VALUE]);
  }
  if (bounds.lt !== undefined) {
    const key = encodeTuple([bounds.lt]) as { bytes: Buffer; truncated: boolean };
    return key.truncated ? Buffer.concat([key.bytes, PAST_VALUE]) : key.bytes;
  }
  return Buffer.from([tag === TAG_FALSE ? TAG_NUMBER : tag + 1]);
}

/**
 * Key range of a range read, or undefined when no value can lie in it (no bound, a null,
 * array or object bound, bounds of different types, or an empty range).
 */
export function rangeKeys(bounds: RangeBounds): { start: Buffer; end: Buffer } | undefined {
  const given = [bounds.gt, bounds.gte, bounds.lt, bounds.lte].filter((b) => b !== undefined);
  if (given.length === 0) return undefined;
  if (given.some((b) => !isScalar(b) || b === null)) return undefined;
  const families = new Set(given.map(typeFamily));
  if (families.size > 1) return undefined;
  const first = given[0];
  const tag = typeof first === 'boolean' ? TAG_FALSE : tagOf(first);
  if (tag !== TAG_FALSE && tag !== TAG_NUMBER && tag !== TAG_STRING) return undefined;
  const start = lowerKey(bounds, tag);
  const end = upperKey(bounds, tag);
  return start.compare(end) < 0 ? { start, end } : undefined;
}

/** Ids whose indexed value lies within the bounds (of one type), each id once. */
export function idsForRange(
  store: StoreReader,
  index: IndexDef,
  bounds: RangeBounds,
): Iterable<Buffer> {
  const range = rangeKeys(bounds);
  return range ? store.indexIds(index, range.start, range.end) : [];
}

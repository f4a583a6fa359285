/**
 * Finding documents by value: equality on a path, a range on a path, or equality on every
 * path of a composite index. Each find uses a ready index when one covers it and a
 * collection scan otherwise, and both answer with exactly the same documents: candidates
 * from an index are rechecked against the document with the same rules a scan applies.
 *
 * Rules (DESIGN §4): values of different types never match; a range never matches null;
 * equality with null matches null and a missing value; a `[*]` path matches when any
 * element does.
 */

import { DbError } from '../errors/index.js';
import {
  compareValues,
  isScalar,
  type JsonPath,
  parsePath,
  typeRank,
  valueAt,
  valuesAt,
} from '../util/index.js';
import type { CollectionDef, IndexDef } from './catalog.js';
import { encodeTuple, TAG_FALSE, TAG_NUMBER, TAG_STRING, tagOf } from './codec/index.js';
import type { Document } from './document-check.js';
import type { StoreReader } from './reader.js';
import { withId } from './records.js';

/** Bounds of a range find; at least one should be given. */
export interface RangeBounds {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
}

/** Documents found and the index that found them (undefined: a collection scan). */
export interface FindResult {
  documents: Document[];
  index: string | undefined;
}

/** Options shared by the finds. */
export interface FindOptions {
  /** false forces a collection scan (tests compare the two). */
  useIndex?: boolean;
  limit?: number;
}

/**
 * Appended to an encoded value, sorts after every key that starts with it: the byte after a
 * complete value encoding is another value's tag (0x01–0x05) or the end of the key.
 */
const PAST_VALUE = Buffer.from([0xff]);

function candidates(doc: unknown, path: JsonPath): unknown[] {
  if (path.multikey) return valuesAt(doc, path);
  const value = valueAt(doc, path);
  return [value === undefined ? null : value];
}

/** True when the value at `path` equals `value` under the rules above. */
export function matchesEqual(doc: unknown, path: JsonPath, value: unknown): boolean {
  const target = value === undefined ? null : value;
  return candidates(doc, path).some((c) => isScalar(c) && compareValues(c, target) === 0);
}

function family(value: unknown): number {
  const rank = typeRank(value);
  return rank === 1 || rank === 2 ? 1 : rank;
}

function inRange(value: unknown, bounds: RangeBounds): boolean {
  if (!isScalar(value) || value === null) return false;
  const checks: Array<[unknown, (c: number) => boolean]> = [
    [bounds.gt, (c) => c > 0],
    [bounds.gte, (c) => c >= 0],
    [bounds.lt, (c) => c < 0],
    [bounds.lte, (c) => c <= 0],
  ];
  for (const [bound, ok] of checks) {
    if (bound === undefined) continue;
    if (family(bound) !== family(value)) return false;
    if (!ok(compareValues(value, bound))) return false;
  }
  return true;
}

/** True when some value at `path` lies within the bounds. */
export function matchesRange(doc: unknown, path: JsonPath, bounds: RangeBounds): boolean {
  return candidates(doc, path).some((c) => inRange(c, bounds));
}

/**
 * The ready index on exactly these paths. A composite index does not serve its leading
 * paths alone: a document whose later path holds an array or object has no entry in it.
 */
function usable(def: CollectionDef, paths: string[], useIndex: boolean): IndexDef | undefined {
  if (!useIndex) return undefined;
  return def.indexes.find(
    (i) =>
      i.state === 'ready' &&
      i.paths.length === paths.length &&
      i.paths.every((p, k) => p === paths[k]),
  );
}

function collect(
  store: StoreReader,
  def: CollectionDef,
  index: IndexDef | undefined,
  range: { start: Buffer; end: Buffer } | undefined,
  accept: (body: Document) => boolean,
  limit: number,
): FindResult {
  const documents: Document[] = [];
  if (limit <= 0 || (index && !range)) return { documents, index: index?.name };
  if (index && range) {
    for (const id of store.indexIds(index, range.start, range.end)) {
      const body = store.getBody(def, id);
      if (body && accept(body)) documents.push(withId(id, body));
      if (documents.length >= limit) break;
    }
    return { documents, index: index.name };
  }
  for (const { id, body } of store.scan(def)) {
    if (accept(body)) documents.push(withId(id, body));
    if (documents.length >= limit) break;
  }
  return { documents, index: undefined };
}

/** Documents whose `pathText` equals `value`. */
export function findEqual(
  store: StoreReader,
  def: CollectionDef,
  pathText: string,
  value: unknown,
  options: FindOptions = {},
): FindResult {
  return findTuple(store, def, [pathText], [value], options);
}

/** Documents whose values at `pathTexts` equal `values`, position by position. */
export function findTuple(
  store: StoreReader,
  def: CollectionDef,
  pathTexts: string[],
  values: unknown[],
  options: FindOptions = {},
): FindResult {
  const paths = pathTexts.map((p) => parsePath(p, { allowEach: true }));
  const accept = (body: Document) => paths.every((p, k) => matchesEqual(body, p, values[k]));
  const index = usable(def, pathTexts, options.useIndex !== false);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const encoded = encodeTuple(values);
  if (values.some((v) => v !== undefined && v !== null && !isScalar(v)) || !encoded) {
    return { documents: [], index: index?.name };
  }
  const range = { start: encoded.bytes, end: Buffer.concat([encoded.bytes, PAST_VALUE]) };
  return collect(store, def, index, range, accept, limit);
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

/** Key range of a range find, or undefined when no value can match. */
export function rangeKeys(bounds: RangeBounds): { start: Buffer; end: Buffer } | undefined {
  const given = [bounds.gt, bounds.gte, bounds.lt, bounds.lte].filter((b) => b !== undefined);
  if (given.length === 0) return undefined;
  if (given.some((b) => !isScalar(b) || b === null)) return undefined;
  const families = new Set(given.map(family));
  if (families.size > 1) return undefined;
  const first = given[0];
  const tag = typeof first === 'boolean' ? TAG_FALSE : tagOf(first);
  if (tag !== TAG_FALSE && tag !== TAG_NUMBER && tag !== TAG_STRING) return undefined;
  const start = lowerKey(bounds, tag);
  const end = upperKey(bounds, tag);
  return start.compare(end) < 0 ? { start, end } : undefined;
}

/** Documents with a value at `pathText` inside the bounds. */
export function findRange(
  store: StoreReader,
  def: CollectionDef,
  pathText: string,
  bounds: RangeBounds,
  options: FindOptions = {},
): FindResult {
  const path = parsePath(pathText, { allowEach: true });
  if ([bounds.gt, bounds.gte, bounds.lt, bounds.lte].every((b) => b === undefined)) {
    throw new DbError('ERR_BAD_ARGUMENT', 'a range find needs at least one of gt, gte, lt, lte');
  }
  const accept = (body: Document) => matchesRange(body, path, bounds);
  const index = usable(def, [pathText], options.useIndex !== false);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const range = rangeKeys(bounds);
  if (!range) return { documents: [], index: index?.name };
  return collect(store, def, index, range, accept, limit);
}

/**
 * Ids listed under any of the given key tuples of an index, each id once. Truncated keys can
 * add candidates that do not match: callers always recheck the documents.
 */
export function* idsForKeys(
  store: StoreReader,
  index: IndexDef,
  tuples: unknown[][],
): Generator<Buffer> {
  const seen = tuples.length > 1 || index.multikey ? new Set<string>() : undefined;
  for (const tuple of tuples) {
    const encoded = encodeTuple(tuple);
    if (!encoded || tuple.some((v) => v === null || v === undefined)) continue;
    for (const id of store.indexIdsForKey(index, encoded.bytes)) {
      if (seen) {
        const text = id.toString('latin1');
        if (seen.has(text)) continue;
        seen.add(text);
      }
      yield id;
    }
  }
}

/**
 * The id listed under one tuple of a unique index, read with one get (a point lookup's
 * whole index work). The caller has checked that the index is unique and the tuple holds
 * only non-null scalars (what such an index lists).
 */
export function idForUniqueKey(
  store: StoreReader,
  index: IndexDef,
  tuple: unknown[],
): Buffer | undefined {
  const encoded = encodeTuple(tuple);
  return encoded ? store.indexIdForUniqueKey(index, encoded.bytes) : undefined;
}

/** Ids whose indexed value lies within the bounds (of one type), each id once. */
export function* idsForRange(
  store: StoreReader,
  index: IndexDef,
  bounds: RangeBounds,
): Generator<Buffer> {
  const range = rangeKeys(bounds);
  if (range) yield* store.indexIds(index, range.start, range.end);
}

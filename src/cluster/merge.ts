/**
 * The router's merges of the shards' parts of one SELECT (ADR 0014): a k-way merge by sort
 * key, DISTINCT again, partial aggregate states merged per group and finished, OFFSET/LIMIT
 * applied once, and the warnings every shard gave. Comparison, keys and aggregates come from
 * sql/semantics: nothing about them is written again here (STYLE 14). Pure.
 */

import {
  type Aggregate,
  aggregateOf,
  compareSortKeys,
  distinctKey,
  finishGroup,
  mergePartials,
  offsetLimit,
  type PartialRow,
  type SortKey,
} from '../sql/semantics/index.js';
import type { Document } from '../types/index.js';
import type { MergeSpec } from './route-plan.js';

/**
 * The warnings of a statement several shards ran, as `{ warnings }` or nothing: those every
 * shard gave, in the first one's order. A node warns of a double-quoted path that no document
 * of the collection has; across shards no document has it only when each shard says so.
 */
export function sharedWarnings(parts: ReadonlyArray<{ warnings?: string[] }>): {
  warnings?: string[];
} {
  const [first, ...rest] = parts;
  const warnings = (first?.warnings ?? []).filter((w) =>
    rest.every((part) => part.warnings?.includes(w) === true),
  );
  return warnings.length > 0 ? { warnings } : {};
}

/** One shard's answer to its part: rows, and their sort keys when the router asked. */
export interface ShardPart {
  documents: Document[];
  sortKeys?: unknown[][];
}

/**
 * Merges k sorted runs by their keys: repeatedly takes the least head. k is the shard count
 * (small), so a scan of the heads costs less than a heap's bookkeeping.
 */
export function* kWayMerge<T>(
  runs: ReadonlyArray<ReadonlyArray<{ row: T; key: SortKey }>>,
  descending: readonly boolean[],
): Generator<T> {
  const at = runs.map(() => 0);
  for (;;) {
    let best = -1;
    for (let r = 0; r < runs.length; r++) {
      const head = (runs[r] as ReadonlyArray<{ row: T; key: SortKey }>)[at[r] as number];
      if (head === undefined) continue;
      if (best < 0) {
        best = r;
        continue;
      }
      const current = (runs[best] as ReadonlyArray<{ key: SortKey }>)[at[best] as number];
      if (compareSortKeys(head.key, (current as { key: SortKey }).key, descending) < 0) best = r;
    }
    if (best < 0) return;
    const run = runs[best] as ReadonlyArray<{ row: T; key: SortKey }>;
    yield (run[at[best] as number] as { row: T }).row;
    at[best] = (at[best] as number) + 1;
  }
}

/** Rows without repeats of a projected row (by its DISTINCT key), first occurrence kept. */
export function* distinctOf(rows: Iterable<Document>): Generator<Document> {
  const seen = new Set<string>();
  for (const row of rows) {
    const key = distinctKey(row);
    if (seen.has(key)) continue;
    seen.add(key);
    yield row;
  }
}

/** The rows of a scattered row SELECT (no aggregate), merged as one node would answer them. */
export function mergeRows(parts: readonly ShardPart[], spec: MergeSpec & { kind: 'rows' }) {
  let rows: Iterable<Document>;
  if (spec.orderBy) {
    const runs = parts.map((part) =>
      part.documents.map((row, i) => ({ row, key: (part.sortKeys ?? [])[i] ?? [] })),
    );
    rows = kWayMerge(runs, spec.orderBy);
  } else {
    rows = parts.flatMap((part) => part.documents);
  }
  if (spec.distinct) rows = distinctOf(rows);
  return [...offsetLimit(rows, spec.offset, spec.limit)];
}

/**
 * The rows of a scattered aggregate: the shards' partial groups merged per group key and
 * finished, keyed as the node keys them (GROUP BY values first, then the aggregates), then
 * ORDER BY, DISTINCT and OFFSET/LIMIT as the node applies them after aggregating.
 */
export function mergeAggregate(
  parts: readonly ShardPart[],
  spec: MergeSpec & { kind: 'aggregate' },
): Document[] {
  const fns: Aggregate[] = spec.aggregates.map((a) => aggregateOf(a.fn, a.star));
  const groups = mergePartials(
    parts.flatMap((part) => part.documents as unknown as PartialRow[]),
    fns,
  );
  const aggregateNames = spec.aggregates.map((a) => a.name);
  let rows = groups.map((g) => finishGroup(g, spec.groupNames, aggregateNames, fns) as Document);
  if (spec.orderBy.length > 0) {
    const descending = spec.orderBy.map((o) => o.descending);
    const keyOf = (row: Document) => spec.orderBy.map((o) => row[o.name]);
    rows = rows
      .map((row) => ({ row, key: keyOf(row) }))
      .sort((a, b) => compareSortKeys(a.key, b.key, descending))
      .map((e) => e.row);
  }
  const distinct = spec.distinct ? distinctOf(rows) : rows;
  return [...offsetLimit(distinct, spec.offset, spec.limit)];
}

/** One shard's stream after its meta line: rows, keyed when the router asked for sort keys. */
export type RowStream = AsyncIterator<unknown>;

/**
 * Merges sorted streams pull by pull: holds the current `{ doc, sortKey }` of each stream and
 * yields the least, so memory holds one row per shard (ADR 0014).
 */
export async function* mergeSortedStreams(
  streams: readonly RowStream[],
  descending: readonly boolean[],
): AsyncGenerator<Document> {
  const heads = await Promise.all(streams.map((s) => s.next()));
  for (;;) {
    let best = -1;
    for (let k = 0; k < heads.length; k++) {
      const head = heads[k] as IteratorResult<unknown>;
      if (head.done) continue;
      if (best < 0) {
        best = k;
        continue;
      }
      const a = (head.value as { sortKey: SortKey }).sortKey;
      const b = ((heads[best] as IteratorResult<unknown>).value as { sortKey: SortKey }).sortKey;
      if (compareSortKeys(a, b, descending) < 0) best = k;
    }
    if (best < 0) return;
    yield ((heads[best] as IteratorResult<unknown>).value as { doc: Document }).doc;
    heads[best] = await (streams[best] as RowStream).next();
  }
}

/** Streams one after another (a scatter without ORDER BY). */
export async function* concatStreams(streams: readonly RowStream[]): AsyncGenerator<Document> {
  for (const stream of streams) {
    for (;;) {
      const next = await stream.next();
      if (next.done) break;
      yield next.value as Document;
    }
  }
}

/** OFFSET then LIMIT over an async stream, once. */
export async function* windowAsync<T>(
  rows: AsyncIterable<T>,
  offset: number,
  limit: number,
): AsyncGenerator<T> {
  if (limit === 0) return;
  let skipped = 0;
  let taken = 0;
  for await (const row of rows) {
    if (skipped < offset) {
      skipped++;
      continue;
    }
    yield row;
    if (++taken >= limit) return;
  }
}

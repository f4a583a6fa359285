/**
 * What every operator runs with: the reader it reads through (the committed state, or a
 * write job's own view), the statement's parameters and path resolver, and the row type that
 * flows between operators.
 */

import { assert, collectionNotFound } from '../../errors/index.js';
import {
  type CollectionDef,
  type Document,
  findIndex,
  type IndexDef,
  type StoreReader,
} from '../../storage/index.js';
import { valueAt, valuesAt } from '../../util/index.js';
import type { Condition, PathRef } from '../ast/index.js';
import type { PathResolver } from '../planner/index.js';
import { evaluate, type RowValues, type SortKey } from '../semantics/index.js';
import type { StatementBudget } from './budget.js';

/**
 * One row: a document per source (FROM, then each JOIN), or the one output document after
 * projection or aggregation. Once sorted, a row carries its sort key (ORDER BY values, then
 * ids) through projection, so sorted parts can be merged later.
 */
export interface Row extends ReadonlyArray<Document> {
  sortKey?: SortKey;
}

/** The state one execution of a plan runs with. */
export interface ExecContext {
  reader: StoreReader;
  params: readonly unknown[];
  resolver: PathResolver;
  /**
   * Scans may yield a kept row as its sparse selection instead of the whole document (a
   * stream collects ids and sort keys first and reads documents when they are pulled).
   */
  sparse: boolean;
  /** What the statement may spend; operators tick it per row read or made. */
  budget: StatementBudget;
}

/**
 * The index a plan names, ready. Plans are made again whenever the catalog changes, so it is
 * there: anything else is a bug.
 */
export function requireReadyIndex(def: CollectionDef, name: string): IndexDef {
  // Plans hold the name as the definition spells it; the folded search is the fallback.
  const index = def.indexes.find((i) => i.name === name) ?? findIndex(def, name);
  assert(index?.state === 'ready', `plan names index ${name}, which is not ready`);
  return index;
}

/** The definition of a plan's collection as the reader sees it now. */
export function requireCollection(reader: StoreReader, name: string): CollectionDef {
  const def = reader.getCollection(name);
  if (!def) throw collectionNotFound(name, reader.collectionNames());
  return def;
}

/** Reads a row's values for the semantics module; `row` is set before each evaluation. */
class RowCursor implements RowValues {
  row: Row = [];

  constructor(private readonly resolver: PathResolver) {}

  value(path: PathRef): unknown {
    const resolved = this.resolver.resolve(path);
    return valueAt(this.row[resolved.source], resolved.path);
  }

  candidates(path: PathRef): unknown[] {
    const resolved = this.resolver.resolve(path);
    const doc = this.row[resolved.source];
    if (resolved.path.multikey) return valuesAt(doc, resolved.path);
    const value = valueAt(doc, resolved.path);
    return [value === undefined ? null : value];
  }
}

/** A test of `condition` on rows: true only when it is true (WHERE drops unknown). */
export function predicate(condition: Condition, ctx: ExecContext): (row: Row) => boolean {
  const cursor = new RowCursor(ctx.resolver);
  const { params } = ctx;
  return (row) => {
    cursor.row = row;
    return evaluate(condition, cursor, params) === true;
  };
}

/**
 * Cursors over one document, one per resolver (a cached plan keeps its resolver). Reusing one
 * is safe: an evaluation runs to its end before another starts, and sets the document first.
 */
const documentCursors = new WeakMap<PathResolver, { cursor: RowCursor; one: Document[] }>();

/** The same test on the one document of a single-collection row, with no row built for it. */
export function documentPredicate(
  condition: Condition,
  ctx: ExecContext,
): (doc: Document) => boolean {
  let reused = documentCursors.get(ctx.resolver);
  if (!reused) {
    reused = { cursor: new RowCursor(ctx.resolver), one: [] };
    reused.cursor.row = reused.one;
    documentCursors.set(ctx.resolver, reused);
  }
  const { cursor, one } = reused;
  const { params } = ctx;
  return (doc) => {
    one[0] = doc;
    cursor.row = one;
    return evaluate(condition, cursor, params) === true;
  };
}

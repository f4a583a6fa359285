/**
 * The finds of the embedded API (`findBy`, `findByTuple`, `findRange`) and of REST by-key
 * lookups, as SELECT statements with `match` and `within` conditions, planned and run by the
 * same planner and executor as SQL: the index choice, the recheck of every document and the
 * plan string come from there. Finds never read through anything but a StoreReader.
 */

import { dbError } from '../errors/index.js';
import {
  type CollectionView,
  type Condition,
  type JsonValue,
  type PathRef,
  planSelect,
  type QueryLimits,
  type RangeOp,
  runSelect,
  type SelectPlan,
  type SelectStatement,
  type Value,
  viewOf,
} from '../sql/index.js';
import type { CollectionDef, Document, RangeBounds, StoreReader } from '../storage/index.js';
import { parsePath } from '../util/index.js';

/** Documents found and the index that found them (undefined: a collection scan). */
export interface FindResult {
  documents: Document[];
  index: string | undefined;
}

/** Options shared by the finds. */
export interface FindOptions {
  /** false forces a collection scan (tests compare the two). */
  useIndex?: boolean;
  /** At most this many documents (a non-negative integer). */
  limit?: number;
}

/** Where API-built paths stand: they have no SQL text, so no real position. */
const NO_POSITION = { line: 1, column: 1 };

/** A path reference; throws ERR_PATH_INVALID for a bad path (`[*]` is allowed). */
function pathRef(text: string): PathRef {
  parsePath(text, { allowEach: true });
  return { kind: 'path', text, at: NO_POSITION };
}

function literal(value: unknown): Value {
  return { kind: 'literal', value: (value === undefined ? null : value) as JsonValue };
}

/** The find equality of one path (see the AST's `match`). */
export function matchCondition(path: string, value: Value): Condition {
  return { kind: 'match', path: pathRef(path), value };
}

const RANGE_OPS: Array<[keyof RangeBounds, RangeOp]> = [
  ['gt', '>'],
  ['gte', '>='],
  ['lt', '<'],
  ['lte', '<='],
];

function checkLimit(limit: number | undefined): number | undefined {
  if (limit === undefined || limit === Number.POSITIVE_INFINITY) return undefined;
  if (!Number.isInteger(limit) || limit < 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'findLimit', { limit: JSON.stringify(limit) });
  }
  return limit;
}

function findStatement(
  collection: string,
  where: Condition,
  options: { limit?: Value | undefined; byId?: boolean },
): SelectStatement {
  return {
    kind: 'select',
    distinct: false,
    items: '*',
    from: collection,
    joins: [],
    where,
    groupBy: [],
    orderBy: options.byId ? [{ path: pathRef('_id'), descending: false }] : [],
    limit: options.limit,
    offset: undefined,
  };
}

/**
 * The view an embedded find is planned over: the ready index whose paths are exactly the
 * find's, in order (none with `useIndex: false`). This is the embedded API's contract, which
 * the index-vs-scan property pins: `findBy('tags[0]', …)` scans even where an index on
 * `tags[*]` could serve it (REST by-key lookups and SQL use every index).
 */
function exactView(def: CollectionDef, paths: string[], useIndex: boolean): CollectionView {
  const view = viewOf(def);
  const exact = (paths2: string[]) =>
    paths2.length === paths.length && paths2.every((p, k) => p === paths[k]);
  return { name: view.name, indexes: useIndex ? view.indexes.filter((i) => exact(i.paths)) : [] };
}

/** Find plans kept per collection definition; past this many the collection's start over. */
const FIND_PLANS_PER_COLLECTION_MAX = 64;

/**
 * Find plans by collection definition and find shape. A plan depends only on the
 * definition (its name and indexes), and a catalog change gives a collection a new
 * definition object, so a stale plan is never found; values are `?` parameters.
 */
const findPlans = new WeakMap<CollectionDef, Map<string, SelectPlan>>();

function findPlan(def: CollectionDef, shape: string, make: () => SelectPlan): SelectPlan {
  let plans = findPlans.get(def);
  if (!plans) {
    plans = new Map();
    findPlans.set(def, plans);
  }
  let plan = plans.get(shape);
  if (!plan) {
    plan = make();
    if (plans.size >= FIND_PLANS_PER_COLLECTION_MAX) plans.clear();
    plans.set(shape, plan);
  }
  return plan;
}

function param(index: number): Value {
  return { kind: 'param', index, at: NO_POSITION };
}

/**
 * Runs an embedded find: `conditions(…)` (one per path, values as `?`) on `paths`, planned
 * over the index on exactly those paths, with `values` as parameters.
 */
function runFind(
  reader: StoreReader,
  def: CollectionDef,
  shape: string,
  paths: string[],
  where: (param: (index: number) => Value) => Condition,
  values: unknown[],
  options: FindOptions,
): FindResult {
  const limit = checkLimit(options.limit);
  const useIndex = options.useIndex !== false;
  const key = `${shape}\n${useIndex}\n${limit !== undefined}\n${paths.join('\n')}`;
  const plan = findPlan(def, key, () =>
    planSelect(
      findStatement(def.name, where(param), {
        limit: limit === undefined ? undefined : param(values.length),
      }),
      [exactView(def, paths, useIndex)],
    ),
  );
  const params = limit === undefined ? values : [...values, limit];
  const { documents, access } = runSelect(reader, plan, params);
  return { documents, index: access.kind === 'scan' ? undefined : access.index.name };
}

/** Documents whose values at `paths` match `values`, position by position (`match`). */
export function findByValues(
  reader: StoreReader,
  def: CollectionDef,
  paths: string[],
  values: unknown[],
  options: FindOptions = {},
): FindResult {
  const where = (p: (index: number) => Value): Condition => {
    const matches = paths.map((path, k) => matchCondition(path, p(k)));
    return matches.length === 1 ? (matches[0] as Condition) : { kind: 'and', conditions: matches };
  };
  return runFind(reader, def, 'match', paths, where, values, options);
}

/** Documents with a value at `path` within the bounds (`within`); needs at least one bound. */
export function findWithin(
  reader: StoreReader,
  def: CollectionDef,
  path: string,
  bounds: RangeBounds,
  options: FindOptions = {},
): FindResult {
  const given = RANGE_OPS.filter(([key]) => bounds[key] !== undefined);
  if (given.length === 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'rangeBounds');
  }
  const where = (p: (index: number) => Value): Condition => ({
    kind: 'within',
    path: pathRef(path),
    bounds: given.map(([, op], k) => ({ op, value: p(k) })),
  });
  const shape = `within ${given.map(([, op]) => op).join(' ')}`;
  const values = given.map(([key]) => bounds[key]);
  return runFind(reader, def, shape, [path], where, values, options);
}

/**
 * Documents whose value at `path` matches any of `values` (a REST by-key lookup: the text and
 * the scalar it spells), each once, in `_id` order, planned as SQL is (every ready index), with
 * the plan string of what ran.
 */
export function runFindAny(
  reader: StoreReader,
  def: CollectionDef,
  path: string,
  values: unknown[],
  limits?: QueryLimits,
): { documents: Document[]; plan: string } {
  const matches = values.map((v) => matchCondition(path, literal(v)));
  const where: Condition =
    matches.length === 1 ? (matches[0] as Condition) : { kind: 'or', conditions: matches };
  const statement = findStatement(def.name, where, { byId: true });
  const plan = planSelect(statement, [viewOf(def)]);
  const { documents, plan: ran } = runSelect(reader, plan, [], limits ? { limits } : {});
  return { documents, plan: ran };
}

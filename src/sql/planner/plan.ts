/**
 * Plan nodes: the tree the planner builds and the executor runs, one executor per kind. A
 * node is plain data (a discriminated union on `kind`, every switch exhaustive) with at most
 * one input, so a plan reads from the root down to its access path. The plan string of the
 * spec's table is derived from the tree (`planString`), so it always says what runs.
 */

import type { JsonPath } from '../../util/index.js';
import {
  type AggregateFn,
  assertNever,
  type Condition,
  type RangeOp,
  type Value,
} from '../ast/index.js';
import type { ResolvedPath } from './resolve.js';

/** What the planner needs to know about an index. */
export interface IndexView {
  name: string;
  paths: string[];
  unique: boolean;
  multikey: boolean;
  state: 'ready' | 'stale';
}

/** What the planner needs to know about a collection (canonical name). */
export interface CollectionView {
  name: string;
  indexes: IndexView[];
}

/**
 * When a row's FROM document gets its `_id`: before WHERE runs (WHERE reads `_id`), once the
 * row has passed (the usual case: rejected rows never pay for the copy), or never (an
 * aggregate over one collection that does not read `_id`).
 */
export type IdAttach = 'beforeFilter' | 'afterFilter' | 'none';

/** What every access path shares: the collection it reads and how its rows are built. */
interface AccessBase {
  collection: string;
  id: IdAttach;
  /**
   * The paths a scan decodes of each document (a sparse copy that answers them as the whole
   * document would); undefined when rows need whole documents (a join, or `_id` read).
   */
  selection: JsonPath[] | undefined;
  /** Rows WHERE keeps are decoded whole (`SELECT *`) rather than left as the sparse copy. */
  whole: boolean;
}

/** Every document of the collection, in `_id` order. */
export interface ScanNode extends AccessBase {
  kind: 'scan';
}

/** One value of an index key. */
export interface KeyPart {
  value: Value;
  /**
   * A null value looks up the index's null entries (a find's `match`: null and missing);
   * otherwise a null key finds nothing (SQL `= null` is never true).
   */
  nullMatches: boolean;
}

/**
 * Equality through an index: one key (`INDEX_SCAN`), one key of every path of a composite
 * index (`INDEX_SCAN_COMPOSITE`) or several keys unioned without duplicates
 * (`INDEX_SCAN_MULTI`). One non-null key on a ready unique index is the point lookup: one
 * index get and one document get.
 */
export interface IndexLookupNode extends AccessBase {
  kind: 'indexLookup';
  label: 'INDEX_SCAN' | 'INDEX_SCAN_COMPOSITE' | 'INDEX_SCAN_MULTI';
  index: IndexView;
  keys: KeyPart[][];
}

/** A key range of a single-path index: at most one lower and one upper bound. */
export interface IndexRangeNode extends AccessBase {
  kind: 'indexRange';
  index: IndexView;
  bounds: Array<{ op: RangeOp; value: Value }>;
}

export type AccessNode = ScanNode | IndexLookupNode | IndexRangeNode;

/**
 * An inner hash join: the table is built from every document of `collection` by its value at
 * `build`; each input row probes it with its value at `probe` (an earlier source).
 */
export interface HashJoinNode {
  kind: 'hashJoin';
  input: PlanNode;
  collection: string;
  /** The joined collection's index among the sources (1 for the first JOIN). */
  source: number;
  build: ResolvedPath;
  probe: ResolvedPath;
}

/** Rows for which the condition is true (three-valued logic). */
export interface FilterNode {
  kind: 'filter';
  input: PlanNode;
  condition: Condition;
}

/**
 * `complete` groups rows and answers finished values; `partial` answers each group's
 * grouping values and aggregate states (`{ group, states }`, plain JSON) for a router to
 * merge (semantics/partials.ts).
 */
export type AggregatePhase = 'complete' | 'partial';

/** A GROUP BY column: its output key (the alias or the path text) and its path. */
export interface GroupColumn {
  name: string;
  path: ResolvedPath;
}

/** An aggregate of the select list: its output key, function and argument. */
export interface AggregateColumn {
  name: string;
  fn: AggregateFn;
  arg: ResolvedPath | '*';
}

/** GROUP BY and aggregates: one output row per group (one row when nothing is grouped). */
export interface AggregateNode {
  kind: 'aggregate';
  input: PlanNode;
  phase: AggregatePhase;
  groupBy: GroupColumn[];
  aggregates: AggregateColumn[];
}

/** One ORDER BY key: a path of the row, or an output column of an aggregate. */
export type SortColumn =
  | { kind: 'path'; path: ResolvedPath; descending: boolean }
  | { kind: 'column'; name: string; descending: boolean };

/**
 * Rows in ORDER BY order. Each row's sort key is computed once and travels with the row
 * through projection; `ids` appends the `_id` of each document so ties break by `_id`.
 */
export interface SortNode {
  kind: 'sort';
  input: PlanNode;
  columns: SortColumn[];
  ids: boolean;
}

/** A column of a projection: its output key and path. */
export interface ProjectColumn {
  name: string;
  path: ResolvedPath;
}

/**
 * The result document of each row: the whole row for `*` (one document, or one per source
 * under its collection name), else `_id` (when `keepId`) and the listed paths, missing as null.
 */
export interface ProjectNode {
  kind: 'project';
  input: PlanNode;
  columns: ProjectColumn[] | '*';
  keepId: boolean;
  /** Canonical names of the sources, FROM first: the keys of a joined `*` row. */
  sources: string[];
}

/** Result rows without repeats (their JSON text). */
export interface DistinctNode {
  kind: 'distinct';
  input: PlanNode;
}

/**
 * OFFSET and LIMIT. `early` stops pulling the input after OFFSET + LIMIT rows (spec rule 5);
 * without it (DISTINCT, JOIN, ORDER BY, aggregates) the whole input is read first.
 */
export interface LimitNode {
  kind: 'limit';
  input: PlanNode;
  limit: Value | undefined;
  offset: Value | undefined;
  early: boolean;
}

export type PlanNode =
  | AccessNode
  | HashJoinNode
  | FilterNode
  | AggregateNode
  | SortNode
  | ProjectNode
  | DistinctNode
  | LimitNode;

/** True for the leaves of a plan: the access paths. */
export function isAccess(node: PlanNode): node is AccessNode {
  return node.kind === 'scan' || node.kind === 'indexLookup' || node.kind === 'indexRange';
}

/** The nodes of a plan from its root down to its access path. */
export function planNodes(root: PlanNode): PlanNode[] {
  const nodes: PlanNode[] = [];
  let node: PlanNode | undefined = root;
  while (node) {
    nodes.push(node);
    node = isAccess(node) ? undefined : node.input;
  }
  return nodes;
}

/** The nodes of a plain SELECT's plan: [limit] → project → [sort] → rows. */
export interface PlainShape {
  limit?: LimitNode;
  project: ProjectNode;
  sort?: SortNode;
  rows: PlanNode;
}

/** A plan's plain shape, or undefined when its root is no [limit] → project. */
export function plainShape(root: PlanNode): PlainShape | undefined {
  let node = root;
  const limit = node.kind === 'limit' ? node : undefined;
  if (limit) node = limit.input;
  if (node.kind !== 'project') return undefined;
  const project = node;
  node = node.input;
  const sort = node.kind === 'sort' ? node : undefined;
  if (sort) node = sort.input;
  return { ...(limit && { limit }), project, ...(sort && { sort }), rows: node };
}

/** The access path of a plan (its leaf). */
export function accessOf(root: PlanNode): AccessNode {
  let node = root;
  while (!isAccess(node)) node = node.input;
  return node;
}

/** The plan string of an access path (spec §4 table). */
export function accessLabel(access: AccessNode): string {
  switch (access.kind) {
    case 'scan':
      return 'COLLECTION_SCAN';
    case 'indexLookup':
      return access.label === 'INDEX_SCAN_MULTI'
        ? `INDEX_SCAN_MULTI(${access.index.name}, ${access.keys.length} keys)`
        : `${access.label}(${access.index.name})`;
    case 'indexRange':
      return `INDEX_RANGE_SCAN(${access.index.name})`;
    default:
      return assertNever(access);
  }
}

/**
 * The plan string of a plan: its access path, then ` + HASH_JOIN(c)` per join in order,
 * ` + AGGREGATE` and ` + DISTINCT` when the plan holds those nodes.
 */
export function planString(root: PlanNode): string {
  const nodes = planNodes(root).reverse();
  let plan = accessLabel(nodes[0] as AccessNode);
  let aggregate = false;
  let distinct = false;
  for (const node of nodes) {
    switch (node.kind) {
      case 'hashJoin':
        plan += ` + HASH_JOIN(${node.collection})`;
        break;
      case 'aggregate':
        aggregate = true;
        break;
      case 'distinct':
        distinct = true;
        break;
      case 'scan':
      case 'indexLookup':
      case 'indexRange':
      case 'filter':
      case 'sort':
      case 'project':
      case 'limit':
        break;
      default:
        assertNever(node);
    }
  }
  if (aggregate) plan += ' + AGGREGATE';
  if (distinct) plan += ' + DISTINCT';
  return plan;
}

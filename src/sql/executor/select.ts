/**
 * Runs a SELECT plan: binds it to the parameters (so its plan string says what runs), pulls
 * the rows of its root and answers the result documents, the plan string and, on request,
 * each document's sort key (a router merges sorted parts with them). The point lookup takes
 * its operators' one-row functions instead of the iterator chain, and a plain index read
 * their row functions in one loop (`index-rows.ts`).
 */

import {
  type Document,
  FieldSelection,
  type JsonKeep,
  type StoreReader,
  withId,
} from '../../storage/index.js';
import type { JsonText } from '../../types/index.js';
import { jsonText } from '../../util/index.js';
import type { Condition } from '../ast/index.js';
import {
  type AccessNode,
  bindPlan,
  conditionPaths,
  type PlanNode,
  type ProjectNode,
  type SelectPlan,
} from '../planner/index.js';
import type { SortKey } from '../semantics/index.js';
import { accessRow, documentTest } from './access.js';
import { type QueryLimits, StatementBudget } from './budget.js';
import { type ExecContext, requireCollection } from './context.js';
import { execute } from './execute.js';
import { pointLookup, pointLookupId } from './index-lookup.js';
import { indexReadDocuments } from './index-rows.js';
import { limitOf } from './limit.js';
import { jsonProjectionOf, projectDocument } from './project.js';

/** Options of runSelect. */
export interface SelectOptions {
  /** Answer each document's sort key too (ORDER BY values, then ids). */
  sortKeys?: boolean;
  /**
   * `json`: rows may come as JsonText, written from the stored bytes, where that spares
   * decoding them (a point lookup with no filter left); other rows stay objects.
   */
  rows?: 'objects' | 'json';
  /** What the statement may spend (budget.ts); the heap is always watched. */
  limits?: QueryLimits;
}

/** What a SELECT answers. */
export interface SelectResult<Row = Document> {
  documents: Row[];
  /** The plan string of the plan as it ran (bound to the parameters). */
  plan: string;
  /** The access path that ran. */
  access: AccessNode;
  /** With `sortKeys`: the sort key of each document, when the plan sorts. */
  sortKeys?: SortKey[];
}

/**
 * The documents of a point lookup (limit? → project → filter? → unique index lookup with one
 * non-null scalar key), read with one index get and one document get; undefined when the
 * plan is not one with these parameters.
 */
function pointDocuments(
  root: PlanNode,
  ctx: ExecContext,
  text: boolean,
): (Document | JsonText)[] | undefined {
  let node = root;
  let limit = Number.POSITIVE_INFINITY;
  let offset = 0;
  if (node.kind === 'limit') {
    limit = limitOf(node.limit, ctx.params, 'LIMIT');
    offset = limitOf(node.offset, ctx.params, 'OFFSET');
    node = node.input;
  }
  if (node.kind !== 'project') return undefined;
  const project: ProjectNode = node;
  node = node.input;
  const condition = node.kind === 'filter' ? node.condition : undefined;
  if (node.kind === 'filter') node = node.input;
  if (node.kind !== 'indexLookup') return undefined;
  const json = text ? jsonProjectionOf(project) : undefined;
  if (json) {
    const id = pointLookupId(node, ctx);
    if (id === undefined) return undefined;
    if (id === null || limit === 0 || offset > 0) return [];
    const def = requireCollection(ctx.reader, node.collection);
    const keep = condition && jsonKeep(condition, node, ctx);
    const row = ctx.reader.getJson(def, id, json === 'whole' ? undefined : json, keep);
    return row === undefined ? [] : [jsonText(row)];
  }
  const found = pointLookup(node, ctx);
  if (found === undefined) return undefined;
  if (found === null || limit === 0 || offset > 0) return [];
  // The row as the access operator builds it (id policy, fused filter), then projected.
  const row = accessRow(node, found, documentTest(node, condition, ctx));
  return row ? [projectDocument(project, row)] : [];
}

/** The selection of the paths a WHERE reads, per condition (cached plans keep theirs). */
const whereSelections = new WeakMap<Condition, FieldSelection>();

/**
 * The test of a point lookup's remaining WHERE on the sparse copy of what it reads, as the
 * access operator runs it (on the document with `_id` when WHERE reads `_id`).
 */
function jsonKeep(condition: Condition, node: AccessNode, ctx: ExecContext): JsonKeep | undefined {
  // Undefined where the index read proves the condition: nothing to test.
  const passes = documentTest(node, condition, ctx);
  if (!passes) return undefined;
  let selection = whereSelections.get(condition);
  if (!selection) {
    selection = new FieldSelection(
      conditionPaths(condition).map((p) => ctx.resolver.resolve(p).path),
    );
    whereSelections.set(condition, selection);
  }
  const withIdFirst = node.id === 'beforeFilter';
  return { selection, test: (part, id) => passes(withIdFirst ? withId(id, part) : part) };
}

/** Runs a planned SELECT with its parameters. */
export function runSelect(
  reader: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  options?: SelectOptions & { rows?: 'objects' },
): SelectResult;
export function runSelect(
  reader: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  options: SelectOptions,
): SelectResult<Document | JsonText>;
export function runSelect(
  reader: StoreReader,
  plan: SelectPlan,
  params: readonly unknown[],
  options: SelectOptions = {},
): SelectResult<Document | JsonText> {
  const bound = bindPlan(plan, params);
  const ctx: ExecContext = {
    reader,
    params,
    resolver: plan.resolver,
    sparse: false,
    budget: new StatementBudget(options.limits),
  };
  const { access } = bound;
  const point = pointDocuments(bound.root, ctx, options.rows === 'json');
  if (point) return { documents: point, plan: bound.plan, access };
  const indexed = indexReadDocuments(bound.root, ctx);
  if (indexed) return { documents: indexed, plan: bound.plan, access };
  const rows = [...execute(bound.root, ctx)];
  const result: SelectResult = {
    documents: rows.map((row) => row[0] as Document),
    plan: bound.plan,
    access,
  };
  if (options.sortKeys && rows.some((row) => row.sortKey)) {
    result.sortKeys = rows.map((row) => row.sortKey as SortKey);
  }
  return result;
}

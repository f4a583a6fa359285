/**
 * Plans a SELECT: checks the select list, resolves every path, chooses the access path and
 * builds the plan tree (access → hash joins → filter → aggregate or sort and projection →
 * DISTINCT → LIMIT/OFFSET). Values stay literals or `?` references, so a plan is cached by SQL
 * text and bound to each execution's parameters (`bind.ts`). Pure; never imports storage.
 */

import { assert, dbError } from '../../errors/index.js';
import {
  assertNever,
  type Condition,
  type PathRef,
  type SelectItem,
  type SelectStatement,
} from '../ast/index.js';
import { type AccessChoice, chooseAccess } from './access.js';
import {
  type AccessNode,
  type AggregateColumn,
  type CollectionView,
  type IdAttach,
  type PlanNode,
  planString,
  type SortColumn,
} from './plan.js';
import { PathResolver, readsId } from './resolve.js';

/** A planned SELECT, ready to be bound to parameters and run. */
export interface SelectPlan {
  statement: SelectStatement;
  /** Canonical names of the sources: FROM first, then each JOIN. */
  sources: string[];
  resolver: PathResolver;
  root: PlanNode;
  /** The plan string of `root` (bound plans may differ: see `bind.ts`). */
  plan: string;
}

/** Every path a condition mentions, in order. */
export function conditionPaths(condition: Condition | undefined): PathRef[] {
  if (!condition) return [];
  switch (condition.kind) {
    case 'compare':
      return [condition.left, condition.right].filter((o): o is PathRef => o.kind === 'path');
    case 'like':
    case 'isNull':
    case 'match':
    case 'within':
      return [condition.path];
    case 'and':
    case 'or':
      return condition.conditions.flatMap(conditionPaths);
    case 'not':
      return conditionPaths(condition.condition);
    default:
      return assertNever(condition);
  }
}

/** True when the SELECT aggregates (aggregate items or GROUP BY). */
export function isAggregate(statement: SelectStatement): boolean {
  return (
    statement.groupBy.length > 0 ||
    (statement.items !== '*' && statement.items.some((i) => i.kind === 'aggregate'))
  );
}

/** Checks the select list against GROUP BY: plain columns must be grouping columns. */
export function checkSelectList(statement: SelectStatement): void {
  if (!isAggregate(statement) || statement.items === '*') {
    if (statement.items === '*' && statement.groupBy.length > 0) {
      throw dbError('ERR_SQL_INVALID', 'starWithGroupBy');
    }
    return;
  }
  const grouped = new Set(statement.groupBy.map((g) => g.text));
  for (const item of statement.items as SelectItem[]) {
    if (item.kind === 'column' && !grouped.has(item.path.text)) {
      throw dbError(
        'ERR_SQL_INVALID',
        'notGrouped',
        { path: item.path.text },
        { line: item.path.at.line, column: item.path.at.column },
      );
    }
  }
}

/** True when LIMIT/OFFSET can stop the scan early (rule 5 and DESIGN §4). */
export function limitPushesDown(statement: SelectStatement): boolean {
  return (
    statement.orderBy.length === 0 &&
    !statement.distinct &&
    statement.joins.length === 0 &&
    !isAggregate(statement)
  );
}

/**
 * ORDER BY may name a select-list alias. In a plain SELECT it is replaced by the aliased path;
 * in an aggregate SELECT output rows are sorted by their keys, which are the aliases already.
 */
function withAliasesResolved(statement: SelectStatement): SelectStatement {
  if (statement.items === '*' || isAggregate(statement) || statement.orderBy.length === 0) {
    return statement;
  }
  const aliased = new Map<string, SelectItem & { kind: 'column' }>();
  for (const item of statement.items) {
    if (item.kind === 'column' && item.name !== item.path.text) aliased.set(item.name, item);
  }
  if (aliased.size === 0) return statement;
  const orderBy = statement.orderBy.map((o) => {
    const item = aliased.get(o.path.text);
    return item ? { ...o, path: item.path } : o;
  });
  return { ...statement, orderBy };
}

/** The plan node of an access choice, with how its rows are built. */
export function accessNode(
  choice: AccessChoice,
  base: Omit<AccessNode, 'kind' | 'label' | 'index' | 'keys' | 'bounds'>,
): AccessNode {
  switch (choice.kind) {
    case 'scan':
      return { kind: 'scan', ...base };
    case 'indexLookup':
      return { ...choice, ...base };
    case 'indexRange':
      return { ...choice, ...base };
    default:
      return assertNever(choice);
  }
}

function joinNodes(
  statement: SelectStatement,
  resolver: PathResolver,
  input: PlanNode,
  views: CollectionView[],
): PlanNode {
  let node = input;
  statement.joins.forEach((join, j) => {
    const source = j + 1;
    const a = resolver.resolve(join.left);
    const b = resolver.resolve(join.right);
    const [mine, theirs] = a.source === source ? [a, b] : [b, a];
    if (mine.source !== source || theirs.source >= source) {
      throw dbError('ERR_SQL_INVALID', 'joinCondition', { collection: join.collection });
    }
    const collection = (views[source] as CollectionView).name;
    node = { kind: 'hashJoin', input: node, collection, source, build: mine, probe: theirs };
  });
  return node;
}

function aggregateNodes(
  statement: SelectStatement,
  resolver: PathResolver,
  input: PlanNode,
  phase: 'complete' | 'partial',
): PlanNode {
  const items = statement.items === '*' ? [] : statement.items;
  const aliasOf = new Map(
    items.flatMap((i) => (i.kind === 'column' ? [[i.path.text, i.name] as const] : [])),
  );
  const aggregates: AggregateColumn[] = items.flatMap((i) =>
    i.kind === 'aggregate'
      ? [{ name: i.name, fn: i.fn, arg: i.arg === '*' ? '*' : resolver.resolve(i.arg) }]
      : [],
  );
  let node: PlanNode = {
    kind: 'aggregate',
    input,
    phase,
    groupBy: statement.groupBy.map((g) => ({
      name: aliasOf.get(g.text) ?? g.text,
      path: resolver.resolve(g),
    })),
    aggregates,
  };
  // A partial aggregate answers every group's states unsorted: a router merges the parts,
  // then sorts, dedupes and limits the finished rows.
  if (phase === 'partial') return node;
  if (statement.orderBy.length > 0) {
    // Output rows sort by their keys: a grouping column listed with an alias sits under it.
    const columns: SortColumn[] = statement.orderBy.map((o) => ({
      kind: 'column',
      name: aliasOf.get(o.path.text) ?? o.path.text,
      descending: o.descending,
    }));
    node = { kind: 'sort', input: node, columns, ids: false };
  }
  return statement.distinct ? { kind: 'distinct', input: node } : node;
}

function rowNodes(
  statement: SelectStatement,
  resolver: PathResolver,
  input: PlanNode,
  sources: string[],
): PlanNode {
  let node = input;
  if (statement.orderBy.length > 0) {
    const columns: SortColumn[] = statement.orderBy.map((o) => ({
      kind: 'path',
      path: resolver.resolve(o.path),
      descending: o.descending,
    }));
    node = { kind: 'sort', input: node, columns, ids: true };
  }
  const items = statement.items;
  node = {
    kind: 'project',
    input: node,
    columns:
      items === '*'
        ? '*'
        : items.flatMap((i) =>
            i.kind === 'column' ? [{ name: i.name, path: resolver.resolve(i.path) }] : [],
          ),
    keepId: !statement.distinct && sources.length === 1,
    sources,
  };
  return statement.distinct ? { kind: 'distinct', input: node } : node;
}

/** Options of planSelect. */
export interface SelectPlanOptions {
  /**
   * `partial`: a shard's part of an aggregate a router merges (ADR 0014): each group's values
   * and aggregate states, unsorted. The statement must aggregate and may not sort, dedupe or
   * limit: the engine strips those clauses (engine/shard-plan.ts) before it plans, as the
   * router applies them after merging.
   */
  phase?: 'complete' | 'partial';
}

/** What the engine's ShardPlan promises of a partial aggregate's statement. */
function assertPartial(statement: SelectStatement): void {
  assert(isAggregate(statement), 'a partial plan needs an aggregating statement');
  assert(
    statement.orderBy.length === 0 &&
      !statement.distinct &&
      statement.limit === undefined &&
      statement.offset === undefined,
    'a partial plan leaves ORDER BY, DISTINCT, LIMIT and OFFSET to the router',
  );
}

/** Plans a SELECT over its collections' views (FROM first, then each JOIN). */
export function planSelect(
  statement: SelectStatement,
  views: CollectionView[],
  options: SelectPlanOptions = {},
): SelectPlan {
  const phase = options.phase ?? 'complete';
  if (phase === 'partial') assertPartial(statement);
  checkSelectList(statement);
  const sources = views.map((v) => v.name);
  const resolver = new PathResolver(sources);
  const ordered = withAliasesResolved(statement);
  const aggregate = isAggregate(statement);
  // Resolve every path now, so a bad join prefix fails before any work, rows or not.
  const items = statement.items === '*' ? [] : statement.items;
  const paths = [
    ...statement.joins.flatMap((j) => [j.left, j.right]),
    ...items.flatMap((i) => (i.kind === 'column' ? [i.path] : i.arg === '*' ? [] : [i.arg])),
    ...conditionPaths(statement.where),
    ...statement.groupBy,
    ...(aggregate ? [] : ordered.orderBy.map((o) => o.path)),
  ].map((p) => resolver.resolve(p));
  statement = ordered;
  const whereReadsId = conditionPaths(statement.where).some((p) => readsId(resolver.resolve(p)));
  const anyReadsId = paths.some(readsId);
  const single = statement.joins.length === 0;
  // A join's FROM rows feed only the paths its statement names (no `*`, no `_id`, no ORDER BY,
  // whose ties are broken by ids): they are decoded sparse and carry no `_id` (issue 25).
  const joinSparse =
    !single && statement.items !== '*' && !anyReadsId && statement.orderBy.length === 0;
  const id: IdAttach = whereReadsId
    ? 'beforeFilter'
    : (aggregate && single && !anyReadsId) || joinSparse
      ? 'none'
      : 'afterFilter';
  const selection =
    single && !anyReadsId
      ? paths.map((p) => p.path)
      : joinSparse
        ? paths.filter((p) => p.source === 0).map((p) => p.path)
        : undefined;
  let node: PlanNode = accessNode(
    chooseAccess(statement.where, views[0] as CollectionView, resolver),
    {
      collection: sources[0] as string,
      id,
      selection,
      whole: statement.items === '*',
    },
  );
  node = joinNodes(statement, resolver, node, views);
  if (statement.where) node = { kind: 'filter', input: node, condition: statement.where };
  node = aggregate
    ? aggregateNodes(statement, resolver, node, phase)
    : rowNodes(statement, resolver, node, sources);
  if (statement.limit !== undefined || statement.offset !== undefined) {
    node = {
      kind: 'limit',
      input: node,
      limit: statement.limit,
      offset: statement.offset,
      early: limitPushesDown(statement),
    };
  }
  return { statement, sources, resolver, root: node, plan: planString(node) };
}

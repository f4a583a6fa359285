/**
 * The one dispatch over plan nodes: each kind has its own executor, pulled row by row (a
 * node reads its input only as its consumer asks, so an early LIMIT stops a scan). A filter
 * directly over an access path is fused into it: documents are tested before rows are built;
 * a projection of `*` over one collection is the identity and is skipped.
 */

import { assertNever } from '../ast/index.js';
import { accessOf, isAccess, type PlanNode } from '../planner/index.js';
import { accessRows } from './access.js';
import { aggregateNodeRows } from './aggregate.js';
import type { ExecContext, Row } from './context.js';
import { distinctRows } from './distinct.js';
import { filterRows } from './filter.js';
import { hashJoinRows } from './hash-join.js';
import { limitRows } from './limit.js';
import { projectRows } from './project.js';
import { indexProves } from './proven.js';
import { sortRows } from './sort.js';

/**
 * The rows of a plan node. `keep`: only the first that many rows are pulled (a LIMIT above,
 * through projections, which map rows one to one), so a sort keeps only those as it reads.
 */
export function execute(
  node: PlanNode,
  ctx: ExecContext,
  keep = Number.POSITIVE_INFINITY,
): Iterable<Row> {
  switch (node.kind) {
    case 'scan':
    case 'indexLookup':
    case 'indexRange':
      return accessRows(node, ctx, undefined);
    case 'hashJoin':
      return hashJoinRows(node, ctx, execute(node.input, ctx));
    case 'filter':
      if (isAccess(node.input)) return accessRows(node.input, ctx, node.condition);
      // Above a join, a WHERE the FROM side's index read proves drops nothing.
      return indexProves(accessOf(node.input), node.condition, ctx.resolver, ctx.params)
        ? execute(node.input, ctx)
        : filterRows(node, ctx, execute(node.input, ctx));
    case 'aggregate':
      return aggregateNodeRows(node, execute(node.input, ctx));
    case 'sort':
      return sortRows(node, execute(node.input, ctx), ctx.budget, keep);
    case 'project':
      // `*` over one collection projects each row to itself: no operator to pass through.
      return node.columns === '*' && node.sources.length === 1
        ? execute(node.input, ctx, keep)
        : projectRows(node, execute(node.input, ctx, keep));
    case 'distinct':
      return distinctRows(node, execute(node.input, ctx));
    case 'limit':
      return limitRows(node, ctx, (pulled) => execute(node.input, ctx, pulled));
    default:
      return assertNever(node);
  }
}

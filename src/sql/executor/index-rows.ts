/**
 * The rows of a plain index read, `[limit] → project → [filter] → index lookup or range`,
 * taken in one loop: each id the index lists, its document read, tested (unless the index
 * read proves WHERE), given its `_id`, projected, and kept until OFFSET + LIMIT rows. The
 * operators' own row functions, without a generator per operator and row between them
 * (issue 25: `status = ? LIMIT 100` spent a fifth of its time passing rows up the chain).
 * Plans of any other shape run through `execute`. The plan string is the plan's, unchanged.
 */

import type { Document } from '../../storage/index.js';
import type { Condition } from '../ast/index.js';
import {
  type IndexLookupNode,
  type IndexRangeNode,
  type LimitNode,
  type PlanNode,
  type ProjectNode,
  plainShape,
} from '../planner/index.js';
import { accessDocument, documentTest } from './access.js';
import { type ExecContext, requireCollection } from './context.js';
import { lookupIds } from './index-lookup.js';
import { rangeIds } from './index-range.js';
import { limitOf } from './limit.js';
import { projectDocument } from './project.js';
import { bodyRead } from './selection.js';

/** The nodes of a plain index read, or undefined when the plan is not one. */
interface IndexReadShape {
  limit: LimitNode | undefined;
  project: ProjectNode;
  condition: Condition | undefined;
  access: IndexLookupNode | IndexRangeNode;
}

function indexReadShape(root: PlanNode): IndexReadShape | undefined {
  const shape = plainShape(root);
  // A late limit reads its whole input before it cuts; this loop stops at the limit.
  if (!shape || shape.sort || (shape.limit && !shape.limit.early)) return undefined;
  let node = shape.rows;
  const condition = node.kind === 'filter' ? node.condition : undefined;
  if (node.kind === 'filter') node = node.input;
  if (node.kind !== 'indexLookup' && node.kind !== 'indexRange') return undefined;
  return { limit: shape.limit, project: shape.project, condition, access: node };
}

/**
 * The result documents of a plain index read, in the order the iterator chain would give
 * them; undefined when the plan has another shape.
 */
export function indexReadDocuments(root: PlanNode, ctx: ExecContext): Document[] | undefined {
  const shape = indexReadShape(root);
  if (!shape) return undefined;
  const { limit, project, condition, access } = shape;
  const most = limit ? limitOf(limit.limit, ctx.params, 'LIMIT') : Number.POSITIVE_INFINITY;
  let skip = limit ? limitOf(limit.offset, ctx.params, 'OFFSET') : 0;
  const documents: Document[] = [];
  if (most === 0) return documents;
  const passes = documentTest(access, condition, ctx);
  const read = bodyRead(access, ctx, requireCollection(ctx.reader, access.collection));
  // `*` over one collection projects each row to itself.
  const whole = project.columns === '*' && project.sources.length === 1;
  const ids = access.kind === 'indexLookup' ? lookupIds(access, ctx) : rangeIds(access, ctx);
  const { budget } = ctx;
  for (const id of ids) {
    budget.tick();
    const body = read(id);
    const doc = body && accessDocument(access, id, body, passes);
    if (!doc) continue;
    if (skip > 0) {
      skip--;
      continue;
    }
    documents.push(whole ? doc : projectDocument(project, [doc]));
    if (documents.length >= most) break;
  }
  return documents;
}

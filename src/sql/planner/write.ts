/**
 * Plans the row finding of UPDATE and DELETE: the same access choice as SELECT and a filter
 * on the whole WHERE. Rows carry `_id` before WHERE runs and are read whole, since the
 * write replaces or removes each stored body. Pure.
 */

import type { Condition } from '../ast/index.js';
import { chooseAccess } from './access.js';
import { type CollectionView, type PlanNode, planString } from './plan.js';
import { PathResolver } from './resolve.js';
import { accessNode } from './select.js';

/** The plan that finds the rows of an UPDATE or DELETE. */
export interface WherePlan {
  resolver: PathResolver;
  root: PlanNode;
  plan: string;
}

/** Plans `WHERE where` over one collection. */
export function planWhere(where: Condition | undefined, view: CollectionView): WherePlan {
  const resolver = new PathResolver([view.name]);
  let root: PlanNode = accessNode(chooseAccess(where, view, resolver), {
    collection: view.name,
    id: 'beforeFilter',
    selection: undefined,
    whole: true,
  });
  if (where) root = { kind: 'filter', input: root, condition: where };
  return { resolver, root, plan: planString(root) };
}

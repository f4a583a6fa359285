/**
 * Binds a cached plan to one execution's parameters, before it runs, so that its plan string
 * says what runs: an index lists scalars only, so an equality whose `?` holds an array or an
 * object (which SQL compares as a value) cannot be looked up and the access path becomes a
 * collection scan. A plan that binding leaves unchanged is returned as it is (no copy on the
 * hot path). Pure.
 */

import { isScalar } from '../../util/index.js';
import { resolveValue } from '../semantics/index.js';
import { type AccessNode, accessOf, isAccess, type PlanNode, planString } from './plan.js';

/** A plan bound to parameters: its tree, its access path and its plan string. */
export interface BoundPlan {
  root: PlanNode;
  access: AccessNode;
  plan: string;
}

/** True when every key of an index lookup can be looked up with these parameters. */
function lookable(access: AccessNode & { kind: 'indexLookup' }, params: readonly unknown[]) {
  for (const tuple of access.keys) {
    for (const part of tuple) {
      if (part.nullMatches || part.value.kind === 'literal') continue;
      const value = resolveValue(part.value, params);
      if (value !== null && value !== undefined && !isScalar(value)) return false;
    }
  }
  return true;
}

/** The access path as it runs with these parameters. */
function bindAccess(access: AccessNode, params: readonly unknown[]): AccessNode {
  if (access.kind !== 'indexLookup' || lookable(access, params)) return access;
  const { collection, id, selection, whole } = access;
  return { kind: 'scan', collection, id, selection, whole };
}

/** The tree with its access path replaced (each node above it copied). */
function withAccess(node: PlanNode, access: AccessNode): PlanNode {
  if (isAccess(node)) return access;
  return { ...node, input: withAccess(node.input, access) };
}

/**
 * Binds `root` (whose plan string is `plan`) to `params`. A plan binding leaves unchanged
 * (the usual case) is answered as it is, with no copy.
 */
export function bindPlan(
  plan: { root: PlanNode; plan: string },
  params: readonly unknown[],
): BoundPlan {
  const access = accessOf(plan.root);
  const bound = bindAccess(access, params);
  if (bound === access) return { root: plan.root, access, plan: plan.plan };
  const root = withAccess(plan.root, bound);
  return { root, access: bound, plan: planString(root) };
}

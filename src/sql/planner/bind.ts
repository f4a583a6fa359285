/**
 * Binds a cached plan to one execution's parameters, before it runs, so that its plan string
 * says what runs: an index lists scalars only, so an equality whose `?` holds an array or an
 * object (which SQL compares as a value) cannot be looked up and the access path becomes a
 * collection scan. A plan that binding leaves unchanged is returned as it is (no copy on the
 * hot path). Pure.
 */

import { isScalar } from '../../util/index.js';
import { resolveValue } from '../semantics/index.js';
import { type AccessNode, isAccess, type PlanNode, planString } from './plan.js';

/** A plan bound to parameters: its tree and plan string. */
export interface BoundPlan {
  root: PlanNode;
  plan: string;
}

/** The access path as it runs with these parameters. */
function bindAccess(access: AccessNode, params: readonly unknown[]): AccessNode {
  if (access.kind !== 'indexLookup') return access;
  const lookable = access.keys.every((tuple) =>
    tuple.every((part) => {
      if (part.nullMatches || part.value.kind === 'literal') return true;
      const value = resolveValue(part.value, params);
      return value === null || value === undefined || isScalar(value);
    }),
  );
  if (lookable) return access;
  const { collection, id, selection, whole } = access;
  return { kind: 'scan', collection, id, selection, whole };
}

function bindNode(node: PlanNode, params: readonly unknown[]): PlanNode {
  if (isAccess(node)) return bindAccess(node, params);
  const input = bindNode(node.input, params);
  return input === node.input ? node : { ...node, input };
}

/** Binds `root` (whose plan string is `plan`) to `params`. */
export function bindPlan(
  plan: { root: PlanNode; plan: string },
  params: readonly unknown[],
): BoundPlan {
  const root = bindNode(plan.root, params);
  return root === plan.root ? plan : { root, plan: planString(root) };
}

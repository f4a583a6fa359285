/**
 * When an index read already proves WHERE, so the documents it leads to need no recheck: the
 * condition is exactly the comparisons the index answered, on the index's one path (not
 * multikey), with values whose keys say the same as SQL does. Anything else is rechecked, as
 * the planner's rule has it (`planner/access.ts`); this only spares the work where the answer
 * is known. Decides per execution, since it depends on the parameters.
 */

import { KEY_VALUE_BYTES_MAX } from '../../storage/index.js';
import type { Condition, Operand, PathRef, Value } from '../ast/index.js';
import {
  type AccessNode,
  canonicalText,
  type IndexView,
  type PathResolver,
} from '../planner/index.js';
import { resolveValue } from '../semantics/index.js';

/**
 * True when `value`'s index key equals another value's only when SQL `=` holds between them.
 * Numbers and booleans always; a string when its key is whole (not cut at the key limit:
 * UTF-8 at most 3 bytes per unit, each byte escaped at worst) and it is well formed: a lone
 * surrogate is keyed as U+FFFD, the key of a stored string that holds that character (stored
 * strings are always well formed, `document-check.ts`).
 */
function exactKey(value: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'boolean') return true;
  if (typeof value !== 'string') return false;
  return value.length * 6 + 3 <= KEY_VALUE_BYTES_MAX && value.isWellFormed();
}

/** The comparisons of `condition` (one, or an AND of them), or undefined for anything else. */
function comparisons(
  condition: Condition,
): Array<Extract<Condition, { kind: 'compare' }>> | undefined {
  if (condition.kind === 'compare') return [condition];
  if (condition.kind !== 'and') return undefined;
  const found = [];
  for (const part of condition.conditions) {
    if (part.kind !== 'compare') return undefined;
    found.push(part);
  }
  return found;
}

/** The value side of `path op value` when the path side is the index's own path. */
function valueOnPath(
  left: Operand,
  right: Operand,
  index: IndexView,
  resolver: PathResolver,
): Value | undefined {
  const onIndex = (ref: PathRef) => {
    const resolved = resolver.resolve(ref);
    return resolved.source === 0 && canonicalText(resolved.path) === index.paths[0];
  };
  if (left.kind === 'path' && right.kind !== 'path') return onIndex(left) ? right : undefined;
  if (right.kind === 'path' && left.kind !== 'path') return onIndex(right) ? left : undefined;
  return undefined;
}

/**
 * What an index read proves of a condition whatever the parameters hold: the value operands
 * whose bound values decide it (an equality's must have an exact key, a range's bounds must
 * be numbers). Undefined when it proves nothing. The bounds a range node holds are the
 * condition's own (the planner takes at most one of each side), so a condition of exactly
 * that many comparisons on the path is what the key range selects.
 */
interface ProofShape {
  kind: 'equality' | 'range';
  values: Value[];
}

function proofShape(
  node: AccessNode,
  condition: Condition,
  resolver: PathResolver,
): ProofShape | undefined {
  if (node.kind === 'scan') return undefined;
  const { index } = node;
  if (index.multikey || index.paths.length !== 1) return undefined;
  const parts = comparisons(condition);
  if (!parts) return undefined;
  if (node.kind === 'indexLookup') {
    if (node.keys.length !== 1 || parts.length !== 1) return undefined;
    const [part] = parts as [Extract<Condition, { kind: 'compare' }>];
    const value = valueOnPath(part.left, part.right, index, resolver);
    return part.op === '=' && value !== undefined
      ? { kind: 'equality', values: [value] }
      : undefined;
  }
  if (parts.length !== node.bounds.length) return undefined;
  const values: Value[] = [];
  for (const part of parts) {
    if (part.op === '=' || part.op === '!=') return undefined;
    const value = valueOnPath(part.left, part.right, index, resolver);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return { kind: 'range', values };
}

/**
 * Shapes found, by plan node and condition: a cached plan keeps both objects, so each
 * execution after the first reads its shape here instead of resolving paths again (about a
 * tenth of an in-process point lookup). Null: proves nothing.
 */
const shapes = new WeakMap<AccessNode, WeakMap<Condition, ProofShape | null>>();

/**
 * True when every document `node` reads satisfies `condition` (over source 0 of `resolver`,
 * with `params`): an equality on a single-path index read under its one key, or the bounds
 * of a range over numbers.
 */
export function indexProves(
  node: AccessNode,
  condition: Condition,
  resolver: PathResolver,
  params: readonly unknown[],
): boolean {
  let byCondition = shapes.get(node);
  if (byCondition === undefined) {
    byCondition = new WeakMap();
    shapes.set(node, byCondition);
  }
  let shape = byCondition.get(condition);
  if (shape === undefined) {
    shape = proofShape(node, condition, resolver) ?? null;
    byCondition.set(condition, shape);
  }
  if (shape === null) return false;
  if (shape.kind === 'equality') return exactKey(resolveValue(shape.values[0] as Value, params));
  return shape.values.every((value) => typeof resolveValue(value, params) === 'number');
}

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
 * True when every document `node` reads satisfies `condition` (over source 0 of `resolver`,
 * with `params`): an equality on a single-path index read under its one key, or the bounds
 * of a range over numbers. The bounds a range node holds are the condition's own (the
 * planner takes at most one of each side), so a condition of exactly that many comparisons
 * on the path, each with a number, is what the key range selects.
 */
export function indexProves(
  node: AccessNode,
  condition: Condition,
  resolver: PathResolver,
  params: readonly unknown[],
): boolean {
  if (node.kind === 'scan') return false;
  const { index } = node;
  if (index.multikey || index.paths.length !== 1) return false;
  const parts = comparisons(condition);
  if (!parts) return false;
  if (node.kind === 'indexLookup') {
    if (node.keys.length !== 1 || parts.length !== 1) return false;
    const [part] = parts as [Extract<Condition, { kind: 'compare' }>];
    const value = valueOnPath(part.left, part.right, index, resolver);
    return part.op === '=' && value !== undefined && exactKey(resolveValue(value, params));
  }
  if (parts.length !== node.bounds.length) return false;
  return parts.every((part) => {
    if (part.op === '=' || part.op === '!=') return false;
    const value = valueOnPath(part.left, part.right, index, resolver);
    return value !== undefined && typeof resolveValue(value, params) === 'number';
  });
}

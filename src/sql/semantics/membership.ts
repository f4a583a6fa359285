/**
 * An OR of equalities on one path (what `IN (…)` lowers to, rule 2) tested by one hash lookup
 * instead of one comparison per branch, so a filter over n rows and a list of k values costs
 * n lookups, not n·k comparisons (a 16,000-value IN over its own index took 28 s).
 *
 * The answer is the OR's own under `compare.ts`: for a scalar value, `=` with a scalar of
 * another type family is false and with one of its own is JavaScript equality (numbers
 * numerically, 0 = -0; strings by code unit, which is equality by code point), which is what
 * a `Set` of the values finds. A null or missing value makes every branch unknown; a null in
 * the list makes its branch unknown, so a value found nowhere is unknown rather than false.
 * An array or object in the list (a `?` bound to one) equals only an array or object, so
 * those few are compared one by one with such a value. A short list is evaluated branch by
 * branch, where the loop is as cheap as the hash.
 */

import type { Condition, PathRef, Value } from '../ast/index.js';
import { compare, type Truth } from './compare.js';
import { resolveValue } from './values.js';

/** Branches below this are compared one by one. */
const MEMBERSHIP_BRANCHES_MIN = 8;

/** The path and values of an OR of `path = value` branches. */
interface Shape {
  path: PathRef;
  values: Value[];
  /** The values' set when none is a `?` (the same for every execution), else per parameters. */
  fixed: ValueSet | undefined;
  byParams: WeakMap<readonly unknown[], ValueSet>;
}

/** The non-null scalars of a list, its arrays and objects, and whether it held a null. */
interface ValueSet {
  scalars: Set<unknown>;
  composites: unknown[];
  hasNull: boolean;
}

/** Shapes found, by condition; null when the OR is not one (a cached plan keeps its AST). */
const shapes = new WeakMap<Condition, Shape | null>();

function shapeOf(condition: Condition & { kind: 'or' }): Shape | null {
  if (condition.conditions.length < MEMBERSHIP_BRANCHES_MIN) return null;
  let path: PathRef | undefined;
  const values: Value[] = [];
  for (const branch of condition.conditions) {
    if (branch.kind !== 'compare' || branch.op !== '=') return null;
    const { left, right } = branch;
    const [onPath, value] = left.kind === 'path' ? [left, right] : [right, left];
    if (onPath.kind !== 'path' || value.kind === 'path') return null;
    if (path !== undefined && onPath.text !== path.text) return null;
    path = onPath;
    values.push(value);
  }
  if (path === undefined) return null;
  const literal = values.every((v) => v.kind === 'literal');
  return { path, values, fixed: literal ? setOf(values, []) : undefined, byParams: new WeakMap() };
}

/** The list's values as a set. */
function setOf(values: readonly Value[], params: readonly unknown[]): ValueSet {
  const scalars = new Set<unknown>();
  const composites: unknown[] = [];
  let hasNull = false;
  for (const value of values) {
    const resolved = resolveValue(value, params);
    if (resolved === null || resolved === undefined) hasNull = true;
    else if (typeof resolved === 'object') composites.push(resolved);
    else scalars.add(resolved);
  }
  return { scalars, composites, hasNull };
}

function valueSet(shape: Shape, params: readonly unknown[]): ValueSet {
  if (shape.fixed !== undefined) return shape.fixed;
  let set = shape.byParams.get(params);
  if (set === undefined) {
    set = setOf(shape.values, params);
    shape.byParams.set(params, set);
  }
  return set;
}

/** An OR of equalities read as membership of one path's value in a set of values. */
export interface Membership {
  path: PathRef;
  set: ValueSet;
}

/**
 * The OR as a membership test with these parameters, or undefined when it is not one (the
 * caller evaluates it branch by branch).
 */
export function membershipOf(
  condition: Condition & { kind: 'or' },
  params: readonly unknown[],
): Membership | undefined {
  let shape = shapes.get(condition);
  if (shape === undefined) {
    shape = shapeOf(condition);
    shapes.set(condition, shape);
  }
  if (shape === null) return undefined;
  return { path: shape.path, set: valueSet(shape, params) };
}

/** The OR's truth for the value at its path. */
export function memberTruth({ set }: Membership, value: unknown): Truth {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') {
    if (set.scalars.has(value)) return true;
  } else if (set.composites.some((c) => compare('=', value, c) === true)) {
    return true;
  }
  return set.hasNull ? null : false;
}

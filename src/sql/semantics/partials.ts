/**
 * Aggregates over parts (DESIGN §7): one group's grouping values and aggregate states as plain
 * JSON (what a shard answers in the partial phase), the merge of such groups from every part,
 * and a group's finished output row. One node finishes its own groups with `finishGroup`; a
 * router merges its shards' with `mergePartials` first, so both answer with the same rules.
 * Pure.
 */

import type { Aggregate } from './aggregates.js';
import { GroupKeys } from './keys.js';

/** One group of an aggregate: its grouping values and its aggregates' states. */
export interface PartialRow {
  group: unknown[];
  states: unknown[];
}

/** Groups merged by their grouping values: the states of equal groups merged by `fns`. */
export function mergePartials(rows: Iterable<PartialRow>, fns: readonly Aggregate[]): PartialRow[] {
  const keys = new GroupKeys();
  const groups = new Map<unknown, PartialRow>();
  for (const row of rows) {
    const key = keys.keyOf(row.group);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { group: row.group, states: [...row.states] });
      continue;
    }
    for (let k = 0; k < fns.length; k++) {
      group.states[k] = (fns[k] as Aggregate).merge(group.states[k], row.states[k]);
    }
  }
  return [...groups.values()];
}

/** A group's output row: each grouping value under its name, then each aggregate finished. */
export function finishGroup(
  group: PartialRow,
  groupNames: readonly string[],
  aggregateNames: readonly string[],
  fns: readonly Aggregate[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  groupNames.forEach((name, k) => {
    out[name] = group.group[k];
  });
  aggregateNames.forEach((name, k) => {
    out[name] = (fns[k] as Aggregate).finish(group.states[k]);
  });
  return out;
}

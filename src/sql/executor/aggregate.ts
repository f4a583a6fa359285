/**
 * GROUP BY and aggregates, in two phases: `complete` groups rows and finishes each aggregate;
 * `partial` answers each group as `{ group, states }` (its grouping values and aggregate
 * states, plain JSON) for a router, which merges its shards' groups with the same rules
 * (semantics/partials.ts). Without GROUP BY there is always one group, so an empty input
 * still answers COUNT 0 and nulls.
 */

import type { Document } from '../../storage/index.js';
import { valueAt } from '../../util/index.js';
import type { AggregateNode } from '../planner/index.js';
import {
  type Aggregate,
  aggregateOf,
  finishGroup,
  GroupKeys,
  type PartialRow,
} from '../semantics/index.js';
import type { Row } from './context.js';

type Group = PartialRow;

function groupsOfRows(node: AggregateNode, rows: Iterable<Row>, fns: Aggregate[]): Group[] {
  const groups = new Map<unknown, Group>();
  const keys = new GroupKeys();
  const { groupBy } = node;
  const args = node.aggregates.map((a) => a.arg);
  const open = (key: unknown, values: unknown[]): Group => {
    const group = { group: values, states: fns.map((f) => f.init()) };
    groups.set(key, group);
    return group;
  };
  // One grouping path (the usual case): a row of an existing group makes no list of values.
  const only = groupBy.length === 1 ? (groupBy[0] as AggregateNode['groupBy'][number]) : undefined;
  for (const row of rows) {
    let group: Group;
    if (only) {
      const v = valueAt(row[only.path.source], only.path.path) ?? null;
      const key = keys.keyOfValue(v);
      group = groups.get(key) ?? open(key, [v]);
    } else {
      const values = groupBy.map((g) => valueAt(row[g.path.source], g.path.path) ?? null);
      const key = keys.keyOf(values);
      group = groups.get(key) ?? open(key, values);
    }
    const { states } = group;
    for (let k = 0; k < fns.length; k++) {
      const arg = args[k] as AggregateNode['aggregates'][number]['arg'];
      const value = arg === '*' ? undefined : valueAt(row[arg.source], arg.path);
      states[k] = (fns[k] as Aggregate).accumulate(states[k], value);
    }
  }
  return [...groups.values()];
}

/** The output rows of an aggregate node over its input rows. */
export function aggregateRows(node: AggregateNode, rows: Iterable<Row>): Row[] {
  const fns = node.aggregates.map((a) => aggregateOf(a.fn, a.arg === '*'));
  const groups = groupsOfRows(node, rows, fns);
  if (groups.length === 0 && node.groupBy.length === 0) {
    groups.push({ group: [], states: fns.map((f) => f.init()) });
  }
  if (node.phase === 'partial') {
    return groups.map((g) => [{ group: g.group, states: g.states } as unknown as Document]);
  }
  const groupNames = node.groupBy.map((g) => g.name);
  const aggregateNames = node.aggregates.map((a) => a.name);
  return groups.map((group) => [finishGroup(group, groupNames, aggregateNames, fns) as Document]);
}

export function* aggregateNodeRows(node: AggregateNode, input: Iterable<Row>): Generator<Row> {
  yield* aggregateRows(node, input);
}

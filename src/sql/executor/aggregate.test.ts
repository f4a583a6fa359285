/**
 * Proves the aggregate phases a router relies on (DESIGN §7): for random rows, any split of
 * them into parts, `partial` over each part, then the partial rows merged and finished as a
 * router does (semantics' `mergePartials` and `finishGroup`), gives exactly what `complete`
 * gives over the whole, for every aggregate, with and without GROUP BY (one and two grouping
 * paths). Partial rows are plain JSON, so they survive a trip through JSON text. Numbers are
 * multiples of 0.25, so sums are exact in any order.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SelectStatement } from '../ast/index.js';
import { parse } from '../parser/index.js';
import { type AggregateNode, planNodes, planSelect } from '../planner/index.js';
import { aggregateOf, finishGroup, mergePartials, type PartialRow } from '../semantics/index.js';
import { aggregateRows } from './aggregate.js';
import type { Row } from './context.js';

/** Partial rows merged and finished as a router merges its shards' answers. */
function mergedAsARouter(node: AggregateNode, partials: readonly Row[]): unknown[] {
  const fns = node.aggregates.map((a) => aggregateOf(a.fn, a.arg === '*'));
  const groups = mergePartials(
    partials.map((r) => r[0] as unknown as PartialRow),
    fns,
  );
  const groupNames = node.groupBy.map((g) => g.name);
  const aggregateNames = node.aggregates.map((a) => a.name);
  return groups.map((g) => finishGroup(g, groupNames, aggregateNames, fns));
}

const STATEMENTS = [
  'SELECT COUNT(*), COUNT(x), SUM(x), AVG(x), MIN(x), MAX(x) FROM t',
  'SELECT g, COUNT(*) AS n, COUNT(x), SUM(x), AVG(x), MIN(x), MAX(x) FROM t GROUP BY g',
  'SELECT g, h, SUM(x), AVG(x), MAX(h) FROM t GROUP BY g, h',
];

function aggregateNode(sql: string): AggregateNode {
  const statement = parse(sql).statement as SelectStatement;
  const plan = planSelect(statement, [{ name: 't', indexes: [] }]);
  return planNodes(plan.root).find((n) => n.kind === 'aggregate') as AggregateNode;
}

const quarter = fc.integer({ min: -40, max: 40 }).map((n) => n / 4);
const value = fc.oneof(
  { weight: 6, arbitrary: quarter },
  { weight: 2, arbitrary: fc.constantFrom('a', 'b', '', 'B') },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>([1], { y: 1 }, []) },
);
const groupValue = fc.oneof(
  fc.constantFrom(1, 2, '1', 'a', null, true),
  fc.constantFrom<unknown>([1], { k: 'v' }),
);
const doc = fc.record({ g: groupValue, h: groupValue, x: value }, { requiredKeys: [] });

/** Cuts `rows` into parts at the given points (empty parts included). */
function split<T>(rows: T[], cuts: number[]): T[][] {
  const points = [...new Set(cuts.map((c) => c % (rows.length + 1)))].sort((a, b) => a - b);
  const parts: T[][] = [];
  let at = 0;
  for (const p of points) {
    parts.push(rows.slice(at, p));
    at = p;
  }
  parts.push(rows.slice(at));
  return parts;
}

describe('aggregate phases', () => {
  for (const sql of STATEMENTS) {
    it(`partial on any split, then merged, equals complete: ${sql}`, () => {
      const node = aggregateNode(sql);
      const partial: AggregateNode = { ...node, phase: 'partial' };
      fc.assert(
        fc.property(
          fc.array(doc, { maxLength: 40 }),
          fc.array(fc.nat(), { maxLength: 4 }),
          (docs, cuts) => {
            const rows: Row[] = docs.map((d) => [d]);
            const complete = aggregateRows(node, rows).map((r) => r[0]);
            // Parts travel as JSON, as they would from shards.
            const parts = split(rows, cuts).flatMap((part) =>
              aggregateRows(partial, part).map((r): Row => JSON.parse(JSON.stringify(r))),
            );
            const merged = mergedAsARouter(node, parts);
            const byGroup = (out: unknown[]) => [...out].map((d) => JSON.stringify(d)).sort();
            expect(byGroup(merged)).toEqual(byGroup(complete));
          },
        ),
        { numRuns: 300 },
      );
    });
  }

  it('answers COUNT 0 and nulls over no rows, in both phases and merged', () => {
    const node = aggregateNode(STATEMENTS[0] as string);
    const expected = [
      {
        'COUNT(*)': 0,
        'COUNT(x)': 0,
        'SUM(x)': null,
        'AVG(x)': null,
        'MIN(x)': null,
        'MAX(x)': null,
      },
    ];
    expect(aggregateRows(node, []).map((r) => r[0])).toEqual(expected);
    const partial = aggregateRows({ ...node, phase: 'partial' }, []);
    expect(partial.map((r) => r[0])).toEqual([
      { group: [], states: [0, 0, null, { sum: 0, count: 0 }, null, null] },
    ]);
    expect(mergedAsARouter(node, partial)).toEqual(expected);
  });
});

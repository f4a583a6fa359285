/**
 * Proves that a plain index read taken in one loop (`index-rows.ts`) answers exactly what the
 * iterator chain answers for the same bound plan, in the same order: for random documents,
 * equality, IN and range reads through single, multikey and unique indexes, with and without
 * a WHERE the index read does not prove, `*` and listed columns, LIMIT and OFFSET (from `?`
 * too). Writes between reads are seen by the next read. Real LMDB files in a temp dir.
 */

import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../test/support/temp-dir.js';
import { checkIndexSpec, type Document, Store } from '../../storage/index.js';
import type { SelectStatement } from '../ast/index.js';
import { parse } from '../parser/index.js';
import { bindPlan, planSelect } from '../planner/index.js';
import { StatementBudget } from './budget.js';
import type { ExecContext } from './context.js';
import { execute } from './execute.js';
import { indexReadDocuments } from './index-rows.js';
import { runSelect } from './select.js';
import { viewOf } from './view.js';
import { parseId } from '../../util/index.js';

let store: Store;
let cleanup: () => void;

beforeEach(() => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir());
  store = Store.open(dir);
});

afterEach(async () => {
  await store.close();
  cleanup();
});

async function load(docs: Document[]): Promise<void> {
  await store.write((txn) =>
    txn.insertDocuments(
      't',
      docs.map((d) => txn.prepareDocument(d, undefined)),
    ),
  );
}

async function createIndexes(): Promise<void> {
  const specs = [
    { name: 't_a', paths: ['a'] },
    { name: 't_tags', paths: ['tags[*]'] },
    { name: 't_u', paths: ['u'], unique: true },
  ];
  for (const spec of specs) {
    await store.write((txn) => txn.createIndex('t', checkIndexSpec('t', spec)));
  }
}

function planOf(sql: string) {
  const statement = parse(sql).statement as SelectStatement;
  const def = store.getCollection('t') as NonNullable<ReturnType<Store['getCollection']>>;
  return planSelect(statement, [viewOf(def)]);
}

/** What the loop answers and what the iterator chain answers, for one statement. */
function bothWays(sql: string, params: unknown[]) {
  const plan = planOf(sql);
  const bound = bindPlan(plan, params);
  const ctx: ExecContext = {
    reader: store,
    params,
    resolver: plan.resolver,
    sparse: false,
    budget: new StatementBudget(),
  };
  return {
    plan: bound.plan,
    loop: indexReadDocuments(bound.root, ctx),
    chain: [...execute(bound.root, ctx)].map((row) => row[0]),
    selected: runSelect(store, plan, params),
  };
}

const valueArb = fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constantFrom('x', 'y', 'z'));
const docArb = fc.record(
  {
    a: fc.oneof(valueArb, fc.constant(null)),
    b: fc.integer({ min: 0, max: 3 }),
    tags: fc.array(fc.constantFrom('p', 'q', 'r'), { maxLength: 3 }),
  },
  { requiredKeys: ['b'] },
);

/** A WHERE of a plain index read and its parameters. */
type WhereCase = [condition: string, params: fc.Arbitrary<unknown[]>];

const int = (min: number, max: number) => fc.integer({ min, max });
const whereArb = fc.oneof(
  ...(
    [
      ['a = ?', fc.tuple(valueArb)],
      ['a IN (?, ?)', fc.tuple(valueArb, valueArb)],
      ['a >= ? AND a < ?', fc.tuple(int(0, 6), int(0, 7))],
      ['a > ?', fc.tuple(int(-1, 6))],
      ['a = ? AND b = ?', fc.tuple(valueArb, int(0, 3))],
      ['tags[0] = ?', fc.tuple(fc.constantFrom('p', 'q', 'r'))],
      ['tags[1] >= ? AND b > ?', fc.tuple(fc.constantFrom('p', 'q'), int(0, 2))],
    ] as WhereCase[]
  ).map(([condition, params]) => params.map((values) => ({ condition, values }))),
);

/** Plain index reads: [limit] → project → [filter] → index lookup or range. */
const readArb = fc.record({
  columns: fc.constantFrom('*', 'a, b', 'b'),
  where: whereArb,
  limit: fc.option(int(0, 12), { nil: undefined }),
  offset: fc.option(int(0, 5), { nil: undefined }),
});

describe('indexReadDocuments', () => {
  it('answers what the iterator chain answers, in its order', async () => {
    await createIndexes();
    await load(fc.sample(docArb, { numRuns: 120, seed: 25 }).map((d, i) => ({ ...d, u: i })));
    fc.assert(
      fc.property(readArb, ({ columns, where, limit, offset }) => {
        const params = [...where.values];
        let sql = `SELECT ${columns} FROM t WHERE ${where.condition}`;
        if (limit !== undefined) {
          sql += ' LIMIT ?';
          params.push(limit);
          if (offset !== undefined) sql += ` OFFSET ${offset}`;
        }
        const { plan, loop, chain, selected } = bothWays(sql, params);
        expect(plan).toMatch(/^INDEX_(SCAN|RANGE)/);
        expect(loop).toEqual(chain);
        expect(selected.documents).toEqual(chain);
      }),
      { numRuns: 300, seed: 2025 },
    );
  });

  it('leaves every other plan to the iterator chain', async () => {
    await createIndexes();
    await load([{ a: 1, b: 1, u: 1 }]);
    for (const sql of [
      'SELECT * FROM t WHERE b = 1',
      'SELECT * FROM t WHERE a = 1 ORDER BY b',
      'SELECT DISTINCT b FROM t WHERE a = 1',
      'SELECT COUNT(*) FROM t WHERE a = 1',
    ]) {
      const { loop, chain } = bothWays(sql, []);
      expect(loop, sql).toBeUndefined();
      expect(chain.length, sql).toBeGreaterThan(0);
    }
  });

  it('sees the writes made between two reads', async () => {
    await createIndexes();
    await load([
      { a: 1, b: 0, u: 1 },
      { a: 1, b: 1, u: 2 },
      { a: 2, b: 2, u: 3 },
    ]);
    const plan = planOf('SELECT * FROM t WHERE a = ? LIMIT 10');
    const read = () => runSelect(store, plan, [1]).documents.map((d) => d.b);
    expect(read()).toEqual([0, 1]);
    await load([{ a: 1, b: 3, u: 4 }]);
    expect(read()).toEqual([0, 1, 3]);
    const [first, second] = runSelect(store, plan, [1]).documents;
    const idOf = (doc: Document | undefined) => parseId(doc?._id) as Buffer;
    await store.write((txn) => {
      txn.deleteDocument('t', idOf(first));
      txn.replaceDocument('t', idOf(second), txn.prepareDocument({ a: 2, b: 9, u: 2 }, undefined));
    });
    expect(read()).toEqual([3]);
    expect(runSelect(store, plan, [2]).documents.map((d) => d.b)).toEqual([9, 2]);
  });
});

/**
 * Proves the AST printer (issue 9): for random statements of every kind, with every
 * condition kind (n-ary AND/OR, NOT, [NOT] LIKE/ILIKE, IS [NOT] NULL, comparisons with paths
 * and values on either side, `?`), every select-list form, JOINs, GROUP BY, ORDER BY … DESC,
 * LIMIT/OFFSET as numbers or `?`, and collection names with dots, hyphens and leading digits,
 * `parse(printStatement(ast))` is `ast` again, positions aside. Only ASTs the parser can
 * produce are generated: `IN` arrives as ORs, `<>` as `!=`, aggregate names upper case,
 * `?` numbered in text order.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from '../parser/index.js';
import type {
  AggregateFn,
  CompareOp,
  Condition,
  JsonValue,
  OrderItem,
  PathRef,
  SelectItem,
  Statement,
  Value,
} from './index.js';
import { printStatement, SQL_KEYWORDS } from './index.js';

const AT = { line: 1, column: 1 };

// ---- leaves ------------------------------------------------------------------------------

/** Field names: plain, keywords, digits first, hyphens, `$`, and ones that need quotes. */
const fieldName = fc.oneof(
  fc.constantFrom('a', 'b', 'pnr', 'fare', 'total', 'x_y', 'a-b', 'v$', 'café', '2024', 'a+b'),
  fc.constantFrom(...SQL_KEYWORDS.map((k) => k.toLowerCase())),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/),
);

function pathArb(allowEach: boolean): fc.Arbitrary<PathRef> {
  const step = fc.oneof(
    fieldName.map((name) => `.${name}`),
    fc.nat(12).map((n) => `[${n}]`),
    ...(allowEach ? [fc.constant('[*]')] : []),
  );
  return fc
    .tuple(fieldName, fc.array(step, { maxLength: 3 }))
    .map(([first, rest]) => ({ kind: 'path', text: first + rest.join(''), at: AT }));
}

const path = pathArb(false);

const json: fc.Arbitrary<JsonValue> = fc
  .jsonValue({ maxDepth: 2 })
  .filter((v) => !JSON.stringify(v).includes('__proto__')) as fc.Arbitrary<JsonValue>;

/** A literal as the parser makes one: scalars anywhere, JSON objects and arrays too. */
const literal: fc.Arbitrary<Value> = fc
  .oneof(
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string(),
    fc.constantFrom("it's", '', '%a_', '😀'),
    fc.array(json, { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 3 }),
  )
  .filter((v) => !JSON.stringify(v).includes('__proto__'))
  .map((value) => ({ kind: 'literal', value: value as JsonValue }));

/** A `?`; numbered in text order by `renumber` once the statement is built. */
const param: fc.Arbitrary<Value> = fc.constant({ kind: 'param', index: -1, at: AT });

const value = fc.oneof({ weight: 4, arbitrary: literal }, { weight: 1, arbitrary: param });

const collection = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/),
  fc.constantFrom('2024.logs', 'eu-west.orders', '2024', '1e5', '1.5', '01', 'a.b.c', 'select'),
);

/** Names of aliases and indexes: plain, keywords, or anything in a string literal. */
const name = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
  fc.constantFrom('total', 'order', 'n-1', 'my name', "it's"),
  fc.string({ minLength: 1, maxLength: 8 }),
);

// ---- conditions --------------------------------------------------------------------------

const compareOp = fc.constantFrom<CompareOp>('=', '!=', '<', '<=', '>', '>=');

const leaf: fc.Arbitrary<Condition> = fc.oneof(
  fc
    .tuple(compareOp, fc.oneof(path, value), fc.oneof(path, value))
    .map(([op, left, right]): Condition => ({ kind: 'compare', op, left, right })),
  fc.tuple(path, value, fc.boolean(), fc.boolean()).map(
    ([p, pattern, caseInsensitive, negated]): Condition => ({
      kind: 'like',
      path: p,
      pattern,
      caseInsensitive,
      negated,
    }),
  ),
  fc
    .tuple(path, fc.boolean())
    .map(([p, negated]): Condition => ({ kind: 'isNull', path: p, negated })),
);

const condition: fc.Arbitrary<Condition> = fc.letrec<{ cond: Condition }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: leaf },
    {
      weight: 1,
      arbitrary: fc
        .array(tie('cond'), { minLength: 2, maxLength: 4 })
        .map((conditions): Condition => ({ kind: 'and', conditions })),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(tie('cond'), { minLength: 2, maxLength: 4 })
        .map((conditions): Condition => ({ kind: 'or', conditions })),
    },
    { weight: 1, arbitrary: tie('cond').map((c): Condition => ({ kind: 'not', condition: c })) },
  ),
})).cond;

// ---- statements --------------------------------------------------------------------------

const aggregateFn = fc.constantFrom<AggregateFn>('COUNT', 'SUM', 'AVG', 'MIN', 'MAX');

const selectItem: fc.Arbitrary<SelectItem> = fc.oneof(
  fc.tuple(path, fc.option(name, { nil: undefined })).map(
    ([p, alias]): SelectItem => ({
      kind: 'column',
      path: p,
      name: alias ?? p.text,
    }),
  ),
  fc
    .tuple(aggregateFn, fc.option(path, { nil: undefined }), fc.option(name, { nil: undefined }))
    .map(([fn, arg, alias]) => {
      const a = fn === 'COUNT' ? (arg ?? '*') : (arg ?? { kind: 'path', text: 'x', at: AT });
      const text = a === '*' ? '*' : a.text;
      return { kind: 'aggregate', fn, arg: a, name: alias ?? `${fn}(${text})` } as SelectItem;
    }),
);

const count = fc.oneof(
  fc.nat(1000).map((n): Value => ({ kind: 'literal', value: n })),
  param,
);

const orderItem: fc.Arbitrary<OrderItem> = fc
  .tuple(path, fc.boolean())
  .map(([p, descending]) => ({ path: p, descending }));

const where = fc.option(condition, { nil: undefined });

const select: fc.Arbitrary<Statement> = fc.record({
  kind: fc.constant('select' as const),
  distinct: fc.boolean(),
  items: fc.oneof(fc.constant('*' as const), fc.array(selectItem, { minLength: 1, maxLength: 4 })),
  from: collection,
  joins: fc.array(fc.record({ collection, left: path, right: path }), { maxLength: 2 }),
  where,
  groupBy: fc.array(path, { maxLength: 3 }),
  orderBy: fc.array(orderItem, { maxLength: 3 }),
  limit: fc.option(count, { nil: undefined }),
  offset: fc.option(count, { nil: undefined }),
});

const document = fc
  .oneof(fc.dictionary(fc.string({ maxLength: 5 }), json, { maxKeys: 3 }), fc.array(json))
  .filter((v) => !JSON.stringify(v).includes('__proto__'))
  .map((v): Value => ({ kind: 'literal', value: v as JsonValue }));

const statement: fc.Arbitrary<Statement> = fc.oneof(
  { weight: 4, arbitrary: select },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      collection,
      documents: fc.array(fc.oneof(document, param), { minLength: 1, maxLength: 3 }),
    }) as fc.Arbitrary<Statement>,
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      collection,
      assignments: fc.array(fc.record({ path, value }), { minLength: 1, maxLength: 3 }),
      where,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), collection, where }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('createIndex' as const),
      name,
      collection,
      paths: fc.array(
        pathArb(true).map((p) => p.text),
        { minLength: 1, maxLength: 3 },
      ),
      unique: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('dropIndex' as const), name, collection }),
  },
);

// ---- helpers -----------------------------------------------------------------------------

/** Numbers every `?` in the order the printer writes them, as the parser numbers them. */
function renumber(s: Statement): Statement {
  let next = 0;
  const v = (x: Value): Value => (x.kind === 'param' ? { ...x, index: next++ } : x);
  const operand = <T extends Value | PathRef>(o: T): T => (o.kind === 'path' ? o : (v(o) as T));
  const cond = (c: Condition): Condition => {
    switch (c.kind) {
      case 'compare': {
        const left = operand(c.left);
        return { ...c, left, right: operand(c.right) };
      }
      case 'like':
        return { ...c, pattern: v(c.pattern) };
      case 'and':
      case 'or':
        return { ...c, conditions: c.conditions.map(cond) };
      case 'not':
        return { ...c, condition: cond(c.condition) };
      default:
        return c;
    }
  };
  switch (s.kind) {
    case 'select': {
      const w = s.where && cond(s.where);
      const limit = s.limit && v(s.limit);
      return { ...s, where: w, limit, offset: s.offset && v(s.offset) };
    }
    case 'insert':
      return { ...s, documents: s.documents.map((d) => v(d) as typeof d) };
    case 'update': {
      const assignments = s.assignments.map((a) => ({ ...a, value: v(a.value) }));
      return { ...s, assignments, where: s.where && cond(s.where) };
    }
    case 'delete':
      return { ...s, where: s.where && cond(s.where) };
    default:
      return s;
  }
}

/** The value without positions (`at`), for comparison. */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'at')
      .map(([k, v]) => [k, withoutPositions(v)]),
  );
}

/** Runs of the property; raise it to hunt: DOCDB_PROPERTY_RUNS=5000. */
const NUM_RUNS = Number(process.env.DOCDB_PROPERTY_RUNS ?? 500);

describe('printStatement', () => {
  it('prints text that parses back to the same statement', () => {
    fc.assert(
      fc.property(statement.map(renumber), (ast) => {
        const sql = printStatement(ast);
        const parsed = parse(sql).statement;
        expect(withoutPositions(parsed), sql).toEqual(withoutPositions(ast));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('prints the examples of docs/sql.md as expected', () => {
    const cases: Array<[string, string]> = [
      ['SELECT * FROM 2024.logs', 'SELECT * FROM 2024.logs'],
      [
        "select pnr, fare.total as t from orders where status in ('a', 'b') order by t desc limit 5",
        "SELECT pnr, fare.total AS t FROM orders WHERE status = 'a' OR status = 'b' ORDER BY t DESC LIMIT 5",
      ],
      [
        'SELECT "order".total FROM t WHERE "select" <> ?',
        'SELECT order.total FROM t WHERE "select" != ?',
      ],
      [
        "UPDATE eu-west.orders SET a.b = {\"x\":[1,-0]} WHERE n = 'it''s'",
        "UPDATE eu-west.orders SET a.b = {\"x\":[1,-0]} WHERE n = 'it''s'",
      ],
      [
        'CREATE UNIQUE INDEX by_tag ON t (tags[*].name)',
        'CREATE UNIQUE INDEX by_tag ON t (tags[*].name)',
      ],
    ];
    for (const [sql, printed] of cases) expect(printStatement(parse(sql).statement)).toBe(printed);
  });

  it('refuses the find conditions, which have no SQL text', () => {
    const ast = parse('SELECT * FROM t').statement;
    const find = {
      ...ast,
      where: {
        kind: 'match',
        path: { kind: 'path', text: 'a', at: AT },
        value: { kind: 'literal', value: 1 },
      },
    } as Statement;
    expect(() => printStatement(find)).toThrow(
      expect.objectContaining({ code: 'ERR_SQL_INVALID' }),
    );
  });
});

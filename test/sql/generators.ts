/**
 * Generators of the SQL property tests, shared by the suites that compare two ways of
 * answering the same SQL (through indexes against a scan, through a router against one node):
 * documents from a small value domain, so that predicates often match, and random WHERE
 * clauses with their SQL text and `?` parameters.
 */

import fc from 'fast-check';
import type { Document } from '../../src/index.js';

// ---- documents from a small domain, so that predicates often match --------------------

export const smallString = fc.constantFrom(
  '',
  'a',
  'b',
  'ab',
  'A',
  'B',
  '1',
  '3',
  'a\u0000',
  'é',
  '😀',
  '\uffff',
  'a%b',
  'a_b',
);

export const scalar: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: -2, max: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(1.5, -0.5, -0) },
  { weight: 4, arbitrary: smallString },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.boolean() },
);

export const nonScalar = fc.constantFrom<unknown>([], [1], ['a'], {}, { x: 1 });

export const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: scalar },
  { weight: 1, arbitrary: nonScalar },
);

export const docBody: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    n: fieldValue,
    s: fieldValue,
    a: fc.oneof(
      { weight: 8, arbitrary: fc.record({ b: fieldValue, c: scalar }, { requiredKeys: [] }) },
      { weight: 1, arbitrary: scalar },
      { weight: 1, arbitrary: fc.constant([{ b: 1 }]) },
    ),
    tags: fc.oneof(
      { weight: 8, arbitrary: fc.array(fieldValue, { maxLength: 4 }) },
      { weight: 1, arbitrary: scalar },
    ),
    m: scalar,
  },
  { requiredKeys: [] },
);

/** `u` is unique by construction (a number or string from the position, or null/missing). */
export const uniqueKind = fc.constantFrom('number', 'string', 'null', 'missing');

export const docsArb = fc
  .array(fc.tuple(docBody, uniqueKind), { minLength: 3, maxLength: 30 })
  .map((items) =>
    items.map(([body, kind], i) => {
      const doc: Document = { _id: idOf(i), ...body };
      if (kind === 'number') doc.u = i;
      else if (kind === 'string') doc.u = `u${i}`;
      else if (kind === 'null') doc.u = null;
      return doc;
    }),
  );

export function idOf(i: number): string {
  return `0193a4f2-7c1e-7d3a-9b2e-${i.toString(16).padStart(12, '0')}`;
}

// ---- WHERE clauses ---------------------------------------------------------------------

export type Op = '=' | '!=' | '<>' | '<' | '<=' | '>' | '>=';

/** A value in SQL: a literal, or a `?` placeholder carrying the value. */
export interface Val {
  value: unknown;
  param: boolean;
  /**
   * When set, `bind` replaces the value with the scalar that document number `from` (modulo
   * the count) holds at the compared path, so that predicates match often.
   */
  from?: number | undefined;
}

export type Where =
  | { k: 'cmp'; path: string; op: Op; val: Val; valueFirst: boolean }
  | { k: 'paths'; left: string; op: Op; right: string }
  | { k: 'in'; path: string; vals: Val[]; not: boolean }
  | { k: 'null'; path: string; not: boolean }
  | { k: 'like'; path: string; pattern: Val; ci: boolean; not: boolean }
  | { k: 'and' | 'or'; left: Where; right: Where }
  | { k: 'not'; inner: Where }
  | { k: 'paren'; inner: Where };

/** Paths in WHERE: mostly indexable ones, some that no index covers or no document has. */
export const wherePath = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('n', 's', 'a.b', 'tags[0]', 'u') },
  { weight: 2, arbitrary: fc.constantFrom('tags[1]', 'm', 'zz', 'a') },
);

export const whereValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>('5', 5, 2, '2', 'a', 'b', null, true, 0, 1, 'u3', 3),
  },
);

export const valArb: fc.Arbitrary<Val> = fc.record({
  value: whereValue,
  // One value in five is a `?` placeholder.
  param: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  from: fc.option(fc.nat(), { nil: undefined, freq: 2 }),
});

export const opArb = fc.constantFrom<Op>('=', '=', '!=', '<>', '<', '<=', '>', '>=');

export const patternArb: fc.Arbitrary<Val> = fc.record({
  value: fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(
        '%',
        'a%',
        '%a',
        '_',
        'a_',
        '%b%',
        'A%',
        '',
        '\u0000%',
        '😀',
        '_%',
        'a\\%',
        'a%b',
      ),
    },
    { weight: 1, arbitrary: fc.constant(null) },
  ),
  param: fc.boolean(),
});

export const leafArb: fc.Arbitrary<Where> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('cmp' as const),
      path: wherePath,
      op: opArb,
      val: valArb,
      valueFirst: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('paths' as const),
      left: wherePath,
      op: opArb,
      right: wherePath,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('in' as const),
      path: wherePath,
      vals: fc.array(valArb, { minLength: 1, maxLength: 4 }),
      not: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ k: fc.constant('null' as const), path: wherePath, not: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('like' as const),
      path: wherePath,
      pattern: patternArb,
      ci: fc.boolean(),
      not: fc.boolean(),
    }),
  },
);

export function whereOfDepth(depth: number): fc.Arbitrary<Where> {
  if (depth === 0) return leafArb;
  const sub = whereOfDepth(depth - 1);
  return fc.oneof(
    { weight: 4, arbitrary: leafArb },
    { weight: 3, arbitrary: fc.record({ k: fc.constant('and' as const), left: sub, right: sub }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('or' as const), left: sub, right: sub }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('not' as const), inner: sub }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant('paren' as const), inner: sub }) },
  );
}

/** SQL text of a literal value. */
export function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (typeof value === 'boolean') return String(value);
  throw new Error(`no literal for ${JSON.stringify(value)}`);
}

/** The WHERE text and its parameters, in order of appearance. */
export function render(w: Where, params: unknown[], options: { notLike: boolean }): string {
  const val = (v: Val) => {
    if (!v.param) return literal(v.value);
    params.push(v.value);
    return '?';
  };
  switch (w.k) {
    case 'cmp':
      return w.valueFirst ? `${val(w.val)} ${w.op} ${w.path}` : `${w.path} ${w.op} ${val(w.val)}`;
    case 'paths':
      return `${w.left} ${w.op} ${w.right}`;
    case 'in':
      return `${w.path} ${w.not ? 'NOT ' : ''}IN (${w.vals.map(val).join(', ')})`;
    case 'null':
      return `${w.path} IS ${w.not ? 'NOT ' : ''}NULL`;
    case 'like': {
      const like = `${w.ci ? 'ILIKE' : 'LIKE'} ${val(w.pattern)}`;
      if (!w.not) return `${w.path} ${like}`;
      // `x NOT LIKE p` and `NOT (x LIKE p)` are the same (once a bug: see `regressions`).
      return options.notLike ? `${w.path} NOT ${like}` : `NOT (${w.path} ${like})`;
    }
    case 'and':
    case 'or': {
      // AND binds tighter than OR: an OR under an AND needs its parentheses.
      const side = (c: Where) => {
        const text = render(c, params, options);
        return w.k === 'and' && c.k === 'or' ? `(${text})` : text;
      };
      const left = side(w.left);
      return `${left} ${w.k.toUpperCase()} ${side(w.right)}`;
    }
    case 'not':
      return `NOT (${render(w.inner, params, options)})`;
    case 'paren':
      return `(${render(w.inner, params, options)})`;
  }
}

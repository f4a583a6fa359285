/**
 * Proves that compareValues is the total order of DESIGN §3: a total order on random JSON
 * values (reflexive, antisymmetric, transitive), ranked missing/null < false < true < numbers
 * < strings < arrays < objects, numbers by numeric value (1 = 1.0, -0 = 0) and strings by
 * Unicode code point, which compareStrings must give for every pair of well-formed strings.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareStrings, compareValues, isScalar, typeRank } from './value-order.js';

/** Reference order: compare the code point sequences, shorter first on a common prefix. */
function codePointCompare(a: string, b: string): number {
  const ca = [...a].map((c) => c.codePointAt(0) as number);
  const cb = [...b].map((c) => c.codePointAt(0) as number);
  const n = Math.min(ca.length, cb.length);
  for (let i = 0; i < n; i++) {
    const x = ca[i] as number;
    const y = cb[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return Math.sign(ca.length - cb.length);
}

/** Characters where UTF-16 code-unit order and code point order disagree, and neighbours. */
const trickyChar = fc.constantFrom(
  '\u0000',
  'a',
  'z',
  '\u007f',
  '\u0080',
  '\u07ff',
  '\u0800',
  '\ud7ff',
  '\ue000',
  '\uf8ff',
  '\ufb01',
  '\ufffd',
  '\uffff',
  '\u{10000}',
  '😀',
  '😁',
  '\u{1f9ff}',
  '\u{10ffff}',
);

/** Well-formed strings (no lone surrogates), weighted towards the tricky characters. */
const stringArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: trickyChar, maxLength: 6 }),
);

const numberArb = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0, -0, 1, 1.0, -1, 0.1, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE),
);

const scalarArb = fc.oneof(fc.constant(null), fc.boolean(), numberArb, stringArb);

/** JSON values of every rank, small and often equal to each other. */
const valueArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArb,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'é', '😀'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

const sign = (n: number): number => (n > 0 ? 1 : n < 0 ? -1 : 0);

describe('compareValues is a total order', () => {
  it('is reflexive: every value equals itself and a deep copy of itself', () => {
    fc.assert(
      fc.property(valueArb, (a) => {
        expect(compareValues(a, a)).toBe(0);
        expect(compareValues(a, structuredClone(a))).toBe(0);
      }),
      { numRuns: 500 },
    );
  });

  it('is antisymmetric: compare(a, b) and compare(b, a) have opposite signs', () => {
    fc.assert(
      fc.property(valueArb, valueArb, (a, b) => {
        expect(sign(compareValues(a, b)) + sign(compareValues(b, a))).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  it('is transitive on random triples', () => {
    fc.assert(
      fc.property(valueArb, valueArb, valueArb, (a, b, c) => {
        const [x, y, z] = [a, b, c].sort(compareValues);
        expect(compareValues(x, y)).toBeLessThanOrEqual(0);
        expect(compareValues(y, z)).toBeLessThanOrEqual(0);
        expect(compareValues(x, z)).toBeLessThanOrEqual(0);
        // Equality is transitive too: a = b and b = c give a = c.
        if (compareValues(x, y) === 0 && compareValues(y, z) === 0) {
          expect(compareValues(x, z)).toBe(0);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('sorting is independent of the input order (a total order has one sorted form)', () => {
    fc.assert(
      fc.property(fc.array(scalarArb, { maxLength: 12 }), (values) => {
        const sorted = [...values].sort(compareValues);
        const reversed = [...values].reverse().sort(compareValues);
        for (let i = 0; i < sorted.length; i++) {
          expect(compareValues(sorted[i], reversed[i])).toBe(0);
        }
      }),
    );
  });
});

describe('type ranks (DESIGN §3)', () => {
  it('orders missing/null < false < true < numbers < strings < arrays < objects', () => {
    const ladder: unknown[] = [
      null,
      false,
      true,
      -Number.MAX_VALUE,
      0,
      Number.MAX_VALUE,
      '',
      '\u{10ffff}',
      [],
      [null],
      {},
      { a: 1 },
    ];
    for (let i = 0; i < ladder.length; i++) {
      for (let j = 0; j < ladder.length; j++) {
        expect(sign(compareValues(ladder[i], ladder[j])), `${i} vs ${j}`).toBe(sign(i - j));
      }
    }
  });

  it('ranks missing (undefined) with null', () => {
    expect(typeRank(undefined)).toBe(typeRank(null));
    expect(compareValues(undefined, null)).toBe(0);
    expect(compareValues(undefined, false)).toBeLessThan(0);
  });

  it('gives every type its own rank, in the documented order', () => {
    expect([null, false, true, 1, 'a', [], {}].map(typeRank)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('orders across types by rank alone, whatever the values', () => {
    fc.assert(
      fc.property(valueArb, valueArb, (a, b) => {
        if (typeRank(a) !== typeRank(b)) {
          expect(sign(compareValues(a, b))).toBe(sign(typeRank(a) - typeRank(b)));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('numbers', () => {
  it('compare numerically; 1 = 1.0 and -0 = 0', () => {
    expect(compareValues(1, 1.0)).toBe(0);
    expect(compareValues(-0, 0)).toBe(0);
    expect(compareValues(2, 10)).toBeLessThan(0);
    expect(compareValues(-1, -0.5)).toBeLessThan(0);
    expect(compareValues(Number.MIN_VALUE, 0)).toBeGreaterThan(0);
    expect(compareValues(-Number.MIN_VALUE, -0)).toBeLessThan(0);
  });

  it('agree with < on random finite numbers', () => {
    fc.assert(
      fc.property(numberArb, numberArb, (a, b) => {
        expect(sign(compareValues(a, b))).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('strings', () => {
  it('compare by code point, not by UTF-16 code unit', () => {
    // In UTF-16, '😀' is D83D DE00, below U+FFFF; by code point it is above.
    expect('\uffff' < '😀').toBe(false);
    expect(compareValues('\uffff', '😀')).toBeLessThan(0);
    expect(compareValues('\ue000', '\u{10000}')).toBeLessThan(0);
    expect(compareValues('\ufffd', '\u{10ffff}')).toBeLessThan(0);
    expect(compareValues('\ud7ff', '\ue000')).toBeLessThan(0);
  });

  it('are case-sensitive, shorter first on a common prefix', () => {
    expect(compareValues('B', 'a')).toBeLessThan(0);
    expect(compareValues('a', 'ab')).toBeLessThan(0);
    expect(compareValues('', '\u0000')).toBeLessThan(0);
    expect(compareValues('a\u0000', 'a')).toBeGreaterThan(0);
  });

  it('compareStrings matches a reference built from code points', () => {
    fc.assert(
      fc.property(stringArb, stringArb, (a, b) => {
        expect(sign(compareStrings(a, b))).toBe(codePointCompare(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('compareStrings matches the reference on strings sharing a prefix', () => {
    fc.assert(
      fc.property(stringArb, stringArb, stringArb, (prefix, a, b) => {
        expect(sign(compareStrings(prefix + a, prefix + b))).toBe(
          codePointCompare(prefix + a, prefix + b),
        );
      }),
      { numRuns: 1000 },
    );
  });
});

describe('arrays and objects', () => {
  it('arrays compare element by element, shorter first', () => {
    expect(compareValues([1, 2], [1, 3])).toBeLessThan(0);
    expect(compareValues([1], [1, null])).toBeLessThan(0);
    expect(compareValues([2], [1, 9])).toBeGreaterThan(0);
    expect(compareValues([1.0, 'a'], [1, 'a'])).toBe(0);
  });

  it('objects compare the same whatever the order of their keys', () => {
    expect(compareValues({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(0);
    expect(compareValues({ a: 1 }, { a: 1, b: 0 })).toBeLessThan(0);
    expect(compareValues({ a: 2 }, { a: 1, b: 0 })).toBeGreaterThan(0);
  });
});

describe('isScalar', () => {
  it('accepts null, booleans, finite numbers and strings; nothing else', () => {
    for (const v of [null, true, false, 0, -0, 1.5, '', 'x']) expect(isScalar(v)).toBe(true);
    for (const v of [undefined, Number.NaN, Infinity, -Infinity, [], {}, [1], { a: 1 }]) {
      expect(isScalar(v)).toBe(false);
    }
  });
});

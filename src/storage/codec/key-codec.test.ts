/**
 * Proves that index keys sort as values do: for scalars and tuples of 1–3 scalars the byte
 * order of encodeTuple equals the order of util/value-order (equal values encode equal),
 * arrays and objects encode to nothing, and an encoding past KEY_VALUE_BYTES_MAX is cut to
 * that length and flagged `truncated`, without breaking the order. Pins a few byte layouts.
 */

import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { compareValues } from '../../util/value-order.js';
import {
  encodeTuple,
  KEY_VALUE_BYTES_MAX,
  TAG_FALSE,
  TAG_NULL,
  TAG_NUMBER,
  TAG_STRING,
  TAG_TRUE,
  tagOf,
} from './key-codec.js';

const sign = (n: number): number => (n > 0 ? 1 : n < 0 ? -1 : 0);

function bytesOf(values: unknown[]): Buffer {
  const key = encodeTuple(values);
  if (!key) throw new Error(`encodeTuple(${JSON.stringify(values)}) gave undefined`);
  return key.bytes;
}

function hex(values: unknown[]): string {
  return bytesOf(values).toString('hex');
}

/** Tuple order: lexicographic by compareValues, a tuple before its extensions. */
function compareTuples(a: unknown[], b: unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = sign(compareValues(a[i], b[i]));
    if (c !== 0) return c;
  }
  return sign(a.length - b.length);
}

const trickyChar = fc.constantFrom(
  '\u0000',
  '\u0001',
  'a',
  'b',
  '\u007f',
  '\u0080',
  '\u07ff',
  '\u0800',
  '\ue000',
  '\uf8ff',
  '\ufffd',
  '\uffff',
  '\u{10000}',
  '😀',
  '\u{10ffff}',
);

const stringArb = fc.oneof(
  fc.constantFrom('', '\u0000', 'a', 'a\u0000', 'a\u0000b', '\uffff', '😀', '\ue000'),
  fc.string({ unit: trickyChar, maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
);

const numberArb = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(
    0,
    -0,
    1,
    1.0,
    -1,
    1.5,
    0.1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e-300,
    -1e-300,
    1e300,
    -1e300,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.EPSILON,
  ),
);

const scalarArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  numberArb,
  stringArb,
);

/** Pairs that are often equal or close: same value, shared prefix, neighbouring numbers. */
const nearPairArb: fc.Arbitrary<[unknown, unknown]> = fc.oneof(
  fc.tuple(scalarArb, scalarArb),
  scalarArb.map((a): [unknown, unknown] => [a, a]),
  fc.tuple(stringArb, stringArb, stringArb).map(([p, a, b]): [unknown, unknown] => [p + a, p + b]),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x): [unknown, unknown] => {
    const scratch = new Float64Array([x]);
    const bits = new BigInt64Array(scratch.buffer);
    bits[0] = (bits[0] as bigint) + 1n;
    const next = scratch[0] as number;
    return [x, Number.isFinite(next) ? next : x];
  }),
);

const tupleArb = fc.array(scalarArb, { minLength: 1, maxLength: 3 });

/** Tuples that often share leading values, so later positions decide. */
const nearTuplePairArb: fc.Arbitrary<[unknown[], unknown[]]> = fc.oneof(
  fc.tuple(tupleArb, tupleArb),
  fc
    .tuple(fc.array(scalarArb, { maxLength: 2 }), nearPairArb, tupleArb, tupleArb)
    .map(([head, [a, b], ta, tb]): [unknown[], unknown[]] => [
      [...head, a, ...ta].slice(0, 3),
      [...head, b, ...tb].slice(0, 3),
    ]),
);

describe('byte order equals value order', () => {
  it('for single scalars', () => {
    fc.assert(
      fc.property(nearPairArb, ([a, b]) => {
        const byBytes = sign(Buffer.compare(bytesOf([a]), bytesOf([b])));
        expect(byBytes).toBe(sign(compareValues(a, b)));
      }),
      { numRuns: 3000 },
    );
  });

  it('for tuples of 1–3 scalars (lexicographic by compareValues)', () => {
    fc.assert(
      fc.property(nearTuplePairArb, ([a, b]) => {
        const byBytes = sign(Buffer.compare(bytesOf(a), bytesOf(b)));
        expect(byBytes).toBe(compareTuples(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('sorting by bytes and sorting by value give the same order', () => {
    fc.assert(
      fc.property(fc.array(scalarArb, { maxLength: 20 }), (values) => {
        const byValue = [...values].sort(compareValues).map((v) => hex([v]));
        const byBytes = values.map((v) => bytesOf([v])).sort(Buffer.compare);
        expect(byBytes.map((b) => b.toString('hex'))).toEqual(byValue);
      }),
      { numRuns: 500 },
    );
  });

  it('pins the cases that break naive encodings', () => {
    const ascending: unknown[] = [
      null,
      false,
      true,
      -Number.MAX_VALUE,
      -1,
      -Number.MIN_VALUE,
      0,
      Number.MIN_VALUE,
      1,
      1.5,
      2,
      Number.MAX_VALUE,
      '',
      '\u0000',
      '\u0000\u0000',
      '\u0001',
      'a',
      'a\u0000',
      'a\u0000b',
      'a\u0001',
      'ab',
      'b',
      '\ue000',
      '\uffff',
      '😀',
      '\u{10ffff}',
    ];
    for (let i = 1; i < ascending.length; i++) {
      const lo = bytesOf([ascending[i - 1]]);
      const hi = bytesOf([ascending[i]]);
      expect(Buffer.compare(lo, hi), `${JSON.stringify(ascending.slice(i - 1, i + 1))}`).toBe(-1);
    }
  });
});

describe('equal values encode equal', () => {
  it('1 and 1.0, -0 and 0, undefined (missing) and null', () => {
    expect(hex([1])).toBe(hex([1.0]));
    expect(hex([-0])).toBe(hex([0]));
    expect(hex([undefined])).toBe(hex([null]));
    expect(hex(['x', -0, undefined])).toBe(hex(['x', 0, null]));
  });

  it('values that compare equal have identical bytes, and only they', () => {
    fc.assert(
      fc.property(nearPairArb, ([a, b]) => {
        expect(bytesOf([a]).equals(bytesOf([b]))).toBe(compareValues(a, b) === 0);
      }),
      { numRuns: 2000 },
    );
  });

  it('is deterministic: encoding twice gives the same bytes', () => {
    fc.assert(
      fc.property(tupleArb, (t) => {
        expect(bytesOf(t).equals(bytesOf(t))).toBe(true);
      }),
    );
  });
});

describe('values an index cannot hold', () => {
  it('arrays and objects return undefined, alone or anywhere in a tuple', () => {
    expect(encodeTuple([[]])).toBeUndefined();
    expect(encodeTuple([[1]])).toBeUndefined();
    expect(encodeTuple([{}])).toBeUndefined();
    expect(encodeTuple([{ a: 1 }])).toBeUndefined();
    expect(encodeTuple(['a', [1]])).toBeUndefined();
    expect(encodeTuple([1, 'a', { b: null }])).toBeUndefined();
  });

  it('non-finite numbers return undefined', () => {
    expect(encodeTuple([Number.NaN])).toBeUndefined();
    expect(encodeTuple([Infinity])).toBeUndefined();
    expect(encodeTuple([1, -Infinity])).toBeUndefined();
  });

  it('any tuple holding a non-scalar returns undefined', () => {
    const nonScalar = fc.oneof(
      fc.array(scalarArb, { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 2 }), scalarArb, { maxKeys: 2 }),
    );
    fc.assert(
      fc.property(tupleArb, nonScalar, fc.nat(3), (tuple, bad, at) => {
        const values = [...tuple];
        values.splice(at % (values.length + 1), 0, bad);
        expect(encodeTuple(values)).toBeUndefined();
      }),
    );
  });
});

describe('truncation at KEY_VALUE_BYTES_MAX', () => {
  // A string takes its tag, its UTF-8 bytes and a two-byte terminator.
  const stringOfBytes = (total: number): string => 'x'.repeat(total - 3);

  it('keeps an encoding of exactly KEY_VALUE_BYTES_MAX bytes whole', () => {
    const key = encodeTuple([stringOfBytes(KEY_VALUE_BYTES_MAX)]);
    expect(key?.truncated).toBe(false);
    expect(key?.bytes.length).toBe(KEY_VALUE_BYTES_MAX);
  });

  it('cuts an encoding one byte past the limit and flags it', () => {
    const value = stringOfBytes(KEY_VALUE_BYTES_MAX + 1);
    const key = encodeTuple([value]);
    expect(key?.truncated).toBe(true);
    expect(key?.bytes.length).toBe(KEY_VALUE_BYTES_MAX);
    expect(key?.bytes.toString('hex')).toBe(
      Buffer.concat([Buffer.from([TAG_STRING]), Buffer.from(value), Buffer.from([0, 0])])
        .subarray(0, KEY_VALUE_BYTES_MAX)
        .toString('hex'),
    );
  });

  it('counts a tuple as a whole: a long first value cuts off the later ones', () => {
    // The string fills all but one byte; the number keeps only its tag.
    const long = stringOfBytes(KEY_VALUE_BYTES_MAX - 1);
    const whole = encodeTuple([long, 1]);
    expect(whole?.truncated).toBe(true);
    expect(whole?.bytes.equals(bytesOf([long, 2]))).toBe(true);
    expect(encodeTuple([long, null])?.truncated).toBe(false);
  });

  it('cuts multi-byte characters and escaped NULs at the byte limit', () => {
    const key = encodeTuple(['😀'.repeat(300)]);
    expect(key?.truncated).toBe(true);
    expect(key?.bytes.length).toBe(KEY_VALUE_BYTES_MAX);
    const nuls = encodeTuple(['\u0000'.repeat(600)]);
    expect(nuls?.truncated).toBe(true);
    expect(nuls?.bytes.length).toBe(KEY_VALUE_BYTES_MAX);
  });

  it('flags exactly the encodings past the limit, and keeps their first bytes', () => {
    const longString = fc
      .tuple(fc.string({ unit: trickyChar, maxLength: 8 }), fc.integer({ min: 0, max: 700 }))
      .map(([s, n]) => s.repeat(n));
    fc.assert(
      fc.property(longString, fc.option(scalarArb, { nil: undefined }), (s, tail) => {
        const values = tail === undefined ? [s] : [s, tail];
        const key = encodeTuple(values) as { bytes: Buffer; truncated: boolean };
        const full = fullEncoding(values);
        expect(key.truncated).toBe(full.length > KEY_VALUE_BYTES_MAX);
        expect(key.bytes.equals(full.subarray(0, KEY_VALUE_BYTES_MAX))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('truncated keys keep the order, weakly: a ≤ b gives key(a) ≤ key(b)', () => {
    const prefix = 'p'.repeat(KEY_VALUE_BYTES_MAX - 10);
    fc.assert(
      fc.property(stringArb, stringArb, (a, b) => {
        const [x, y] = compareValues(prefix + a, prefix + b) <= 0 ? [a, b] : [b, a];
        expect(Buffer.compare(bytesOf([prefix + x]), bytesOf([prefix + y]))).toBeLessThanOrEqual(0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the scratch buffer', () => {
  // Was: encodeTuple wrote into a module-level scratch buffer that `ensure` replaces with
  // a bigger, uninitialised one when a string does not fit (it reserves 6 bytes per UTF-16
  // unit), without copying the bytes already written for the tuple's earlier values. So
  // whenever a tuple needs more room than any tuple before it in the process, and a value
  // precedes the long string, the key starts with garbage: in a fresh process the entry of
  // a composite index (n, s) for { n: 1, s: <2,000 chars> } is stored under a wrong key, and
  // that document is missing from every lookup through the index until a rebuild.
  // A fresh module instance stands for a fresh process.
  it('keeps the earlier values of a tuple when it grows', async () => {
    vi.resetModules();
    const fresh = await import('./key-codec.js');
    const long = 'y'.repeat(2000);
    const first = fresh.encodeTuple([1, long]) as { bytes: Buffer };
    const again = fresh.encodeTuple([1, long]) as { bytes: Buffer };
    expect(first.bytes.subarray(0, 9).toString('hex')).toBe('04bff0000000000000');
    expect(first.bytes.equals(again.bytes)).toBe(true);
  });

  it('gives the right bytes for a long tuple once the buffer has grown past its need', () => {
    encodeTuple(['y'.repeat(20_000)]);
    const long = 'y'.repeat(5000);
    expect(hex([1, long]).slice(0, 18)).toBe('04bff0000000000000');
    expect(hex([1, long])).toBe(
      fullEncoding([1, long]).subarray(0, KEY_VALUE_BYTES_MAX).toString('hex'),
    );
  });
});

/** Builds the untruncated encoding independently, from the documented layout. */
function fullEncoding(values: unknown[]): Buffer {
  const parts: Buffer[] = [];
  for (const v of values) {
    if (v === null || v === undefined) parts.push(Buffer.from([TAG_NULL]));
    else if (v === false) parts.push(Buffer.from([TAG_FALSE]));
    else if (v === true) parts.push(Buffer.from([TAG_TRUE]));
    else if (typeof v === 'number') parts.push(bytesOf([v]));
    else {
      const utf8 = Buffer.from(v as string, 'utf8');
      const escaped = [...utf8].flatMap((byte) => (byte === 0 ? [0, 0xff] : [byte]));
      parts.push(Buffer.from([TAG_STRING, ...escaped, 0, 0]));
    }
  }
  return Buffer.concat(parts);
}

describe('byte layouts', () => {
  it('null, false and true are one tag byte', () => {
    expect(hex([null])).toBe('01');
    expect(hex([false])).toBe('02');
    expect(hex([true])).toBe('03');
  });

  it('numbers are a tag and IEEE-754 big-endian with the sign bit flipped, negatives inverted', () => {
    expect(hex([0])).toBe('048000000000000000');
    expect(hex([-0])).toBe('048000000000000000');
    expect(hex([1])).toBe('04bff0000000000000');
    expect(hex([-1])).toBe('04400fffffffffffff');
    expect(hex([2])).toBe('04c000000000000000');
    expect(hex([-2])).toBe('043fffffffffffffff');
    expect(hex([Number.MIN_VALUE])).toBe('048000000000000001');
  });

  it('strings are a tag, UTF-8 with 00 escaped as 00 ff, and a 00 00 terminator', () => {
    expect(hex([''])).toBe('050000');
    expect(hex(['a'])).toBe('05610000');
    expect(hex(['a\u0000b'])).toBe('056100ff620000');
    expect(hex(['é'])).toBe('05c3a90000');
    expect(hex(['😀'])).toBe('05f09f98800000');
    expect(hex(['\uffff'])).toBe('05efbfbf0000');
  });

  it('a tuple is its values’ encodings one after another', () => {
    expect(hex(['a', 1, null])).toBe('05610000' + '04bff0000000000000' + '01');
    expect(hex([true, false])).toBe('0302');
    expect(encodeTuple([])).toEqual({ bytes: Buffer.alloc(0), truncated: false });
  });

  it('tagOf gives the first byte of every encoding of a type', () => {
    fc.assert(
      fc.property(scalarArb, (v) => {
        expect(tagOf(v)).toBe(bytesOf([v])[0]);
      }),
    );
    expect([undefined, null, false, true, 3, 's'].map(tagOf)).toEqual([
      TAG_NULL,
      TAG_NULL,
      TAG_FALSE,
      TAG_TRUE,
      TAG_NUMBER,
      TAG_STRING,
    ]);
  });
});

/**
 * The JSON text written from a stored document's bytes is `JSON.stringify` of the document
 * as msgpackr decodes it, with `_id` in front (and of its projection), byte for byte: random
 * documents with every string form (astral, lone surrogates, controls, quotes, backslashes,
 * 0xED-led UTF-8), numbers at the edges, deep nesting, empty containers, structure ids past
 * 31 (two-byte ids), keys JSON.stringify reorders, and forms msgpackr reads but never writes
 * for a document (float32, 64-bit integers, NaN). Plain documents must not fall back.
 * Doubles with few decimal places, written from integers, equal `String()`; NDJSON lines
 * appended in place equal the texts joined, the id written from its stored bytes.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatId,
  type JsonPath,
  newId,
  parsePath,
  SHARED_STRUCTURES_MAX,
  valueAt,
} from '../../util/index.js';
import { type JsonLineBuffer, JsonProjection } from './json-transcode.js';
import { DocumentCodec } from './value-codec.js';

const ID = '0190a2b4-6c1e-7d2a-9f00-0123456789ab';

const PLAIN_FIELDS = ['a', 'b', 'status', 'fare', 'to', 'x', 'ключ', 'q"uote', 'back\\slash', ''];
const ODD_FIELDS = ['__proto__', '__proto_', '_id', '1', '10', '0a', '\u0001ctl'];

const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  31,
  32,
  -32,
  -33,
  63,
  64,
  127,
  128,
  -128,
  -129,
  255,
  256,
  65535,
  65536,
  -32768,
  -32769,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32 - 1,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER,
  2 ** 53,
  2 ** 63,
  -(2 ** 63),
  2 ** 64,
  1e21,
  1e-7,
  5e-324,
  Number.MAX_VALUE,
  -Number.MIN_VALUE,
  0.1,
  1 / 3,
  -1.5e300,
];

const EDGE_STRINGS = [
  '',
  '"',
  '\\',
  '\u0000\u0001\u001f\u007f',
  '\b\f\n\r\t',
  '\u2028\u2029',
  '😀 astral 𝄞',
  '\ud800',
  'x\udfffy',
  '퀀 (U+D000, led by 0xED)',
  'naïve',
  'ascii only, 31 bytes long......',
  'a'.repeat(32),
  'é'.repeat(200),
  'z'.repeat(70_000),
];

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...EDGE_NUMBERS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.maxSafeInteger(),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom(...EDGE_STRINGS),
);

function documents(fields: string[]) {
  return fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('doc')),
    array: fc.array(tie('value'), { maxLength: 5 }),
    doc: fc.dictionary(fc.constantFrom(...fields), tie('value'), { maxKeys: 7 }),
  })).doc;
}

const plainDocument = documents(PLAIN_FIELDS);
const anyDocument = documents([...PLAIN_FIELDS, ...ODD_FIELDS]);

/** A document nested `depth` levels: arrays and objects in turn. */
function deep(depth: number): Record<string, unknown> {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value, i] : { a: value, n: i };
  return { top: value };
}

/** What a served read answers today: the decoded document with `_id` in front. */
function expected(codec: DocumentCodec, bytes: Uint8Array): string {
  return JSON.stringify({ _id: ID, ...codec.decode<Record<string, unknown>>(bytes) });
}

/** The transcoded text of `bytes` inside a longer shared buffer, as LMDB hands them. */
function transcoded(
  codec: DocumentCodec,
  bytes: Uint8Array,
  projection?: JsonProjection,
): string | undefined {
  const padded = new Uint8Array(bytes.length + 9);
  padded.set(bytes);
  padded.fill(0xc1, bytes.length);
  return codec.documentJson(Buffer.from(padded.buffer), bytes.length, ID, projection);
}

/** The executor's projection of one document (project.ts), as the reference. */
function projectedReference(
  document: Record<string, unknown>,
  keepId: boolean,
  columns: { name: string; path: JsonPath }[],
): string {
  const out: Record<string, unknown> = {};
  if (keepId) out._id = document._id;
  for (const column of columns) {
    const value = valueAt(document, column.path);
    out[column.name] = value === undefined ? null : value;
  }
  return JSON.stringify(out);
}

describe('JSON straight from the stored bytes', () => {
  it('equals JSON.stringify of the decoded document, and never falls back on plain keys', () => {
    const codec = new DocumentCodec([]);
    fc.assert(
      fc.property(plainDocument, (document) => {
        // Past the shared limit msgpackr defines records inline, which the transcoder leaves.
        if (codec.structureCount >= SHARED_STRUCTURES_MAX - 200) codec.reset([]);
        const bytes = codec.encode(document, () => {});
        const text = transcoded(codec, bytes);
        expect(text).toBeDefined();
        expect(text).toBe(expected(codec, bytes));
      }),
      { numRuns: 1500 },
    );
  });

  it('equals it on any keys too (falling back where JSON.stringify reorders them)', () => {
    const codec = new DocumentCodec([]);
    fc.assert(
      fc.property(anyDocument, (document) => {
        const bytes = codec.encode(document, () => {});
        const text = transcoded(codec, bytes) ?? expected(codec, bytes);
        expect(text).toBe(expected(codec, bytes));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads records past the one-byte structure ids', () => {
    const codec = new DocumentCodec([]);
    for (let i = 0; i < 300; i++) {
      const document = { [`f${i}`]: i, a: { [`g${i % 70}`]: [i, { to: 'é', n: -i }] }, s: 'x' };
      const bytes = codec.encode(document, () => {});
      expect(transcoded(codec, bytes)).toBe(expected(codec, bytes));
    }
    expect(codec.structureCount).toBeGreaterThan(64);
  });

  it('writes deep nesting and empty containers', () => {
    const codec = new DocumentCodec([]);
    for (const document of [{}, { a: {} }, { a: [] }, { a: [[], {}, [{}]] }, deep(60)]) {
      const bytes = codec.encode(document, () => {});
      expect(transcoded(codec, bytes)).toBe(expected(codec, bytes));
    }
  });

  it('writes forms msgpackr reads but never writes for a document', () => {
    const codec = new DocumentCodec([]);
    const map = (value: number[]) => Buffer.from([0x81, 0xa1, 0x61, ...value]);
    const f32 = (x: number) => {
      const b = Buffer.alloc(5);
      b[0] = 0xca;
      b.writeFloatBE(x, 1);
      return [...b];
    };
    const f64 = (x: number) => {
      const b = Buffer.alloc(9);
      b[0] = 0xcb;
      b.writeDoubleBE(x, 1);
      return [...b];
    };
    const i64 = (token: number, x: bigint) => {
      const b = Buffer.alloc(9);
      b[0] = token;
      if (token === 0xcf) b.writeBigUInt64BE(x, 1);
      else b.writeBigInt64BE(x, 1);
      return [...b];
    };
    const cases = [
      f32(0.1),
      f32(-3.5),
      f32(1e38),
      f64(Number.NaN),
      f64(Number.POSITIVE_INFINITY),
      f64(-0),
      i64(0xcf, 2n ** 64n - 1n),
      i64(0xcf, 2n ** 53n + 1n),
      i64(0xd3, -(2n ** 63n)),
      i64(0xd3, -(2n ** 53n) - 3n),
    ];
    for (const value of cases) {
      const bytes = map(value);
      expect(transcoded(codec, bytes)).toBe(expected(codec, bytes));
    }
  });

  it('gives up on a form it does not write, and on trailing bytes', () => {
    const codec = new DocumentCodec([]);
    // An ext value (msgpackr's undefined) and a record id with no structure.
    expect(codec.documentJson(Buffer.from([0x81, 0xa1, 0x61, 0xd4, 0, 0]), 6, ID)).toBe(undefined);
    expect(codec.documentJson(Buffer.from([0x81, 0xa1, 0x61, 0x45]), 4, ID)).toBe(undefined);
    expect(codec.documentJson(Buffer.from([0x80, 0x01]), 2, ID)).toBe(undefined);
  });

  it('applies a projection as the executor does', () => {
    const codec = new DocumentCodec([]);
    const pathText = fc
      .tuple(
        fc.constantFrom(...PLAIN_FIELDS.filter((f) => !/[.[\]\s"'`]/.test(f) && f !== ''), '_id'),
        fc.array(
          fc.oneof(
            fc.constantFrom('a', 'b', 'to', 'x', 'ключ').map((f) => `.${f}`),
            fc.nat({ max: 4 }).map((n) => `[${n}]`),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([first, rest]) => first + rest.join(''));
    const columns = fc.array(
      fc.record({
        name: fc.constantFrom('a', 'x', 'total', 'b.c', 'ключ', '1', '_id'),
        path: pathText,
      }),
      { maxLength: 5 },
    );
    fc.assert(
      fc.property(anyDocument, columns, fc.boolean(), (document, texts, keepId) => {
        const parsed = texts.map((c) => ({ name: c.name, path: parsePath(c.path) }));
        const projection = new JsonProjection(keepId, parsed, () => undefined);
        const bytes = codec.encode(document, () => {});
        const whole = { _id: ID, ...codec.decode<Record<string, unknown>>(bytes) };
        const reference = projectedReference(whole, keepId, parsed);
        expect(transcoded(codec, bytes, projection) ?? reference).toBe(reference);
      }),
      { numRuns: 1500 },
    );
  });

  it('projects plain columns without falling back', () => {
    const codec = new DocumentCodec([]);
    const document = { a: { b: [1, { c: 'é' }] }, s: 'x', n: 2.5 };
    const bytes = codec.encode(document, () => {});
    const columns = ['a.b[1].c', 'n', 'missing', 's[0]', 'a.b', '_id'].map((text, k) => ({
      name: `c${k}`,
      path: parsePath(text),
    }));
    expect(transcoded(codec, bytes, new JsonProjection(true, columns, () => undefined))).toBe(
      JSON.stringify({
        _id: ID,
        c0: 'é',
        c1: 2.5,
        c2: null,
        c3: null,
        c4: [1, { c: 'é' }],
        c5: ID,
      }),
    );
  });

  it('writes doubles of few decimal places as String() does', () => {
    const codec = new DocumentCodec([]);
    const edges = [
      0.5,
      -0.5,
      0.0001,
      -0.0001,
      0.00015,
      0.00001,
      1.005,
      123.45,
      1619.83,
      0.1 + 0.2,
      999_999_999.9999,
      -999_999_999.9999,
      1e9 + 0.5,
      2 ** 31 + 0.25,
      1234.5678,
      1234.56789,
    ];
    const fewPlaces = fc
      .tuple(fc.integer(), fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 6 }))
      .map(([high, low, places]) => (high * 100_000 + low) / 10 ** places);
    const value = fc.oneof(fewPlaces, fc.constantFrom(...edges), fc.double({ noNaN: true }));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 8 }), (values) => {
        const bytes = codec.encode({ values }, () => {});
        expect(transcoded(codec, bytes)).toBe(expected(codec, bytes));
      }),
      { numRuns: 3000 },
    );
  });

  it('appends NDJSON lines in place, the id from its stored bytes', () => {
    const codec = new DocumentCodec([]);
    fc.assert(
      fc.property(fc.array(plainDocument, { maxLength: 6 }), (docs) => {
        if (codec.structureCount >= SHARED_STRUCTURES_MAX - 200) codec.reset([]);
        // A small buffer: lines past it grow it, keeping the lines already written.
        const lines: JsonLineBuffer = { bytes: Buffer.alloc(8), length: 0 };
        let want = '';
        for (const document of docs) {
          const id = newId();
          const bytes = codec.encode(document, () => {});
          const padded = Buffer.concat([bytes, Buffer.alloc(5, 0xc1)]);
          expect(codec.documentLine(lines, padded, bytes.length, id)).toBe(true);
          want += `${JSON.stringify({ _id: formatId(id), ...codec.decode<object>(bytes) })}\n`;
        }
        expect(lines.bytes.toString('utf8', 0, lines.length)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('appends nothing where it gives up, and projects lines as documents', () => {
    const codec = new DocumentCodec([]);
    const id = newId();
    const lines: JsonLineBuffer = { bytes: Buffer.alloc(64), length: 0 };
    const plain = codec.encode({ a: 1, b: 'x' }, () => {});
    expect(codec.documentLine(lines, plain, plain.length, id)).toBe(true);
    const written = lines.length;
    const ext = Buffer.from([0x81, 0xa1, 0x61, 0xd4, 0, 0]);
    expect(codec.documentLine(lines, ext, ext.length, id)).toBe(false);
    expect(codec.documentLine(lines, plain, plain.length, id.subarray(0, 15))).toBe(false);
    expect(lines.length).toBe(written);
    const projection = new JsonProjection(true, [{ name: 'b', path: parsePath('b') }], () => {});
    expect(codec.documentLine(lines, plain, plain.length, id, projection)).toBe(true);
    const text = lines.bytes.toString('utf8', 0, lines.length);
    const _id = formatId(id);
    expect(text).toBe(
      `${JSON.stringify({ _id, a: 1, b: 'x' })}\n${JSON.stringify({ _id, b: 'x' })}\n`,
    );
  });
});

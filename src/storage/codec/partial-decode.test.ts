/**
 * The sparse copy a partial decode builds must answer `valueAt` for every selected path
 * exactly as the whole document does: random documents (nested records, arrays, maps past
 * the shared-structure limit, non-ASCII and lone-surrogate strings, every number form) and
 * random selections, including paths that miss.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonPath, parsePath, valueAt } from '../../util/index.js';
import { FieldSelection } from './partial-decode.js';
import { DocumentCodec } from './value-codec.js';

const FIELDS = ['a', 'b', 'status', 'fare', 'total', 'to', 'x', '__proto__', 'ключ'];

const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.maxSafeInteger(),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('\ud800', 'naïve', 'x'.repeat(70_000)),
);

const { doc } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, tie('array'), tie('doc')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  doc: fc.dictionary(fc.constantFrom(...FIELDS), tie('value'), { maxKeys: 6 }),
}));

const pathText = fc
  .tuple(
    fc.constantFrom(...FIELDS.filter((f) => f !== '__proto__')),
    fc.array(
      fc.oneof(
        fc.constantFrom(...FIELDS.filter((f) => f !== '__proto__')).map((f) => `.${f}`),
        fc.nat({ max: 5 }).map((n) => `[${n}]`),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([first, rest]) => first + rest.join(''));

function codec(): DocumentCodec {
  return new DocumentCodec([]);
}

function check(docs: unknown[], texts: string[], c = codec()): void {
  const paths: JsonPath[] = texts.map((t) => parsePath(t));
  const selection = new FieldSelection(paths);
  for (const document of docs) {
    const bytes = c.encode(document, () => {});
    const whole = c.decode(bytes);
    // LMDB hands the reader a larger shared buffer: only the first `size` bytes are the value.
    const padded = new Uint8Array(bytes.length + 7);
    padded.set(bytes);
    const part = c.decodeSelected(padded, bytes.length, selection);
    for (const path of paths) {
      expect(valueAt(part, path), `${path.text} of ${JSON.stringify(document)}`).toEqual(
        valueAt(whole, path),
      );
    }
  }
}

describe('partial decode', () => {
  it('answers every selected path as the whole document does', () => {
    fc.assert(
      fc.property(
        fc.array(doc, { minLength: 1, maxLength: 6 }),
        fc.array(pathText, { maxLength: 5 }),
        (docs, texts) => check(docs, texts),
      ),
      { numRuns: 400 },
    );
  });

  it('reads shapes past the one-byte structure ids (and gives up on them correctly)', () => {
    const c = codec();
    const docs = Array.from({ length: 80 }, (_, i) => ({
      [`f${i}`]: i,
      a: { b: `v${i}` },
      x: [i, { to: 'é' }],
    }));
    check(docs, ['a.b', 'x[1].to', 'f3', 'f70', 'x'], c);
  });

  it('selects nothing as an empty object and a whole subtree on demand', () => {
    const c = codec();
    const bytes = c.encode({ a: { b: [1, { c: 2 }] }, s: 'x' }, () => {});
    expect(c.decodeSelected(bytes, bytes.length, new FieldSelection([]))).toEqual({});
    const part = c.decodeSelected(bytes, bytes.length, new FieldSelection([parsePath('a')]));
    expect(part).toEqual({ a: { b: [1, { c: 2 }] } });
  });
});

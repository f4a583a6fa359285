/**
 * Proves the JSON path rules: parsePath accepts `a`, `a.b`, `a[0].b`, `a[2].b.c` and, only
 * with allowEach, `a[*].b`; every malformed path is a DbError ERR_PATH_INVALID whose message
 * names the problem; PATH_CHARS_MAX and PATH_SEGMENTS_MAX hold at the limit and one past it;
 * valueAt and valuesAt walk nested objects and arrays and give nothing for missing steps.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DbError } from '../errors/index.js';
import { type JsonPath, parsePath, samePath, valueAt, valuesAt } from './json-path.js';
import { PATH_CHARS_MAX, PATH_SEGMENTS_MAX } from './limits.js';

function pathError(text: unknown, options?: { allowEach?: boolean }): DbError {
  try {
    parsePath(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DbError);
    const dbError = error as DbError;
    expect(dbError.code).toBe('ERR_PATH_INVALID');
    expect(dbError.status).toBe(400);
    return dbError;
  }
  throw new Error(`parsePath(${JSON.stringify(text)}) did not throw`);
}

const p = (text: string): JsonPath => parsePath(text, { allowEach: true });

describe('parsePath accepts', () => {
  it('a single field', () => {
    expect(parsePath('a')).toEqual({
      text: 'a',
      segments: [{ kind: 'field', name: 'a' }],
      multikey: false,
    });
  });

  it('nested fields', () => {
    expect(parsePath('a.b').segments).toEqual([
      { kind: 'field', name: 'a' },
      { kind: 'field', name: 'b' },
    ]);
  });

  it('array positions between fields', () => {
    expect(parsePath('a[0].b').segments).toEqual([
      { kind: 'field', name: 'a' },
      { kind: 'index', index: 0 },
      { kind: 'field', name: 'b' },
    ]);
    expect(parsePath('a[2].b.c')).toEqual({
      text: 'a[2].b.c',
      segments: [
        { kind: 'field', name: 'a' },
        { kind: 'index', index: 2 },
        { kind: 'field', name: 'b' },
        { kind: 'field', name: 'c' },
      ],
      multikey: false,
    });
  });

  it('consecutive positions and a trailing position', () => {
    expect(parsePath('m[1][10]').segments).toEqual([
      { kind: 'field', name: 'm' },
      { kind: 'index', index: 1 },
      { kind: 'index', index: 10 },
    ]);
  });

  it('field names with digits, dashes, underscores, $ and non-ASCII letters', () => {
    for (const text of ['a1', '_x', 'first-name', '$ref', 'prénom', '😀', '0']) {
      expect(parsePath(text).segments).toEqual([{ kind: 'field', name: text }]);
    }
  });

  it('[*] with allowEach, marking the path multikey', () => {
    expect(parsePath('a[*].b', { allowEach: true })).toEqual({
      text: 'a[*].b',
      segments: [{ kind: 'field', name: 'a' }, { kind: 'each' }, { kind: 'field', name: 'b' }],
      multikey: true,
    });
    expect(parsePath('tags[*]', { allowEach: true }).multikey).toBe(true);
  });

  it('round-trips generated paths: the text is kept and segments print back to it', () => {
    const name = fc.string({
      unit: fc.constantFrom('a', 'b', 'Z', '_', '-', '1', 'é'),
      minLength: 1,
      maxLength: 5,
    });
    const step = fc.oneof(
      name.map((n) => `.${n}`),
      fc.nat(999).map((i) => `[${i}]`),
      fc.constant('[*]'),
    );
    fc.assert(
      fc.property(name, fc.array(step, { maxLength: 8 }), (head, steps) => {
        const text = head + steps.join('');
        const path = parsePath(text, { allowEach: true });
        expect(path.text).toBe(text);
        const printed = path.segments
          .map((s, i) =>
            s.kind === 'field'
              ? (i === 0 ? '' : '.') + s.name
              : s.kind === 'index'
                ? `[${s.index}]`
                : '[*]',
          )
          .join('');
        expect(printed).toBe(text);
        expect(path.multikey).toBe(steps.includes('[*]'));
      }),
    );
  });
});

describe('parsePath rejects', () => {
  it('the empty string and non-strings', () => {
    expect(pathError('').message).toMatch(/non-empty string/);
    expect(pathError(undefined).message).toMatch(/non-empty string/);
    expect(pathError(42).message).toMatch(/non-empty string/);
    expect(pathError(['a']).message).toMatch(/non-empty string/);
  });

  it("'a.' (a trailing dot)", () => {
    expect(pathError('a.').message).toMatch(/ends with a dot/);
  });

  it("'.a' (a leading dot)", () => {
    expect(pathError('.a').message).toMatch(/expected a field name at position 1/);
  });

  it("'a..b' (an empty field between dots)", () => {
    expect(pathError('a..b').message).toMatch(/expected a field name at position 3/);
  });

  it("'a[' (an unclosed bracket)", () => {
    expect(pathError('a[').message).toMatch(/'\[' at position 2 is never closed/);
    expect(pathError('a[0').message).toMatch(/never closed/);
  });

  it("'a[x]', 'a[-1]' and other non-positions", () => {
    expect(pathError('a[x]').message).toMatch(/'\[x\]' is not an array position/);
    expect(pathError('a[-1]').message).toMatch(/'\[-1\]' is not an array position/);
    for (const text of ['a[]', 'a[01]', 'a[1.5]', 'a[ 1]', 'a[1e3]', 'a[**]', 'a[1000000000]']) {
      expect(pathError(text, { allowEach: true }).message).toMatch(/is not an array position/);
    }
  });

  it('[*] without allowEach, saying where it is allowed', () => {
    expect(pathError('a[*]').message).toMatch(/\[\*\] is only allowed in index definitions/);
    expect(pathError('a[*].b').message).toMatch(/\[\*\] is only allowed in index definitions/);
    expect(pathError('[*]').message).toMatch(/expected a field name at position 1/);
    expect(pathError('[*]', { allowEach: true }).message).toMatch(/expected a field name/);
  });

  it('a path starting with a bracket, stray brackets, spaces and quotes', () => {
    expect(pathError('[0]').message).toMatch(/expected a field name at position 1/);
    expect(pathError('a]').message).toMatch(/unexpected '\]' at position 2/);
    expect(pathError('a[0]b').message).toMatch(/unexpected 'b' at position 5/);
    expect(pathError('a b').message).toMatch(/unexpected ' ' at position 2/);
    expect(pathError('a."b"').message).toMatch(/expected a field name at position 3/);
  });

  it('names the path in the message and in the details', () => {
    const error = pathError('a..b');
    expect(error.message).toContain("'a..b'");
    expect(error.details).toEqual({ path: 'a..b' });
  });
});

describe('limits', () => {
  it(`accepts a path of PATH_CHARS_MAX (${PATH_CHARS_MAX}) characters`, () => {
    expect(parsePath('a'.repeat(PATH_CHARS_MAX)).text.length).toBe(PATH_CHARS_MAX);
  });

  it('rejects a path one character longer, naming the limit', () => {
    const error = pathError('a'.repeat(PATH_CHARS_MAX + 1));
    expect(error.message).toMatch(new RegExp(`longer than ${PATH_CHARS_MAX} characters`));
    // The message shows a prefix, not the whole over-long path.
    expect(error.message.length).toBeLessThan(200);
  });

  it(`accepts PATH_SEGMENTS_MAX (${PATH_SEGMENTS_MAX}) segments`, () => {
    const text = Array.from({ length: PATH_SEGMENTS_MAX }, () => 'a').join('.');
    expect(parsePath(text).segments).toHaveLength(PATH_SEGMENTS_MAX);
    const mixed = `a${'[0]'.repeat(PATH_SEGMENTS_MAX - 1)}`;
    expect(parsePath(mixed).segments).toHaveLength(PATH_SEGMENTS_MAX);
  });

  it('rejects one segment more, counting fields, positions and [*]', () => {
    const fields = Array.from({ length: PATH_SEGMENTS_MAX + 1 }, () => 'a').join('.');
    expect(pathError(fields).message).toMatch(
      new RegExp(`more than ${PATH_SEGMENTS_MAX} segments`),
    );
    const positions = `a${'[0]'.repeat(PATH_SEGMENTS_MAX)}`;
    expect(pathError(positions).message).toMatch(/segments/);
    const each = `a${'[*]'.repeat(PATH_SEGMENTS_MAX)}`;
    expect(pathError(each, { allowEach: true }).message).toMatch(/segments/);
  });

  it('accepts the largest array position and rejects a longer one', () => {
    expect(parsePath('a[999999999]').segments[1]).toEqual({ kind: 'index', index: 999999999 });
    expect(pathError('a[1000000000]').message).toMatch(/not an array position/);
  });
});

describe('valueAt', () => {
  const doc = {
    a: { b: { c: 1 }, n: null, f: false, z: 0, e: '' },
    list: [{ b: 'x' }, { b: 'y', c: [10, 20] }, 5],
    m: [
      [1, 2],
      [3, 4],
    ],
  };

  it('walks fields and positions', () => {
    expect(valueAt(doc, p('a'))).toEqual({ b: { c: 1 }, n: null, f: false, z: 0, e: '' });
    expect(valueAt(doc, p('a.b.c'))).toBe(1);
    expect(valueAt(doc, p('list[0].b'))).toBe('x');
    expect(valueAt(doc, p('list[1].c[1]'))).toBe(20);
    expect(valueAt(doc, p('list[2]'))).toBe(5);
    expect(valueAt(doc, p('m[1][0]'))).toBe(3);
  });

  it('returns falsy values as they are', () => {
    expect(valueAt(doc, p('a.n'))).toBeNull();
    expect(valueAt(doc, p('a.f'))).toBe(false);
    expect(valueAt(doc, p('a.z'))).toBe(0);
    expect(valueAt(doc, p('a.e'))).toBe('');
  });

  it('returns undefined for every missing step', () => {
    for (const text of [
      'x',
      'a.x',
      'a.b.c.d',
      'a.n.x',
      'a.z.x',
      'list[3]',
      'list[2].b',
      'list.b',
      'list.length',
      'a[0]',
      'm[0].x',
      'm[5][0]',
    ]) {
      expect(valueAt(doc, p(text)), text).toBeUndefined();
    }
  });

  it('returns undefined for a [*] path (use valuesAt)', () => {
    expect(valueAt(doc, p('list[*].b'))).toBeUndefined();
  });

  it('returns undefined on non-object roots', () => {
    for (const root of [null, undefined, 1, 'a', true]) {
      expect(valueAt(root, p('a'))).toBeUndefined();
    }
  });

  // Was: a missing field resolves to a member inherited from Object.prototype, so a
  // document without `constructor` holds a function there, and `x.toString` is not missing.
  // Documents are plain objects decoded from MessagePack, so every field name that
  // Object.prototype defines is affected (findBy('constructor', null) finds nothing).
  it('treats fields inherited from Object.prototype as missing', () => {
    const plain = { a: { b: 1 } };
    for (const text of ['constructor', 'toString', 'hasOwnProperty', 'a.valueOf']) {
      expect(valueAt(plain, p(text)), text).toBeUndefined();
    }
  });

  it('refuses __proto__ as a field name: no document holds it, and as a key it reaches the prototype', () => {
    for (const text of ['__proto__', 'a.__proto__', 'a[0].__proto__.b']) {
      expect(() => p(text), text).toThrow(/'__proto__' is not allowed as a field name/);
    }
    expect(p('__proto__x').segments).toEqual([{ kind: 'field', name: '__proto__x' }]);
  });
});

describe('valuesAt', () => {
  const doc = {
    tags: ['a', 'b', null, ['c'], { d: 1 }],
    items: [{ k: 1 }, { k: 'x' }, { j: 2 }, { k: null }, 7, [{ k: 9 }], { k: [1, 2] }],
    nested: [{ xs: [1, 2] }, { xs: [3] }, { xs: 4 }],
    a: { b: 5 },
  };

  it('gives the one value of a path without [*], or none when missing', () => {
    expect(valuesAt(doc, p('a.b'))).toEqual([5]);
    expect(valuesAt(doc, p('items[0].k'))).toEqual([1]);
    expect(valuesAt(doc, p('a.c'))).toEqual([]);
    expect(valuesAt(doc, p('tags[9]'))).toEqual([]);
  });

  it('keeps a present null but drops a missing value', () => {
    expect(valuesAt({ a: null }, p('a'))).toEqual([null]);
    expect(valuesAt({}, p('a'))).toEqual([]);
  });

  it('expands [*] over every element, whatever it holds', () => {
    expect(valuesAt(doc, p('tags[*]'))).toEqual(['a', 'b', null, ['c'], { d: 1 }]);
  });

  it('follows fields after [*] only into object elements that have them', () => {
    expect(valuesAt(doc, p('items[*].k'))).toEqual([1, 'x', null, [1, 2]]);
  });

  it('expands several [*] steps', () => {
    expect(valuesAt(doc, p('nested[*].xs[*]'))).toEqual([1, 2, 3]);
    expect(valuesAt(doc, p('items[*][*].k'))).toEqual([9]);
  });

  it('gives nothing when [*] meets a non-array or a missing value', () => {
    expect(valuesAt(doc, p('a[*]'))).toEqual([]);
    expect(valuesAt(doc, p('missing[*]'))).toEqual([]);
    expect(valuesAt({ tags: 'abc' }, p('tags[*]'))).toEqual([]);
    expect(valuesAt({ tags: [] }, p('tags[*]'))).toEqual([]);
    expect(valuesAt(null, p('tags[*]'))).toEqual([]);
  });

  it('agrees with valueAt on paths without [*]', () => {
    const texts = ['a', 'a.b', 'tags[0]', 'tags[3][0]', 'items[1].k', 'items[4].k', 'zz'];
    for (const text of texts) {
      const one = valueAt(doc, p(text));
      expect(valuesAt(doc, p(text)), text).toEqual(one === undefined ? [] : [one]);
    }
  });
});

describe('samePath', () => {
  const each = (text: string) => parsePath(text, { allowEach: true });

  it('is true for the same steps and false when a step differs in kind, name, position or count', () => {
    expect(samePath(each('a.b[2].c'), each('a.b[2].c'))).toBe(true);
    expect(samePath(each('a[*].b'), each('a[*].b'))).toBe(true);
    expect(samePath(each('a.0'), each('a[0]'))).toBe(false);
    expect(samePath(each('a.b'), each('a.c'))).toBe(false);
    expect(samePath(each('a[1]'), each('a[2]'))).toBe(false);
    expect(samePath(each('a[*]'), each('a[0]'))).toBe(false);
    expect(samePath(each('a.b'), each('a.b.c'))).toBe(false);
  });

  it('agrees with comparing the steps as JSON, on random paths', () => {
    const step = fc.oneof(
      fc.constantFrom('a', 'b', 'ab').map((name) => `.${name}`),
      fc.integer({ min: 0, max: 3 }).map((i) => `[${i}]`),
      fc.constant('[*]'),
    );
    const path = fc.array(step, { maxLength: 4 }).map((steps) => `x${steps.join('')}`);
    fc.assert(
      fc.property(path, path, (a, b) => {
        const [x, y] = [each(a), each(b)];
        const json = JSON.stringify(x.segments) === JSON.stringify(y.segments);
        expect(samePath(x, y)).toBe(json);
      }),
    );
  });
});

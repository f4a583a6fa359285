/**
 * Proves that checkDocument names the offending field by its full path (names, `[i]`
 * positions, empty names), also after an earlier document failed deep inside, and that it
 * splits off `_id` without changing the caller's object.
 */

import { describe, expect, it } from 'vitest';
import { DbError } from '../errors/index.js';
import { checkDocument } from './document-check.js';

function failure(doc: unknown): { message: string; details: unknown } {
  try {
    checkDocument(doc);
  } catch (error) {
    if (error instanceof DbError) return { message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected ERR_DOCUMENT_INVALID');
}

describe('checkDocument', () => {
  it.each([
    [{ n: Number.NaN }, 'n'],
    [{ a: { b: [1, { c: Number.POSITIVE_INFINITY }] } }, 'a.b[1].c'],
    [{ a: [[1, [undefined]]] }, 'a[0][1][0]'],
    [{ '': { x: () => 1 } }, '.x'],
    [{ a: { '': { '': new Date(0) } } }, 'a..'],
    [{ s: ['ok', 'lone \ud800'] }, 's[1]'],
  ])('names the field %# as %s', (doc, field) => {
    const { message, details } = failure(doc);
    expect(message).toContain(`field '${field}'`);
    expect(details).toEqual({ field });
  });

  it('names nested __proto__ and lone-surrogate field names with their prefix', () => {
    const proto = failure({ a: [JSON.parse('{"__proto__": 1}')] });
    expect(proto.message).toBe("field name 'a[0].__proto__' is not allowed");
    expect(proto.details).toEqual({ field: 'a[0].__proto__' });
    const lone = failure({ a: { '\udc00': 1 } });
    expect(lone.message).toBe("field name 'a.\udc00' holds a lone UTF-16 surrogate");
  });

  it('starts each check with an empty path after a failure deep inside another', () => {
    failure({ a: { b: { c: [Number.NaN] } } });
    expect(failure({ x: Number.NaN }).details).toEqual({ field: 'x' });
  });

  it('splits off a valid _id and leaves the input as it was', () => {
    const doc = { _id: '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f', a: 1 };
    const { body, id } = checkDocument(doc);
    expect(body).toEqual({ a: 1 });
    expect(id?.toString('hex')).toBe('0193a4f27c1e7d3a9b2e4f6a8c0d1e2f');
    expect(doc).toEqual({ _id: '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f', a: 1 });
  });
});

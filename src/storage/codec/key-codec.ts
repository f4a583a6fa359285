/**
 * Order-preserving binary keys for index entries: the byte order of encoded values equals the
 * value order of util/value-order for scalars and tuples of scalars. Pure; arrays and objects
 * are not indexable and encode to nothing.
 *
 * Layout per value: a type tag, then null/false/true: nothing; number: 8 bytes of IEEE-754
 * with the sign bit flipped (all bits for negatives); string: UTF-8 with 0x00 escaped as
 * 00 FF and a 00 00 terminator, so no encoding is a prefix of another.
 */

import { isScalar } from '../../util/index.js';

export const TAG_NULL = 0x01;
export const TAG_FALSE = 0x02;
export const TAG_TRUE = 0x03;
export const TAG_NUMBER = 0x04;
export const TAG_STRING = 0x05;

/**
 * Longest encoded value part of an index key. LMDB keys are capped near 2 KB; longer values
 * are truncated here and every hit on a truncated key is rechecked against the document.
 */
export const KEY_VALUE_BYTES_MAX = 1024;

const numberScratch = Buffer.alloc(8);

function encodeNumber(value: number, out: number[]): void {
  numberScratch.writeDoubleBE(value === 0 ? 0 : value, 0);
  const negative = (numberScratch[0] as number) & 0x80;
  out.push(TAG_NUMBER);
  for (let i = 0; i < 8; i++) {
    const byte = numberScratch[i] as number;
    out.push(negative ? ~byte & 0xff : i === 0 ? byte ^ 0x80 : byte);
  }
}

function encodeString(value: string, out: number[]): void {
  out.push(TAG_STRING);
  const bytes = Buffer.from(value, 'utf8');
  for (const byte of bytes) {
    out.push(byte);
    if (byte === 0) out.push(0xff);
  }
  out.push(0, 0);
}

function encodeScalar(value: unknown, out: number[]): boolean {
  if (value === null || value === undefined) out.push(TAG_NULL);
  else if (value === false) out.push(TAG_FALSE);
  else if (value === true) out.push(TAG_TRUE);
  else if (typeof value === 'number' && Number.isFinite(value)) encodeNumber(value, out);
  else if (typeof value === 'string') encodeString(value, out);
  else return false;
  return true;
}

/** An encoded tuple; `truncated` is true when it was cut to KEY_VALUE_BYTES_MAX. */
export interface EncodedKey {
  bytes: Buffer;
  truncated: boolean;
}

/**
 * Encodes a tuple of scalars (a missing value counts as null). Returns undefined when any
 * value is an array or object, which an index does not list.
 */
export function encodeTuple(values: readonly unknown[]): EncodedKey | undefined {
  const out: number[] = [];
  for (const value of values) {
    if (value !== undefined && !isScalar(value)) return undefined;
    encodeScalar(value, out);
  }
  const truncated = out.length > KEY_VALUE_BYTES_MAX;
  const bytes = Buffer.from(truncated ? out.slice(0, KEY_VALUE_BYTES_MAX) : out);
  return { bytes, truncated };
}

/** The first byte of every encoding of a value of this type (for range bounds). */
export function tagOf(value: unknown): number {
  if (value === null || value === undefined) return TAG_NULL;
  if (value === false) return TAG_FALSE;
  if (value === true) return TAG_TRUE;
  return typeof value === 'number' ? TAG_NUMBER : TAG_STRING;
}

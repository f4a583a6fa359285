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

/** An encoded tuple; `truncated` is true when it was cut to KEY_VALUE_BYTES_MAX. */
export interface EncodedKey {
  bytes: Buffer;
  truncated: boolean;
}

/** Keys up to this many bytes are copied out of the scratch buffer by a loop. */
const SMALL_COPY_BYTES_MAX = 32;

// Encoding writes into one scratch buffer and copies the result out: one small allocation
// per key instead of a byte array and a conversion (index upkeep is on the write hot path).
let scratch = Buffer.allocUnsafe(4096);

function ensure(bytes: number): void {
  if (bytes <= scratch.length) return;
  // Earlier values of the tuple are already in the scratch buffer: carry them over.
  const grown = Buffer.allocUnsafe(Math.max(bytes, scratch.length * 2));
  scratch.copy(grown);
  scratch = grown;
}

function writeNumber(value: number, at: number): number {
  scratch[at] = TAG_NUMBER;
  scratch.writeDoubleBE(value === 0 ? 0 : value, at + 1);
  if ((scratch[at + 1] as number) & 0x80) {
    for (let i = at + 1; i <= at + 8; i++) scratch[i] = ~(scratch[i] as number) & 0xff;
  } else {
    scratch[at + 1] = (scratch[at + 1] as number) ^ 0x80;
  }
  return at + 9;
}

/** Strings up to this length are tried as ASCII in JavaScript before the native UTF-8 write. */
const ASCII_FAST_CHARS_MAX = 64;

/** Writes `value` at `at` if it is short ASCII without NUL; returns the end, or -1 if not. */
function writeShortAscii(value: string, at: number): number {
  if (value.length > ASCII_FAST_CHARS_MAX) return -1;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0 || code > 0x7f) return -1;
    scratch[at + i] = code;
  }
  return at + value.length;
}

function writeString(value: string, at: number): number {
  // Worst case: 3 UTF-8 bytes per UTF-16 unit, each byte escaped, plus tag and terminator.
  ensure(at + value.length * 6 + 3);
  scratch[at] = TAG_STRING;
  // Short ASCII (codes, names, ids) is the common case: a JavaScript loop beats a native call.
  let end = writeShortAscii(value, at + 1);
  if (end < 0) {
    end = at + 1 + scratch.write(value, at + 1, 'utf8');
    if (value.includes('\u0000')) {
      const raw = Buffer.from(scratch.subarray(at + 1, end));
      end = at + 1;
      for (const byte of raw) {
        scratch[end++] = byte;
        if (byte === 0) scratch[end++] = 0xff;
      }
    }
  }
  scratch[end] = 0;
  scratch[end + 1] = 0;
  return end + 2;
}

function writeScalar(value: unknown, at: number): number {
  ensure(at + 9);
  if (value === null || value === undefined) scratch[at] = TAG_NULL;
  else if (value === false) scratch[at] = TAG_FALSE;
  else if (value === true) scratch[at] = TAG_TRUE;
  else if (typeof value === 'number') return writeNumber(value, at);
  else return writeString(value as string, at);
  return at + 1;
}

/**
 * Encodes a tuple of scalars (a missing value counts as null). Returns undefined when any
 * value is an array or object, which an index does not list.
 */
export function encodeTuple(values: readonly unknown[]): EncodedKey | undefined {
  let end = 0;
  for (const value of values) {
    if (value !== undefined && !isScalar(value)) return undefined;
    end = writeScalar(value, end);
  }
  const truncated = end > KEY_VALUE_BYTES_MAX;
  const length = truncated ? KEY_VALUE_BYTES_MAX : end;
  const bytes = Buffer.allocUnsafe(length);
  // Index keys are mostly a few bytes: a loop is cheaper than the native copy's call.
  if (length <= SMALL_COPY_BYTES_MAX)
    for (let i = 0; i < length; i++) bytes[i] = scratch[i] as number;
  else scratch.copy(bytes, 0, 0, length);
  return { bytes, truncated };
}

/** The first byte of every encoding of a value of this type (for range bounds). */
export function tagOf(value: unknown): number {
  if (value === null || value === undefined) return TAG_NULL;
  if (value === false) return TAG_FALSE;
  if (value === true) return TAG_TRUE;
  return typeof value === 'number' ? TAG_NUMBER : TAG_STRING;
}

/**
 * The order LMDB gives two keys (memcmp, then the shorter first). Keys are a few bytes: a
 * loop here is several times cheaper than Buffer.compare's native call, and a batch of
 * 1,000 documents sorts some 50,000 pairs.
 */
export function compareBytes(a: Buffer, b: Buffer): number {
  const length = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < length; i++) {
    const difference = (a[i] as number) - (b[i] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

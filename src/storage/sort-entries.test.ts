/**
 * Proves that sortEntries gives exactly the order of a stable comparator sort on
 * (key bytes, then id bytes): for any keys (empty, shorter than the prefix, sharing long
 * prefixes, padded with zeros), any ids, in id order or not, and at the sizes where the sort
 * numbers give more bits to positions and fewer to the key prefix.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareBytes } from './codec/index.js';
import { type IndexEntry, indexEntry, sortEntries } from './sort-entries.js';

/** The order sortEntries must give: a stable sort on the key, then the id. */
function reference(entries: IndexEntry[], idsAscending: boolean): IndexEntry[] {
  return [...entries].sort(
    (a, b) => compareBytes(a.key, b.key) || (idsAscending ? 0 : compareBytes(a.id, b.id)),
  );
}

/** Ids 0, 1, 2… as 16 big-endian bytes: increasing in the order made. */
function idAt(position: number): Buffer {
  const id = Buffer.alloc(16);
  id.writeUInt32BE(position, 12);
  return id;
}

/** Keys drawn from a few bytes, so equal keys, shared prefixes and zero padding are common. */
const key = fc
  .array(fc.constantFrom(0, 1, 5, 0x41, 0x42, 0xff), { maxLength: 10 })
  .map((bytes) => Buffer.from(bytes));

describe('sortEntries', () => {
  it('orders entries made in id order as a stable sort on the key', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (keys) => {
        const entries = keys.map((k, i) => indexEntry(k, idAt(i)));
        expect(sortEntries(entries, true)).toEqual(reference(entries, true));
      }),
    );
  });

  it('orders entries in any id order by key, then id', () => {
    const id = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, id), { maxLength: 300 }), (pairs) => {
        const entries = pairs.map(([k, i]) => indexEntry(k, i));
        expect(sortEntries(entries, false)).toEqual(reference(entries, false));
      }),
    );
  });

  it('orders large batches, whose sort numbers hold fewer key bytes', () => {
    for (const count of [8192, 8193, 70_000]) {
      // A high first byte fills the number's top bits; bytes 4 and 5 lie past the prefix
      // bytes that fit beside 17 bits of positions.
      const entries = Array.from({ length: count }, (_, i) =>
        indexEntry(
          Buffer.from([0xfe + (i % 2), (i * 7919) % 251, (i * 31) % 7, 0, i % 5, i % 3]),
          idAt(i),
        ),
      );
      const sorted = sortEntries(entries, true);
      const expected = reference(entries, true);
      expect(sorted.every((entry, i) => entry === expected[i])).toBe(true);
    }
  });

  it('returns an empty or single-entry list as it is', () => {
    expect(sortEntries([], true)).toEqual([]);
    const one = [indexEntry(Buffer.from([1]), idAt(0))];
    expect(sortEntries(one, false)).toEqual(one);
  });
});

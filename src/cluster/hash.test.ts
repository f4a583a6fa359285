/**
 * Proves the shard hash and ring of ADR 0013. Pinned vectors: xxh64 against the xxHash
 * specification's published values, the hash of a dozen shard-key values and their owners on a
 * three-shard ring (all computed independently with the Python `xxhash` binding; a change here
 * moves stored documents between shards, so these values must never change). Properties: the
 * encoding tags each type (`1` and `"1"` differ, `-0` is `0`), non-scalars are refused, the
 * owner does not depend on the order of the shards, and adding a fourth shard moves about a
 * quarter of 10,000 keys, all to the new shard; removing one moves only its own keys.
 * The fast forms agree with plain references kept here: xxh64 on uint32 halves with the
 * BigInt algorithm of the specification, on every length to 100 and random bytes and seeds;
 * the encoding written into a reused buffer with TextEncoder's; the ring search on halves
 * with a BigInt binary search; and `shardFor`'s ring remembered per list with a fresh one,
 * also after the list is edited in place.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDbError } from '../errors/index.js';
import {
  buildRing,
  encodeShardKey,
  type HashRing,
  hashShardKey,
  RING_VNODES_PER_SHARD,
  ringOwner,
  ringOwnerIndex,
  ringOwnerOfHash,
  SHARD_KEY_SCRATCH_BYTES,
  SHARD_KEY_TAGS,
  shardFor,
  vnodePosition,
  xxh64,
  xxh64Into,
} from './hash.js';

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const hex = (hash: bigint): string => hash.toString(16).padStart(16, '0');

describe('xxh64', () => {
  it('gives the published values of the xxHash specification (seed 0)', () => {
    expect(hex(xxh64(new Uint8Array(0)))).toBe('ef46db3751d8e999');
    expect(hex(xxh64(ascii('a')))).toBe('d24ec4f1a98c6e5b');
    expect(hex(xxh64(ascii('abc')))).toBe('44bc2cf5ad770999');
    // 39 bytes: the 32-byte stripe loop, an 8-byte lane, a 4-byte lane and single bytes.
    expect(hex(xxh64(ascii('Nobody inspects the spammish repetition')))).toBe('fbcea83c8a378bf1');
  });

  it('reads a view into a larger buffer from its own offset', () => {
    const buffer = ascii('xxabcxx');
    expect(hex(xxh64(buffer.subarray(2, 5)))).toBe('44bc2cf5ad770999');
  });
});

describe('the shard-key hash (pinned: changing one moves documents)', () => {
  const vectors: Array<[unknown, string]> = [
    [null, '8a4127811b21e730'],
    [false, '4b79b8c95732b0e7'],
    [true, '1f25c8d0bc1f4bb6'],
    [0, '078e4ab900e95271'],
    [1, '65f288b8348ba66d'],
    [-1, '683e2d0a6acc750d'],
    [1.5, '794836eea7f827fb'],
    [-2.75e-300, '53efe3fc84f1d81c'],
    [2 ** 53, 'ddbf978f2260622a'],
    ['', '50ff15a81340970f'],
    ['1', 'a23a53e4cf4350ad'],
    ['PNR0001', '3087209ba3974b6b'],
    ['ABC123', '8b74eb36cf3886ae'],
    ['Zürich', 'dea957f97a5d6512'],
    ['日本', '188eeaffdfe58a0c'],
    ['a'.repeat(40), '4cb868e982a685a3'],
  ];

  it.each(vectors)('hashes %j to %s', (value, expected) => {
    expect(hex(hashShardKey(value))).toBe(expected);
  });

  it('encodes each type under its own tag', () => {
    expect([...encodeShardKey(null)]).toEqual([0x01]);
    expect([...encodeShardKey(false)]).toEqual([0x02]);
    expect([...encodeShardKey(true)]).toEqual([0x03]);
    expect([...encodeShardKey(1)]).toEqual([0x04, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]);
    expect([...encodeShardKey('1')]).toEqual([0x05, 0x31]);
  });

  it('places vnodes at xxh64 of "<name>#<i>"', () => {
    expect(hex(vnodePosition('s1', 0))).toBe('a960ea41da029655');
  });
});

describe('the owners on a three-shard ring (pinned)', () => {
  const shards = [{ name: 's1' }, { name: 's2' }, { name: 's3' }];
  const owners: Array<[unknown, string]> = [
    [null, 's2'],
    [false, 's1'],
    [true, 's3'],
    [0, 's1'],
    [1, 's1'],
    [-1, 's2'],
    [1.5, 's2'],
    ['', 's2'],
    ['1', 's2'],
    ['PNR0001', 's1'],
    ['ABC123', 's1'],
    ['Zürich', 's1'],
    ['日本', 's1'],
    ['a'.repeat(40), 's3'],
  ];

  it.each(owners)('puts %j on %s', (value, expected) => {
    expect(shardFor(value, shards).name).toBe(expected);
  });

  it(`has ${RING_VNODES_PER_SHARD} points per shard, ascending`, () => {
    const ring = buildRing(['s1', 's2', 's3']);
    expect(ring.positions.length).toBe(3 * RING_VNODES_PER_SHARD);
    for (let i = 1; i < ring.positions.length; i++) {
      expect(ring.positions[i - 1]! <= ring.positions[i]!).toBe(true);
    }
  });
});

describe('the encoding rules', () => {
  it('tells 1 from "1", true from 1, null from "" and false from 0', () => {
    expect(hashShardKey(1)).not.toBe(hashShardKey('1'));
    expect(hashShardKey(true)).not.toBe(hashShardKey(1));
    expect(hashShardKey(null)).not.toBe(hashShardKey(''));
    expect(hashShardKey(false)).not.toBe(hashShardKey(0));
  });

  it('hashes -0 as 0 and a missing value as null', () => {
    expect(hashShardKey(-0)).toBe(hashShardKey(0));
    expect(hashShardKey(undefined)).toBe(hashShardKey(null));
  });

  it.each([
    [[1], 'an array'],
    [{ a: 1 }, 'an object'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [10n, 'a bigint'],
  ])('refuses %s: a shard key must be a scalar', (value, kind) => {
    try {
      hashShardKey(value);
      expect.unreachable();
    } catch (error) {
      expect(isDbError(error, 'ERR_BAD_ARGUMENT')).toBe(true);
      expect((error as Error).message).toBe(
        `a shard key must be a scalar (null, a boolean, a finite number or a string), not ${kind}`,
      );
    }
  });

  const scalar = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: 'grapheme' }),
  );

  it('is deterministic, and the owner does not depend on the order of the shards', () => {
    const names = ['s1', 's2', 's3', 'east.4', 'west_5'];
    const forward = names.map((name) => ({ name }));
    const backward = [...forward].reverse();
    fc.assert(
      fc.property(scalar, (value) => {
        expect(hashShardKey(value)).toBe(hashShardKey(value));
        expect(shardFor(value, forward).name).toBe(shardFor(value, backward).name);
        expect(ringOwner(buildRing(names), value)).toBe(shardFor(value, forward).name);
      }),
    );
  });

  it('gives different encodings to values of different types', () => {
    fc.assert(
      fc.property(scalar, scalar, (a, b) => {
        const same = Object.is(a === 0 ? 0 : a, b === 0 ? 0 : b);
        const bytesEqual =
          Buffer.compare(Buffer.from(encodeShardKey(a)), Buffer.from(encodeShardKey(b))) === 0;
        expect(bytesEqual).toBe(same);
      }),
    );
  });
});

describe('moving keys when the shards change', () => {
  const KEYS = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? `PNR${i}` : i));
  const three = [{ name: 's1' }, { name: 's2' }, { name: 's3' }];
  const four = [...three, { name: 's4' }];

  it('moves between 15% and 35% of 10,000 keys to a fourth shard, and only to it', () => {
    let moved = 0;
    for (const key of KEYS) {
      const before = shardFor(key, three).name;
      const after = shardFor(key, four).name;
      if (before !== after) {
        moved++;
        expect(after).toBe('s4');
      }
    }
    expect(moved / KEYS.length).toBeGreaterThan(0.15);
    expect(moved / KEYS.length).toBeLessThan(0.35);
  });

  it('moves only the removed shard’s keys when a shard goes', () => {
    const two = [{ name: 's1' }, { name: 's3' }];
    for (const key of KEYS) {
      const before = shardFor(key, three).name;
      if (before !== 's2') expect(shardFor(key, two).name).toBe(before);
    }
  });

  it('gives each of three shards between 25% and 42% of the keys', () => {
    const counts = new Map<string, number>();
    for (const key of KEYS) {
      const owner = shardFor(key, three).name;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
    }
    for (const name of ['s1', 's2', 's3']) {
      const share = (counts.get(name) ?? 0) / KEYS.length;
      expect(share, name).toBeGreaterThan(0.25);
      expect(share, name).toBeLessThan(0.42);
    }
  });
});

describe('the ring refuses what cannot be placed', () => {
  it('refuses an empty shard list, naming add-shard', () => {
    expect(() => shardFor('x', [])).toThrow(/no shards: add one with docdb cluster add-shard/);
  });

  it('refuses a shard name given twice', () => {
    expect(() => buildRing(['s1', 's1'])).toThrow(/appears twice/);
  });
});

// The reference xxHash64: the specification's algorithm in BigInt, as hash.ts had it before
// it moved to uint32 halves. The fast form must give the same bits for every input.
const MASK64 = (1n << 64n) - 1n;
const PRIME64_1 = 0x9e3779b185ebca87n;
const PRIME64_2 = 0xc2b2ae3d27d4eb4fn;
const PRIME64_3 = 0x165667b19e3779f9n;
const PRIME64_4 = 0x85ebca77c2b2ae63n;
const PRIME64_5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK64;
const round = (acc: bigint, lane: bigint): bigint =>
  (rotl((acc + lane * PRIME64_2) & MASK64, 31n) * PRIME64_1) & MASK64;
const mergeRound = (acc: bigint, lane: bigint): bigint =>
  ((acc ^ round(0n, lane)) * PRIME64_1 + PRIME64_4) & MASK64;

function referenceXxh64(bytes: Uint8Array, seed = 0n): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = bytes.byteLength;
  let at = 0;
  let h: bigint;
  if (length >= 32) {
    let v1 = (seed + PRIME64_1 + PRIME64_2) & MASK64;
    let v2 = (seed + PRIME64_2) & MASK64;
    let v3 = seed & MASK64;
    let v4 = (seed - PRIME64_1) & MASK64;
    for (; at + 32 <= length; at += 32) {
      v1 = round(v1, view.getBigUint64(at, true));
      v2 = round(v2, view.getBigUint64(at + 8, true));
      v3 = round(v3, view.getBigUint64(at + 16, true));
      v4 = round(v4, view.getBigUint64(at + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK64;
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    h = mergeRound(h, v4);
  } else {
    h = (seed + PRIME64_5) & MASK64;
  }
  h = (h + BigInt(length)) & MASK64;
  for (; at + 8 <= length; at += 8) {
    h ^= round(0n, view.getBigUint64(at, true));
    h = (rotl(h, 27n) * PRIME64_1 + PRIME64_4) & MASK64;
  }
  if (at + 4 <= length) {
    h ^= (BigInt(view.getUint32(at, true)) * PRIME64_1) & MASK64;
    h = (rotl(h, 23n) * PRIME64_2 + PRIME64_3) & MASK64;
    at += 4;
  }
  for (; at < length; at++) {
    h ^= (BigInt(bytes[at] as number) * PRIME64_5) & MASK64;
    h = (rotl(h, 11n) * PRIME64_1) & MASK64;
  }
  h ^= h >> 33n;
  h = (h * PRIME64_2) & MASK64;
  h ^= h >> 29n;
  h = (h * PRIME64_3) & MASK64;
  h ^= h >> 32n;
  return h;
}

/** The reference encoding: the tag byte, then TextEncoder's bytes or the big-endian double. */
function referenceEncoding(value: unknown): Uint8Array {
  if (value === null || value === undefined) return Uint8Array.of(SHARD_KEY_TAGS.null);
  if (typeof value === 'boolean') {
    return Uint8Array.of(value ? SHARD_KEY_TAGS.true : SHARD_KEY_TAGS.false);
  }
  if (typeof value === 'number') {
    const bytes = new Uint8Array(9);
    bytes[0] = SHARD_KEY_TAGS.number;
    new DataView(bytes.buffer).setFloat64(1, value + 0, false);
    return bytes;
  }
  const body = new TextEncoder().encode(value as string);
  return Uint8Array.from([SHARD_KEY_TAGS.string, ...body]);
}

/** The reference ring search: the first position at or after the hash, in BigInt. */
function referenceOwner(ring: HashRing, hash: bigint): string {
  let low = 0;
  let high = ring.positions.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((ring.positions[mid] as bigint) < hash) low = mid + 1;
    else high = mid;
  }
  const point = low === ring.positions.length ? 0 : low;
  return ring.shards[ring.owners[point] as number] as string;
}

/** The halves xxh64Into gives for the first `length` bytes, joined into one bigint. */
function fastXxh64(bytes: Uint8Array, length: number, seed: bigint): bigint {
  const out = new Uint32Array(2);
  xxh64Into(bytes, length, out, Number(seed >> 32n), Number(seed & 0xffffffffn));
  return (BigInt(out[0] as number) << 32n) | BigInt(out[1] as number);
}

describe('xxh64 on uint32 halves against the BigInt reference', () => {
  const seed64 = fc.bigInt({ min: 0n, max: MASK64 });

  it('agrees on every length from 0 to 100: stripes, 8-byte lanes, a 4-byte lane, bytes', () => {
    // Bytes with high bits set and carries in every lane, a few seeds, each length once.
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => (i * 167 + 89) & 0xff);
    for (const seed of [0n, 1n, 0x9e3779b185ebca87n, MASK64]) {
      for (let length = 0; length <= 100; length++) {
        const expected = referenceXxh64(bytes.subarray(0, length), seed);
        expect(xxh64(bytes.subarray(0, length), seed), `length ${length}`).toBe(expected);
        expect(fastXxh64(bytes, length, seed), `length ${length}`).toBe(expected);
      }
    }
  });

  it('agrees on random bytes of 0 to 100 and random seeds, also on a prefix or a view', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 100 }),
        seed64,
        fc.nat(8),
        (bytes, seed, extra) => {
          const expected = referenceXxh64(bytes, seed);
          expect(xxh64(bytes, seed)).toBe(expected);
          // The same bytes at an offset into a larger buffer, followed by bytes not hashed.
          const larger = new Uint8Array(bytes.length + 2 * extra + 1).fill(0xa5);
          larger.set(bytes, extra);
          const view = larger.subarray(extra);
          expect(fastXxh64(view, bytes.length, seed)).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('counts a seed outside 0..2^64-1 modulo 2^64, as the reference does', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }),
        fc.bigInt({ min: -(1n << 70n), max: 1n << 70n }),
        (bytes, seed) => {
          expect(xxh64(bytes, seed)).toBe(referenceXxh64(bytes, seed));
        },
      ),
    );
  });

  it('refuses a length past the bytes (a bug in the caller)', () => {
    expect(() => xxh64Into(new Uint8Array(3), 4, new Uint32Array(2))).toThrow(/length/);
  });
});

describe('the encoding into a reused buffer against TextEncoder', () => {
  // Any UTF-16 units, lone surrogates included (TextEncoder writes them as U+FFFD).
  const units = fc.string({
    unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  });
  const scalar = fc.oneof(
    fc.constant(null),
    fc.constant(undefined),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    units,
  );

  it('gives the same bytes and hash for any scalar', () => {
    fc.assert(
      fc.property(scalar, (value) => {
        const expected = referenceEncoding(value);
        expect([...encodeShardKey(value)]).toEqual([...expected]);
        expect(hashShardKey(value)).toBe(referenceXxh64(expected));
      }),
      { numRuns: 1000 },
    );
  });

  it('returns a copy, not the reused buffer', () => {
    const first = encodeShardKey('first');
    encodeShardKey('second!');
    expect([...first]).toEqual([...referenceEncoding('first')]);
  });

  // The most UTF-16 units sure to fit the reused buffer at 3 bytes each after the tag.
  const UNITS_FIT = Math.floor((SHARD_KEY_SCRATCH_BYTES - 1) / 3);

  it.each([
    ['ASCII at the limit', 'k'.repeat(UNITS_FIT)],
    ['ASCII one past', 'k'.repeat(UNITS_FIT + 1)],
    ['3-byte units at the limit', '€'.repeat(UNITS_FIT)],
    ['3-byte units one past', '€'.repeat(UNITS_FIT + 1)],
    ['a surrogate pair at the end of the limit', `${'k'.repeat(UNITS_FIT - 2)}😀`],
    ['a lone surrogate at the end of the limit', `${'€'.repeat(UNITS_FIT - 1)}\ud800`],
  ])('encodes %s as TextEncoder does', (_, value) => {
    const expected = referenceEncoding(value);
    expect(Buffer.from(encodeShardKey(value)).equals(Buffer.from(expected))).toBe(true);
    expect(hashShardKey(value)).toBe(referenceXxh64(expected));
  });
});

describe('the ring search on uint32 halves against a BigInt search', () => {
  const names = fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 6,
  });
  const value = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string(),
  );

  it('keeps each position as its halves and at the reference vnode hash', () => {
    const ring = buildRing(['s1', 's2', 's3']);
    for (let p = 0; p < ring.positions.length; p++) {
      const position = ring.positions[p] as bigint;
      expect(ring.positionsHi[p]).toBe(Number(position >> 32n));
      expect(ring.positionsLo[p]).toBe(Number(position & 0xffffffffn));
    }
    const expected = ['s1', 's2', 's3'].flatMap((name) =>
      Array.from({ length: RING_VNODES_PER_SHARD }, (_, i) =>
        referenceXxh64(new TextEncoder().encode(`${name}#${i}`)),
      ),
    );
    expect([...ring.positions]).toEqual(expected.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('finds the owner the BigInt binary search finds, for values and for raw hashes', () => {
    fc.assert(
      fc.property(names, value, fc.bigInt({ min: 0n, max: MASK64 }), (shards, v, hash) => {
        const ring = buildRing(shards);
        const expected = referenceOwner(ring, referenceXxh64(referenceEncoding(v)));
        expect(ringOwner(ring, v)).toBe(expected);
        expect(ring.shards[ringOwnerIndex(ring, v)]).toBe(expected);
        expect(
          shardFor(
            v,
            shards.map((name) => ({ name })),
          ).name,
        ).toBe(expected);
        expect(ringOwnerOfHash(ring, hash)).toBe(referenceOwner(ring, hash));
      }),
      { numRuns: 300 },
    );
  });

  it('finds the owner of a hash at, next to, above and below every point', () => {
    const ring = buildRing(['s1', 's2', 's3']);
    const hashes = [0n, MASK64, MASK64 + 1n, -1n];
    for (const position of ring.positions) hashes.push(position - 1n, position, position + 1n);
    for (const hash of hashes) {
      expect(ringOwnerOfHash(ring, hash), hash.toString(16)).toBe(referenceOwner(ring, hash));
    }
  });
});

describe('the ring remembered for a shard list', () => {
  const KEYS = Array.from({ length: 500 }, (_, i) => (i % 2 === 0 ? `PNR${i}` : i));
  const ownersOn = (shards: readonly { name: string }[]): string[] =>
    KEYS.map((key) => shardFor(key, shards).name);
  const freshOwners = (names: string[]): string[] => {
    const ring = buildRing(names);
    return KEYS.map((key) => referenceOwner(ring, referenceXxh64(referenceEncoding(key))));
  };

  it('follows a list edited in place: a shard pushed, renamed, removed, reordered', () => {
    const shards = [{ name: 's1' }, { name: 's2' }, { name: 's3' }];
    expect(ownersOn(shards)).toEqual(freshOwners(['s1', 's2', 's3']));
    shards.push({ name: 's4' });
    expect(ownersOn(shards)).toEqual(freshOwners(['s1', 's2', 's3', 's4']));
    (shards[1] as { name: string }).name = 'west';
    expect(ownersOn(shards)).toEqual(freshOwners(['s1', 'west', 's3', 's4']));
    shards.splice(0, 1);
    expect(ownersOn(shards)).toEqual(freshOwners(['west', 's3', 's4']));
    shards.reverse();
    const owners = ownersOn(shards);
    expect(owners).toEqual(freshOwners(['s4', 's3', 'west']));
    // The objects returned are the list's own.
    expect(shardFor('PNR0', shards)).toBe(shards.find((s) => s.name === owners[0]));
  });

  it('gives another list with the same names, and a reloaded list, the same owners', () => {
    const first = [{ name: 's1' }, { name: 's2' }, { name: 's3' }];
    const reloaded = first.map((s) => ({ ...s, endpoint: 'http://x' }));
    expect(ownersOn(reloaded)).toEqual(ownersOn(first));
    expect(shardFor('PNR2', reloaded)).toBe(
      reloaded.find((s) => s.name === shardFor('PNR2', first).name),
    );
  });

  it("does not confuse ['a\\nb'] with ['a', 'b']", () => {
    expect(shardFor('x', [{ name: 'a\nb' }]).name).toBe('a\nb');
    expect(['a', 'b']).toContain(shardFor('x', [{ name: 'a' }, { name: 'b' }]).name);
    expect(shardFor('x', [{ name: 'a\nb' }]).name).toBe('a\nb');
  });
});

/**
 * Proves the shard hash and ring of ADR 0013. Pinned vectors: xxh64 against the xxHash
 * specification's published values, the hash of a dozen shard-key values and their owners on a
 * three-shard ring (all computed independently with the Python `xxhash` binding; a change here
 * moves stored documents between shards, so these values must never change). Properties: the
 * encoding tags each type (`1` and `"1"` differ, `-0` is `0`), non-scalars are refused, the
 * owner does not depend on the order of the shards, and adding a fourth shard moves about a
 * quarter of 10,000 keys, all to the new shard; removing one moves only its own keys.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDbError } from '../errors/index.js';
import {
  buildRing,
  encodeShardKey,
  hashShardKey,
  RING_VNODES_PER_SHARD,
  ringOwner,
  shardFor,
  vnodePosition,
  xxh64,
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

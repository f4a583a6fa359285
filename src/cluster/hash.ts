/**
 * Where a hash collection's document lives (DESIGN §7, ADR 0013): a type-tagged encoding of
 * its shard-key value, xxHash64 of that encoding, and a ring of virtual nodes per shard. Every
 * byte of this is a stored-data format: a change moves documents between shards, so the test
 * vectors in hash.test.ts are pinned. Pure; no dependency.
 */

import { assert, type DbError, dbError } from '../errors/index.js';

/**
 * Virtual nodes each shard puts on the ring. More even out the shards' shares (the spread is
 * about 1/sqrt(n) of a share) at the cost of a larger ring; ADR 0013 has the measurements.
 */
export const RING_VNODES_PER_SHARD = 128;

/** The tag byte of each kind of shard-key value in its encoding (as the index key codec's). */
export const SHARD_KEY_TAGS = {
  null: 0x01,
  false: 0x02,
  true: 0x03,
  number: 0x04,
  string: 0x05,
} as const;

const MASK64 = (1n << 64n) - 1n;
const PRIME64_1 = 0x9e3779b185ebca87n;
const PRIME64_2 = 0xc2b2ae3d27d4eb4fn;
const PRIME64_3 = 0x165667b19e3779f9n;
const PRIME64_4 = 0x85ebca77c2b2ae63n;
const PRIME64_5 = 0x27d4eb2f165667c5n;

const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & MASK64;

function round(acc: bigint, lane: bigint): bigint {
  const sum = (acc + lane * PRIME64_2) & MASK64;
  return (rotl(sum, 31n) * PRIME64_1) & MASK64;
}

function mergeRound(acc: bigint, lane: bigint): bigint {
  return ((acc ^ round(0n, lane)) * PRIME64_1 + PRIME64_4) & MASK64;
}

/**
 * xxHash64 (XXH64 of the xxHash specification, seed 0 unless given) of some bytes, as an
 * unsigned 64-bit bigint. Chosen for its full avalanche and its published test vectors; this
 * is the reference algorithm written with BigInt, checked against them in hash.test.ts.
 */
export function xxh64(bytes: Uint8Array, seed = 0n): bigint {
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

const utf8 = new TextEncoder();

function notScalar(value: unknown): DbError {
  const kind = Array.isArray(value)
    ? 'an array'
    : value !== null && typeof value === 'object'
      ? 'an object'
      : typeof value === 'number'
        ? String(value)
        : `a ${typeof value}`;
  return dbError(
    'ERR_BAD_ARGUMENT',
    'shardKeyNotScalar',
    { kind },
    { type: Array.isArray(value) ? 'array' : typeof value },
  );
}

/**
 * The bytes a shard-key value hashes as: one tag byte, then for a number its IEEE-754 double
 * big-endian (`-0` as `0`, so equal numbers hash alike) and for a string its UTF-8 bytes.
 * Null and a missing value (undefined) are one value; `1` and `"1"` differ by their tag.
 * Arrays, objects and non-finite numbers are refused (ERR_BAD_ARGUMENT): a shard key is a
 * scalar. One value per encoding, so no terminator is needed.
 */
export function encodeShardKey(value: unknown): Uint8Array {
  if (value === null || value === undefined) return Uint8Array.of(SHARD_KEY_TAGS.null);
  switch (typeof value) {
    case 'boolean':
      return Uint8Array.of(value ? SHARD_KEY_TAGS.true : SHARD_KEY_TAGS.false);
    case 'number': {
      if (!Number.isFinite(value)) throw notScalar(value);
      const bytes = new Uint8Array(9);
      bytes[0] = SHARD_KEY_TAGS.number;
      // `value + 0` turns -0 into 0: they are one JSON number.
      new DataView(bytes.buffer).setFloat64(1, value + 0, false);
      return bytes;
    }
    case 'string': {
      const body = utf8.encode(value);
      const bytes = new Uint8Array(body.length + 1);
      bytes[0] = SHARD_KEY_TAGS.string;
      bytes.set(body, 1);
      return bytes;
    }
    default:
      throw notScalar(value);
  }
}

/** The 64-bit hash of a shard-key value: xxh64 of its tagged encoding. */
export function hashShardKey(value: unknown): bigint {
  return xxh64(encodeShardKey(value));
}

/**
 * The ring position of virtual node `i` of a shard: xxh64 of the UTF-8 bytes of
 * `<name>#<i>`, untagged (it is a name, not a value).
 */
export function vnodePosition(shardName: string, i: number): bigint {
  return xxh64(utf8.encode(`${shardName}#${i}`));
}

/**
 * A consistent-hash ring: RING_VNODES_PER_SHARD points per shard, sorted by position (ties,
 * never seen in practice, by shard name, so the ring does not depend on the shards' order).
 */
export interface HashRing {
  /** The shard names, in the order given. */
  readonly shards: readonly string[];
  /** Point positions, ascending. */
  readonly positions: BigUint64Array;
  /** For each point, the index of its shard in `shards`. */
  readonly owners: Uint16Array;
}

/** Builds the ring of some shards. Refuses an empty list and a name given twice. */
export function buildRing(shardNames: readonly string[]): HashRing {
  if (shardNames.length === 0) {
    throw dbError('ERR_CLUSTER_CONFIG_INVALID', 'noShards');
  }
  assert(shardNames.length <= 0xffff, 'too many shards for the ring');
  if (new Set(shardNames).size !== shardNames.length) {
    throw dbError('ERR_CLUSTER_CONFIG_INVALID', 'ringNameTwice');
  }
  const points: Array<{ position: bigint; shard: number }> = [];
  for (const [shard, name] of shardNames.entries()) {
    for (let i = 0; i < RING_VNODES_PER_SHARD; i++) {
      points.push({ position: vnodePosition(name, i), shard });
    }
  }
  points.sort((a, b) => {
    if (a.position !== b.position) return a.position < b.position ? -1 : 1;
    const [x, y] = [shardNames[a.shard] as string, shardNames[b.shard] as string];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return {
    shards: [...shardNames],
    positions: BigUint64Array.from(points, (p) => p.position),
    owners: Uint16Array.from(points, (p) => p.shard),
  };
}

/**
 * The shard owning a hash: the first point at or after it clockwise, wrapping past the top.
 * Binary search, so a lookup is O(log points).
 */
export function ringOwnerOfHash(ring: HashRing, hash: bigint): string {
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

/** The name of the shard owning a shard-key value on a ring. */
export function ringOwner(ring: HashRing, value: unknown): string {
  return ringOwnerOfHash(ring, hashShardKey(value));
}

// Rings of the shard lists seen lately. A router asks about one or two lists (old and new
// during a rebalance), so a few entries keep rebuilding off the write path.
const RINGS_CACHED_MAX = 8;
const rings = new Map<string, HashRing>();

function ringOf(names: readonly string[]): HashRing {
  const key = names.join('\n');
  let ring = rings.get(key);
  if (ring === undefined) {
    ring = buildRing(names);
    if (rings.size >= RINGS_CACHED_MAX) rings.delete(rings.keys().next().value as string);
    rings.set(key, ring);
  }
  return ring;
}

/**
 * The shard that owns a shard-key value, among `shards` (cluster.json's list, or any list of
 * named things). The answer depends only on the value and the set of names, not on their
 * order. Adding a shard moves only the values the new shard now owns (about 1/n of them);
 * removing one moves only its own values. Arrays and objects are refused (ERR_BAD_ARGUMENT).
 */
export function shardFor<T extends { name: string }>(value: unknown, shards: readonly T[]): T {
  const ring = ringOf(shards.map((s) => s.name));
  const owner = ringOwner(ring, value);
  return shards.find((s) => s.name === owner) as T;
}

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

// xxHash64's primes, each as its high and low 32 bits: the hash runs on uint32 halves so the
// router's per-lookup hash makes no BigInt (a CPU profile of the router had the BigInt form at
// about 5% of its time).
const P1_HI = 0x9e3779b1;
const P1_LO = 0x85ebca87;
const P2_HI = 0xc2b2ae3d;
const P2_LO = 0x27d4eb4f;
const P3_HI = 0x165667b1;
const P3_LO = 0x9e3779f9;
const P4_HI = 0x85ebca77;
const P4_LO = 0xc2b2ae63;
const P5_HI = 0x27d4eb2f;
const P5_LO = 0x165667c5;
const TWO_32 = 0x100000000;

// The result of the last 64-bit step below, as uint32 halves. Module registers rather than a
// returned pair, so a step allocates nothing; each step reads its arguments before writing.
let rHi = 0;
let rLo = 0;

/** a * b mod 2^64, into rHi/rLo. */
function mul64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  // The low halves' full 64-bit product from 16-bit pieces (each piece product is below 2^32,
  // exact in a double); the cross terms only reach the high half, where Math.imul's low 32
  // bits are all that count.
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  rLo = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  rHi =
    (a1 * b1 +
      (p01 >>> 16) +
      (p10 >>> 16) +
      (mid >>> 16) +
      Math.imul(aHi, bLo) +
      Math.imul(aLo, bHi)) >>>
    0;
}

/** a + b mod 2^64, into rHi/rLo. */
function add64(aHi: number, aLo: number, bHi: number, bLo: number): void {
  const lo = aLo + bLo;
  rLo = lo >>> 0;
  rHi = (aHi + bHi + (lo >= TWO_32 ? 1 : 0)) >>> 0;
}

/** a rotated left by 0 < r < 32 bits, into rHi/rLo (xxHash64 rotates by no more than 31). */
function rotl64(aHi: number, aLo: number, r: number): void {
  rHi = ((aHi << r) | (aLo >>> (32 - r))) >>> 0;
  rLo = ((aLo << r) | (aHi >>> (32 - r))) >>> 0;
}

/** h + rotl(v, r), into rHi/rLo. */
function addRotl64(hHi: number, hLo: number, vHi: number, vLo: number, r: number): void {
  rotl64(vHi, vLo, r);
  add64(hHi, hLo, rHi, rLo);
}

/** xxHash64's round: rotl(acc + lane * PRIME64_2, 31) * PRIME64_1, into rHi/rLo. */
function round64(accHi: number, accLo: number, laneHi: number, laneLo: number): void {
  mul64(laneHi, laneLo, P2_HI, P2_LO);
  add64(accHi, accLo, rHi, rLo);
  rotl64(rHi, rLo, 31);
  mul64(rHi, rLo, P1_HI, P1_LO);
}

/** xxHash64's merge round: (h ^ round(0, v)) * PRIME64_1 + PRIME64_4, into rHi/rLo. */
function mergeRound64(hHi: number, hLo: number, vHi: number, vLo: number): void {
  round64(0, 0, vHi, vLo);
  mul64((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, P1_HI, P1_LO);
  add64(rHi, rLo, P4_HI, P4_LO);
}

/** The little-endian uint32 at `at`. */
function read32(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) |
      ((bytes[at + 1] as number) << 8) |
      ((bytes[at + 2] as number) << 16) |
      ((bytes[at + 3] as number) << 24)) >>>
    0
  );
}

/**
 * xxHash64 of the first `length` bytes of `bytes`, with the seed given as its high and low 32
 * bits, written to `out` as [high, low] uint32 halves. The same bits as `xxh64`, without BigInt
 * or allocation: the form the router's lookups use. hash.test.ts checks it against a BigInt
 * reference on random inputs that reach every tail of the algorithm.
 */
export function xxh64Into(
  bytes: Uint8Array,
  length: number,
  out: Uint32Array,
  seedHi = 0,
  seedLo = 0,
): void {
  assert(length >= 0 && length <= bytes.length, 'xxh64Into: length past the bytes');
  let at = 0;
  let hHi: number;
  let hLo: number;
  if (length >= 32) {
    add64(seedHi, seedLo, P1_HI, P1_LO);
    add64(rHi, rLo, P2_HI, P2_LO);
    let v1Hi = rHi;
    let v1Lo = rLo;
    add64(seedHi, seedLo, P2_HI, P2_LO);
    let v2Hi = rHi;
    let v2Lo = rLo;
    let v3Hi = seedHi;
    let v3Lo = seedLo;
    // seed - PRIME64_1 is seed + (2^64 - PRIME64_1), the two's complement of the prime.
    add64(seedHi, seedLo, ~P1_HI >>> 0, ~P1_LO >>> 0);
    add64(rHi, rLo, 0, 1);
    let v4Hi = rHi;
    let v4Lo = rLo;
    for (; at + 32 <= length; at += 32) {
      round64(v1Hi, v1Lo, read32(bytes, at + 4), read32(bytes, at));
      v1Hi = rHi;
      v1Lo = rLo;
      round64(v2Hi, v2Lo, read32(bytes, at + 12), read32(bytes, at + 8));
      v2Hi = rHi;
      v2Lo = rLo;
      round64(v3Hi, v3Lo, read32(bytes, at + 20), read32(bytes, at + 16));
      v3Hi = rHi;
      v3Lo = rLo;
      round64(v4Hi, v4Lo, read32(bytes, at + 28), read32(bytes, at + 24));
      v4Hi = rHi;
      v4Lo = rLo;
    }
    // h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)
    rotl64(v1Hi, v1Lo, 1);
    addRotl64(rHi, rLo, v2Hi, v2Lo, 7);
    addRotl64(rHi, rLo, v3Hi, v3Lo, 12);
    addRotl64(rHi, rLo, v4Hi, v4Lo, 18);
    mergeRound64(rHi, rLo, v1Hi, v1Lo);
    mergeRound64(rHi, rLo, v2Hi, v2Lo);
    mergeRound64(rHi, rLo, v3Hi, v3Lo);
    mergeRound64(rHi, rLo, v4Hi, v4Lo);
    hHi = rHi;
    hLo = rLo;
  } else {
    add64(seedHi, seedLo, P5_HI, P5_LO);
    hHi = rHi;
    hLo = rLo;
  }
  add64(hHi, hLo, Math.floor(length / TWO_32), length >>> 0);
  hHi = rHi;
  hLo = rLo;
  for (; at + 8 <= length; at += 8) {
    round64(0, 0, read32(bytes, at + 4), read32(bytes, at));
    rotl64((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, 27);
    mul64(rHi, rLo, P1_HI, P1_LO);
    add64(rHi, rLo, P4_HI, P4_LO);
    hHi = rHi;
    hLo = rLo;
  }
  if (at + 4 <= length) {
    mul64(0, read32(bytes, at), P1_HI, P1_LO);
    rotl64((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, 23);
    mul64(rHi, rLo, P2_HI, P2_LO);
    add64(rHi, rLo, P3_HI, P3_LO);
    hHi = rHi;
    hLo = rLo;
    at += 4;
  }
  for (; at < length; at++) {
    mul64(0, bytes[at] as number, P5_HI, P5_LO);
    rotl64((hHi ^ rHi) >>> 0, (hLo ^ rLo) >>> 0, 11);
    mul64(rHi, rLo, P1_HI, P1_LO);
    hHi = rHi;
    hLo = rLo;
  }
  // The avalanche: h ^= h >> 33; h *= PRIME64_2; h ^= h >> 29; h *= PRIME64_3; h ^= h >> 32.
  mul64(hHi, (hLo ^ (hHi >>> 1)) >>> 0, P2_HI, P2_LO);
  mul64((rHi ^ (rHi >>> 29)) >>> 0, (rLo ^ ((rLo >>> 29) | (rHi << 3))) >>> 0, P3_HI, P3_LO);
  out[0] = rHi;
  out[1] = (rLo ^ rHi) >>> 0;
}

// The halves of the last hash, for the functions below that want one without allocating.
const hashOut = new Uint32Array(2);

/** A uint32 [high, low] pair as an unsigned 64-bit bigint. */
const joinHalves = (hi: number, lo: number): bigint => (BigInt(hi) << 32n) | BigInt(lo);

/**
 * xxHash64 (XXH64 of the xxHash specification, seed 0 unless given) of some bytes, as an
 * unsigned 64-bit bigint. Chosen for its full avalanche and its published test vectors,
 * which hash.test.ts checks. A seed outside 0..2^64-1 counts modulo 2^64. Computed by
 * `xxh64Into`, whose uint32 halves the router's lookups use directly.
 */
export function xxh64(bytes: Uint8Array, seed = 0n): bigint {
  const seed64 = BigInt.asUintN(64, seed);
  xxh64Into(bytes, bytes.length, hashOut, Number(seed64 >> 32n), Number(seed64 & 0xffffffffn));
  return joinHalves(hashOut[0] as number, hashOut[1] as number);
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
 * The size of the reused buffer a lookup encodes its shard key into. A string that might not
 * fit (over a third of this in UTF-16 units) is encoded into a buffer of its own instead.
 */
export const SHARD_KEY_SCRATCH_BYTES = 4096;

// Where a lookup encodes its shard key: `scratch`, or for a string too long for it a buffer of
// the key's own. `scratchBody` is the view past the tag byte, made once so that encoding a
// string does not make one.
const scratch = new Uint8Array(SHARD_KEY_SCRATCH_BYTES);
const scratchBody = scratch.subarray(1);
const scratchView = new DataView(scratch.buffer);
let encoded: Uint8Array = scratch;

/** Encodes a shard-key value (as `encodeShardKey`) into `encoded`; returns its length. */
function encodeToScratch(value: unknown): number {
  encoded = scratch;
  if (value === null || value === undefined) {
    scratch[0] = SHARD_KEY_TAGS.null;
    return 1;
  }
  switch (typeof value) {
    case 'boolean':
      scratch[0] = value ? SHARD_KEY_TAGS.true : SHARD_KEY_TAGS.false;
      return 1;
    case 'number':
      if (!Number.isFinite(value)) throw notScalar(value);
      scratch[0] = SHARD_KEY_TAGS.number;
      // `value + 0` turns -0 into 0: they are one JSON number.
      scratchView.setFloat64(1, value + 0, false);
      return 9;
    case 'string': {
      // A UTF-16 unit takes at most 3 UTF-8 bytes (a surrogate pair 4 for its two units, a
      // lone surrogate 3 as U+FFFD), so 1 + 3n bytes always hold the encoding.
      const bytesMax = 1 + 3 * value.length;
      if (bytesMax > scratch.length) {
        const body = utf8.encode(value);
        encoded = new Uint8Array(body.length + 1);
        encoded[0] = SHARD_KEY_TAGS.string;
        encoded.set(body, 1);
        return encoded.length;
      }
      scratch[0] = SHARD_KEY_TAGS.string;
      // ASCII, the usual key, is its own UTF-8: copying the units is cheaper than a call into
      // the encoder. The first other unit hands the whole string to the encoder instead.
      for (let i = 0; i < value.length; i++) {
        const unit = value.charCodeAt(i);
        if (unit >= 0x80) return 1 + utf8.encodeInto(value, scratchBody).written;
        scratch[i + 1] = unit;
      }
      return 1 + value.length;
    }
    default:
      throw notScalar(value);
  }
}

/**
 * The bytes a shard-key value hashes as: one tag byte, then for a number its IEEE-754 double
 * big-endian (`-0` as `0`, so equal numbers hash alike) and for a string its UTF-8 bytes.
 * Null and a missing value (undefined) are one value; `1` and `"1"` differ by their tag.
 * Arrays, objects and non-finite numbers are refused (ERR_BAD_ARGUMENT): a shard key is a
 * scalar. One value per encoding, so no terminator is needed. Returns a new array; lookups
 * encode into a reused buffer instead.
 */
export function encodeShardKey(value: unknown): Uint8Array {
  const length = encodeToScratch(value);
  return encoded === scratch ? scratch.slice(0, length) : encoded;
}

/** Hashes a shard-key value's encoding into `hashOut`, allocating nothing for most keys. */
function hashToScratch(value: unknown): void {
  const length = encodeToScratch(value);
  xxh64Into(encoded, length, hashOut);
}

/** The 64-bit hash of a shard-key value: xxh64 of its tagged encoding. */
export function hashShardKey(value: unknown): bigint {
  hashToScratch(value);
  return joinHalves(hashOut[0] as number, hashOut[1] as number);
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
  /** The high 32 bits of each position, so lookups compare numbers rather than bigints. */
  readonly positionsHi: Uint32Array;
  /** The low 32 bits of each position. */
  readonly positionsLo: Uint32Array;
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
  const points: Array<{ hi: number; lo: number; shard: number }> = [];
  for (const [shard, name] of shardNames.entries()) {
    for (let i = 0; i < RING_VNODES_PER_SHARD; i++) {
      // vnodePosition's bytes, hashed to halves directly.
      const bytes = utf8.encode(`${name}#${i}`);
      xxh64Into(bytes, bytes.length, hashOut);
      points.push({ hi: hashOut[0] as number, lo: hashOut[1] as number, shard });
    }
  }
  points.sort((a, b) => {
    if (a.hi !== b.hi) return a.hi < b.hi ? -1 : 1;
    if (a.lo !== b.lo) return a.lo < b.lo ? -1 : 1;
    const [x, y] = [shardNames[a.shard] as string, shardNames[b.shard] as string];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return {
    shards: [...shardNames],
    positions: BigUint64Array.from(points, (p) => joinHalves(p.hi, p.lo)),
    positionsHi: Uint32Array.from(points, (p) => p.hi),
    positionsLo: Uint32Array.from(points, (p) => p.lo),
    owners: Uint16Array.from(points, (p) => p.shard),
  };
}

/** The first point at or after the hash [hi, lo] clockwise, wrapping past the top. */
function ringPoint(ring: HashRing, hi: number, lo: number): number {
  const positionsHi = ring.positionsHi;
  const positionsLo = ring.positionsLo;
  let low = 0;
  let high = positionsHi.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const midHi = positionsHi[mid] as number;
    if (midHi < hi || (midHi === hi && (positionsLo[mid] as number) < lo)) low = mid + 1;
    else high = mid;
  }
  return low === positionsHi.length ? 0 : low;
}

const MASK64 = (1n << 64n) - 1n;

/**
 * The shard owning a hash: the first point at or after it clockwise, wrapping past the top.
 * Binary search, so a lookup is O(log points).
 */
export function ringOwnerOfHash(ring: HashRing, hash: bigint): string {
  // A bigint below every position or above every one wraps to the first point, as before.
  const point =
    hash < 0n || hash > MASK64
      ? 0
      : ringPoint(ring, Number(hash >> 32n), Number(hash & 0xffffffffn));
  return ring.shards[ring.owners[point] as number] as string;
}

/**
 * The index in `ring.shards` of the shard owning a shard-key value: `ringOwner` as a
 * position, hashed and searched on uint32 halves without allocating for most keys.
 */
export function ringOwnerIndex(ring: HashRing, value: unknown): number {
  hashToScratch(value);
  return ring.owners[ringPoint(ring, hashOut[0] as number, hashOut[1] as number)] as number;
}

/** The name of the shard owning a shard-key value on a ring. */
export function ringOwner(ring: HashRing, value: unknown): string {
  return ring.shards[ringOwnerIndex(ring, value)] as string;
}

// Rings of the shard lists seen lately. A router asks about one or two lists (old and new
// during a rebalance), so a few entries keep rebuilding off the write path. Keyed by the
// names as JSON, which no two lists share (a newline-joined key would confuse ['a\nb'] with
// ['a', 'b']).
const RINGS_CACHED_MAX = 8;
const rings = new Map<string, HashRing>();

function ringOf(names: readonly string[]): HashRing {
  const key = JSON.stringify(names);
  let ring = rings.get(key);
  if (ring === undefined) {
    ring = buildRing(names);
    if (rings.size >= RINGS_CACHED_MAX) rings.delete(rings.keys().next().value as string);
    rings.set(key, ring);
  }
  return ring;
}

// The ring last used for each shard list object (a config's `shards`), so a lookup with the
// same list neither maps nor joins its names. Weak, so a list dropped by a cluster.json reload
// goes with its entry.
const ringsByList = new WeakMap<readonly { name: string }[], HashRing>();

/** The ring of a shard list, its names checked against the ring's in case the list changed. */
function ringOfList(shards: readonly { name: string }[]): HashRing {
  const ring = ringsByList.get(shards);
  // Lists are edited in place (a config being parsed or edited pushes shards), so the ring
  // remembered for this object is used only while its names are still the list's, in order;
  // comparing a handful of strings is far cheaper than mapping and joining them.
  if (ring !== undefined && ring.shards.length === shards.length) {
    let same = true;
    for (let i = 0; i < shards.length && same; i++) {
      same = ring.shards[i] === (shards[i] as { name: string }).name;
    }
    if (same) return ring;
  }
  const fresh = ringOf(shards.map((s) => s.name));
  ringsByList.set(shards, fresh);
  return fresh;
}

/**
 * The shard that owns a shard-key value, among `shards` (cluster.json's list, or any list of
 * named things). The answer depends only on the value and the set of names, not on their
 * order. Adding a shard moves only the values the new shard now owns (about 1/n of them);
 * removing one moves only its own values. Arrays and objects are refused (ERR_BAD_ARGUMENT).
 * The ring is remembered per list object, so routing with the same list is a hash and a
 * binary search.
 */
export function shardFor<T extends { name: string }>(value: unknown, shards: readonly T[]): T {
  const ring = ringOfList(shards);
  // The ring's names are the list's, in order, so the owner's index in one is its index in
  // the other.
  return shards[ringOwnerIndex(ring, value)] as T;
}

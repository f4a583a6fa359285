/**
 * Document ids: UUIDv7 (RFC 9562) as 16-byte keys and canonical lowercase strings.
 * Ids made by one process strictly increase, even within one millisecond, because a 42-bit
 * counter (RFC 9562 §6.2, method 1) sits between the timestamp and the random tail.
 */

import { randomFillSync } from 'node:crypto';

/** Length of an id in bytes. */
export const ID_BYTES = 16;

const COUNTER_BITS_HIGH = 2 ** 38;
const COUNTER_MAX = 2 ** 42 - 1;
const RANDOM_POOL_BYTES = 4096;

let lastMs = 0;
let counter = 0;
const pool = Buffer.alloc(RANDOM_POOL_BYTES);
let poolOffset = RANDOM_POOL_BYTES;

function randomBytes(count: number): Buffer {
  if (poolOffset + count > RANDOM_POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

/** A fresh counter start: random, with the top bit clear so a millisecond has room to count. */
function seedCounter(): number {
  return randomBytes(6).readUIntBE(0, 6) % 2 ** 41;
}

/** A new id, greater than every id this process made before. */
export function newId(nowMs: number = Date.now()): Buffer {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    counter = seedCounter();
  } else if (counter >= COUNTER_MAX) {
    // The counter ran out inside one millisecond (or the clock went back): borrow the next one.
    lastMs += 1;
    counter = seedCounter();
  } else {
    counter += 1;
  }
  const id = Buffer.allocUnsafe(ID_BYTES);
  id.writeUIntBE(lastMs, 0, 6);
  const low24 = counter % 2 ** 24;
  id[6] = 0x70 | (Math.floor(counter / COUNTER_BITS_HIGH) & 0x0f);
  id[7] = Math.floor(counter / 2 ** 30) & 0xff;
  id[8] = 0x80 | (Math.floor(counter / 2 ** 24) & 0x3f);
  id[9] = low24 >>> 16;
  id[10] = (low24 >>> 8) & 0xff;
  id[11] = low24 & 0xff;
  randomBytes(4).copy(id, 12);
  return id;
}

/** The two lowercase hex digits of each byte, as character codes. */
const HEX_HIGH = Array.from({ length: 256 }, (_, i) => '0123456789abcdef'.charCodeAt(i >>> 4));
const HEX_LOW = Array.from({ length: 256 }, (_, i) => '0123456789abcdef'.charCodeAt(i & 15));
const DASHED_CHARS = 36;
/** The character codes of the id being formatted, dashes in place (reused: one at a time). */
const idChars: number[] = new Array<number>(DASHED_CHARS).fill('-'.charCodeAt(0));

/**
 * The canonical form: lowercase, dashed (`0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f`). Made as
 * one flat string from its character codes: every row of a query gets one, and a string
 * built by 20 concatenations costs twice as much once it is serialised (issue 25).
 */
export function formatId(id: Uint8Array): string {
  let at = 0;
  for (let i = 0; i < ID_BYTES; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) at++;
    const byte = id[i] as number;
    idChars[at++] = HEX_HIGH[byte] as number;
    idChars[at++] = HEX_LOW[byte] as number;
  }
  return String.fromCharCode.apply(null, idChars);
}

/** The value of each hex digit by UTF-16 code unit, -1 for every other unit. */
const HEX_VALUE = new Int8Array(0x10000).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE[i.toString(16).charCodeAt(0)] = i;
  HEX_VALUE[i.toString(16).toUpperCase().charCodeAt(0)] = i;
}

const DASH = 0x2d;

/**
 * Parses an id written as a UUID, dashed or as 32 hex digits, in any letter case.
 * Returns undefined for anything else, so callers choose the error to raise.
 */
export function parseId(text: unknown): Buffer | undefined {
  if (typeof text !== 'string') return undefined;
  // Every document of a bulk insert with ids comes through here: one pass, no regex.
  const dashed = text.length === 36;
  if (!dashed && text.length !== 32) return undefined;
  const id = Buffer.allocUnsafe(ID_BYTES);
  let at = 0;
  for (let i = 0; i < ID_BYTES; i++) {
    if (dashed && (i === 4 || i === 6 || i === 8 || i === 10)) {
      if (text.charCodeAt(at) !== DASH) return undefined;
      at += 1;
    }
    const high = HEX_VALUE[text.charCodeAt(at)] as number;
    const low = HEX_VALUE[text.charCodeAt(at + 1)] as number;
    if ((high | low) < 0) return undefined;
    id[i] = (high << 4) | low;
    at += 2;
  }
  return id;
}

/** The millisecond timestamp held by a UUIDv7 id. */
export function idTimestampMs(id: Uint8Array): number {
  return Buffer.from(id.buffer, id.byteOffset, ID_BYTES).readUIntBE(0, 6);
}

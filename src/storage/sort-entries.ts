/**
 * Sorts a batch's index entries into LMDB's order (key bytes, then id bytes) before they are
 * put. Pure; it decides no order of its own: every tie it cannot settle by a key's first
 * bytes goes to compareBytes, the order LMDB gives keys.
 */

import { compareBytes } from './codec/index.js';

/**
 * One index entry: the encoded value (the key) and the document id (the data item), with the
 * key's first PREFIX_BYTES bytes as a number (see sortEntries). Made by indexEntry.
 */
export interface IndexEntry {
  key: Buffer;
  id: Buffer;
  prefix: number;
}

/** Bits of a double's mantissa: a sort number holds a key prefix and a position in them. */
const EXACT_BITS = 53;

/** Key bytes an entry's `prefix` holds: 40 bits leave 13 for positions (8,192 entries). */
const PREFIX_BYTES = 5;

/**
 * An entry for `key` and `id`. Its prefix is read here, while the key was just written and
 * is in the cache: read in the sort, far from where it was made, it cost twice the sort.
 */
export function indexEntry(key: Buffer, id: Buffer): IndexEntry {
  let prefix = 0;
  for (let j = 0; j < PREFIX_BYTES; j++) {
    prefix = prefix * 256 + (j < key.length ? (key[j] as number) : 0);
  }
  return { key, id, prefix };
}

function byKey(a: IndexEntry, b: IndexEntry): number {
  return compareBytes(a.key, b.key);
}

function byKeyThenId(a: IndexEntry, b: IndexEntry): number {
  return compareBytes(a.key, b.key) || compareBytes(a.id, b.id);
}

/**
 * The entries in key order, then id order. When `idsAscending` (entries were made in
 * increasing id order), entries with equal keys keep their order.
 *
 * A comparator sort of a batch's entries took an eighth of a bulk load's profile (issue 22):
 * its calls dominate. Here each entry becomes one number, its key's first bytes (`prefix`) and
 * then its position, and a typed array sorts those natively; only runs whose first bytes are equal go
 * to the comparator, and low-cardinality keys arrive in those runs already in order, which
 * the stable sort confirms in one pass. A prefix that is smaller means a key that is smaller
 * (a shorter key is padded with zeros, and a key that ends sorts first), so the runs are the
 * only places the numbers and compareBytes can disagree.
 */
export function sortEntries(entries: IndexEntry[], idsAscending: boolean): IndexEntry[] {
  const count = entries.length;
  if (count < 2) return entries;
  const positionBits = Math.max(1, Math.ceil(Math.log2(count)));
  const scale = 2 ** positionBits;
  // Past 8,192 entries the positions need more bits than the prefix leaves: drop its last
  // bytes (whole bytes, so that a prefix stays a prefix).
  const dropBytes = Math.max(0, PREFIX_BYTES - Math.floor((EXACT_BITS - positionBits) / 8));
  const divisor = 256 ** dropBytes;
  const order = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const prefix = (entries[i] as IndexEntry).prefix;
    order[i] = (dropBytes === 0 ? prefix : Math.floor(prefix / divisor)) * scale + i;
  }
  order.sort();
  const sorted: IndexEntry[] = new Array(count);
  for (let k = 0; k < count; k++) {
    // The position is the number's low bits; `%` on doubles is a call to fmod, this is not.
    const number = order[k] as number;
    sorted[k] = entries[number - Math.floor(number / scale) * scale] as IndexEntry;
  }
  const compare = idsAscending ? byKey : byKeyThenId;
  let start = 0;
  let startPrefix = Math.floor((order[0] as number) / scale);
  for (let k = 1; k <= count; k++) {
    const prefix = k < count ? Math.floor((order[k] as number) / scale) : -1;
    if (prefix === startPrefix) continue;
    if (k - start > 1) sortRun(sorted, start, k, compare);
    start = k;
    startPrefix = prefix;
  }
  return sorted;
}

/** Sorts `list[start, end)` in place with `compare`, keeping equal entries in order. */
function sortRun(
  list: IndexEntry[],
  start: number,
  end: number,
  compare: (a: IndexEntry, b: IndexEntry) => number,
): void {
  const run = list.slice(start, end).sort(compare);
  for (let i = 0; i < run.length; i++) list[start + i] = run[i] as IndexEntry;
}

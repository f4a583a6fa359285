/**
 * Sorts a batch's index entries into LMDB's order (key bytes, then id bytes) before they are
 * put. Pure; it decides no order of its own: every tie it cannot settle by a key's first
 * bytes goes to compareBytes, the order LMDB gives keys.
 */

import { compareBytes, KEY_HEAD_BYTES } from './codec/index.js';

/**
 * One index entry: the encoded value (the key) and the document id (the data item), with
 * the key's `head` (its first bytes as a number, see EncodedKey), which the sort reads instead
 * of the key: read in the sort, far from where the key was made, the key bytes cost twice
 * the rest of the sort.
 */
export interface IndexEntry {
  key: Buffer;
  id: Buffer;
  head: number;
}

/** Bits of a double's mantissa: a sort number holds a key's head and a position. */
const EXACT_BITS = 53;

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
 * its calls dominate. Here each entry becomes one number, its key's first bytes (`head`) and
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
  // Past 8,192 entries the positions need more bits than the head leaves: drop its last
  // bytes (whole bytes, so that a head stays a prefix).
  const dropBytes = Math.max(0, KEY_HEAD_BYTES - Math.floor((EXACT_BITS - positionBits) / 8));
  const divisor = 256 ** dropBytes;
  const order = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const head = (entries[i] as IndexEntry).head;
    order[i] = (dropBytes === 0 ? head : Math.floor(head / divisor)) * scale + i;
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

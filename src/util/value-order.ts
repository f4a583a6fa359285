/**
 * The one total order over JSON values (DESIGN §3), shared by index keys, ORDER BY, range
 * comparisons and router merges: missing/null < false < true < numbers < strings < arrays
 * < objects. Numbers compare numerically (1 = 1.0), strings by Unicode code point. Pure.
 */

/** Rank of a value's type in the total order. */
export function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  switch (typeof value) {
    case 'boolean':
      return value ? 2 : 1;
    case 'number':
      return 3;
    case 'string':
      return 4;
    default:
      return Array.isArray(value) ? 5 : 6;
  }
}

/**
 * The type family of a value: its rank, with false and true one family. Values of different
 * families are never equal and never ordered by a comparison (DESIGN §4); null and missing
 * (family 0) are not compared at all.
 */
export function typeFamily(value: unknown): number {
  const rank = typeRank(value);
  return rank === 2 ? 1 : rank;
}

/**
 * Compares strings by code point. JavaScript's `<` compares UTF-16 code units, which puts
 * characters above U+FFFF before U+E000–U+FFFF; shifting those two ranges fixes that.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800) ca += ca <= 0xdfff ? 0x2000 : -0x800;
    if (cb >= 0xd800) cb += cb <= 0xdfff ? 0x2000 : -0x800;
    return ca < cb ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Compares two JSON values in the total order; returns a negative, zero or positive number. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 3:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 4:
      return compareStrings(a as string, b as string);
    case 5:
      return compareArrays(a as unknown[], b as unknown[]);
    case 6:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
    default:
      return 0;
  }
}

function compareArrays(a: unknown[], b: unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ka = Object.keys(a).sort(compareStrings);
  const kb = Object.keys(b).sort(compareStrings);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(ka[i] as string, kb[i] as string);
    if (c !== 0) return c;
    const v = compareValues(a[ka[i] as string], b[kb[i] as string]);
    if (v !== 0) return v;
  }
  return ka.length - kb.length;
}

/** True for the values an index can hold: null, booleans, finite numbers and strings. */
export function isScalar(value: unknown): value is null | boolean | number | string {
  return (
    value === null ||
    typeof value === 'boolean' ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

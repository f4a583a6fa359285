/** OFFSET and LIMIT (DESIGN §4), applied once, by a node's executor and a router alike. Pure. */

/** The rows after the first `offset`, at most `limit` of them; pulls no row past the last. */
export function* offsetLimit<T>(rows: Iterable<T>, offset: number, limit: number): Generator<T> {
  if (limit === 0) return;
  let skipped = 0;
  let taken = 0;
  for (const row of rows) {
    if (skipped < offset) {
      skipped++;
      continue;
    }
    yield row;
    if (++taken >= limit) return;
  }
}

/**
 * The keys that decide when two rows are "the same": the group key of GROUP BY, the DISTINCT
 * key of a projected row and the join key of a hash join. All three tell values apart by
 * type (1 and "1" differ) and see 1 and 1.0 as one value. Pure.
 */

/**
 * Interns GROUP BY keys for a Map: one grouping value that is a scalar (or null) is its own
 * key (a Map tells 1 from "1" and sees 1 and 1.0, 0 and -0, as one); any other list of values
 * maps to one object per JSON text, so no text can collide with a string value.
 */
export class GroupKeys {
  private readonly texts = new Map<string, object>();

  keyOf(values: readonly unknown[]): unknown {
    if (values.length === 1) {
      const first = values[0];
      if (first === null || typeof first !== 'object') return first;
    }
    const text = JSON.stringify(values);
    let key = this.texts.get(text);
    if (!key) {
      key = { text };
      this.texts.set(text, key);
    }
    return key;
  }
}

/** The DISTINCT key of a projected row: its JSON text (key order is the select list's). */
export function distinctKey(document: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(document);
}

/**
 * The hash-join key of a value: undefined for null and missing (they never join, as `=` is
 * never true for them), else the value's JSON text.
 */
export function joinKey(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return JSON.stringify(value);
}

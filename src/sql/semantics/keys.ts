/**
 * The keys that decide when two rows are "the same": the group key of GROUP BY, the DISTINCT
 * key of a projected row and the join key of a hash join. All three agree with `=`: they tell
 * values apart by type (1 and "1" differ), see 1 and 1.0 as one value, and see two objects
 * with the same members in another order as one (their text lists members by name). Pure.
 */

/** True when `value` is an object or an array: its JSON text depends on member order. */
function isComposite(value: unknown): boolean {
  return value !== null && typeof value === 'object';
}

/**
 * The JSON text of a value with every object's members sorted by name, so that two values `=`
 * calls equal have one text. Members whose value is undefined are left out and undefined array
 * items are written null, as JSON.stringify does; a scalar, or an array of scalars (the usual
 * case), is JSON.stringify's text.
 */
export function canonicalJson(value: unknown): string | undefined {
  if (!isComposite(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (!value.some(isComposite)) return JSON.stringify(value);
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      text += `${i === 0 ? '' : ','}${canonicalJson(value[i]) ?? 'null'}`;
    }
    return `${text}]`;
  }
  const object = value as Record<string, unknown>;
  let text = '{';
  for (const name of Object.keys(object).sort()) {
    const member = canonicalJson(object[name]);
    if (member === undefined) continue;
    text += `${text.length === 1 ? '' : ','}${JSON.stringify(name)}:${member}`;
  }
  return `${text}}`;
}

/**
 * Interns GROUP BY keys for a Map: one grouping value that is a scalar (or null) is its own
 * key (a Map tells 1 from "1" and sees 1 and 1.0, 0 and -0, as one); any other list of values
 * maps to one object per JSON text, so no text can collide with a string value.
 */
export class GroupKeys {
  private readonly texts = new Map<string, object>();

  keyOf(values: readonly unknown[]): unknown {
    return values.length === 1 ? this.keyOfValue(values[0]) : this.intern(values);
  }

  /** The key of one grouping value: a scalar (or null) is its own key. */
  keyOfValue(value: unknown): unknown {
    return isComposite(value) ? this.intern([value]) : value;
  }

  private intern(values: readonly unknown[]): object {
    const text = canonicalJson(values) as string;
    let key = this.texts.get(text);
    if (!key) {
      key = { text };
      this.texts.set(text, key);
    }
    return key;
  }
}

/**
 * The DISTINCT key of a projected row. Its members come in the select list's order, the same
 * for every row, so only values that are objects or arrays need the canonical text.
 */
export function distinctKey(document: Readonly<Record<string, unknown>>): string {
  for (const name in document) {
    if (isComposite(document[name])) return canonicalJson(document) as string;
  }
  return JSON.stringify(document);
}

/**
 * The hash-join key of a value: undefined for null and missing (they never join, as `=` is
 * never true for them), else the value's JSON text.
 */
export function joinKey(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return canonicalJson(value);
}

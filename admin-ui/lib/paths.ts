/** Columns from documents' paths, and reading and showing a value at a path. Pure. */

/** Most columns a grid gets from the documents' paths; more would be unreadable. */
export const COLUMNS_MAX = 40;
/** Characters a cell shows before it truncates a value; the whole value is one click away. */
export const CELL_CHARS_MAX = 80;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The paths of `docs` as columns: `_id` first, then top-level keys in order of appearance,
 * with an object's own keys spread one level (`fare.total`), so nested documents read as a
 * table while arrays and deeper objects stay one cell.
 */
export function columnPaths(docs: ReadonlyArray<Record<string, unknown>>): string[] {
  const paths = new Set<string>();
  for (const doc of docs) {
    for (const [key, value] of Object.entries(doc)) {
      if (isPlainObject(value) && Object.keys(value).length > 0) {
        for (const inner of Object.keys(value)) paths.add(`${key}.${inner}`);
      } else paths.add(key);
    }
  }
  const ordered = [...paths].filter((p) => p !== '_id');
  return (paths.has('_id') ? ['_id', ...ordered] : ordered).slice(0, COLUMNS_MAX);
}

/** The value at a dotted path, or undefined. */
export function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const part of path.split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = value[part];
  }
  return value;
}

/** A value as one line of text: JSON for arrays and objects, nothing for undefined. */
export function showValue(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** `showValue`, cut at CELL_CHARS_MAX with an ellipsis. */
export function cellText(value: unknown): string {
  const text = showValue(value);
  return text.length > CELL_CHARS_MAX ? `${text.slice(0, CELL_CHARS_MAX)}…` : text;
}

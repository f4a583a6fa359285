/**
 * Result rows as a text table: one column per key of the first rows, nested values as
 * compact JSON, long cells cut to fit. Scripts use --json instead.
 */

const CELL_CHARS_MAX = 48;
const COLUMNS_FROM_ROWS = 50;

function cell(value: unknown): string {
  const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > CELL_CHARS_MAX ? `${text.slice(0, CELL_CHARS_MAX - 1)}…` : text;
}

/** Renders rows as an aligned table with a header line. */
export function renderTable(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(no rows)';
  const columns: string[] = [];
  for (const row of rows.slice(0, COLUMNS_FROM_ROWS)) {
    for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) =>
    Math.max(c.length, ...cells.map((r) => (r[i] as string).length)),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/**
 * `docdb query <file> "<sql>"`: runs one statement against a local data file and prints the
 * plan, count and time, then the rows (a table, or JSON with --json). Reads work while a
 * node holds the file; a write needs the file to be free, and otherwise fails at once naming
 * the process and POST /query.
 */

import type { QueryResult } from '../engine/index.js';
import { parse } from '../sql/index.js';
import { openExisting, openForWriting, VIA_NODE } from './open-file.js';
import { dim, printJson } from './output.js';
import { renderTable } from './table.js';

/** Prints a result for people: a summary line, then the rows or the affected count. */
export function printResult(result: QueryResult): void {
  const summary = `plan: ${result.plan}  count: ${result.count}  time: ${result.executionMs.toFixed(2)} ms`;
  process.stdout.write(`${dim(summary)}\n`);
  if (result.affected !== undefined) {
    const ids = result.ids
      ? ` (ids: ${result.ids.slice(0, 5).join(', ')}${result.ids.length > 5 ? ', …' : ''})`
      : '';
    process.stdout.write(`${result.affected} document(s) affected${ids}\n`);
    return;
  }
  process.stdout.write(`${renderTable(result.documents)}\n`);
}

/** Runs `docdb query` (declared in commands.ts). */
export async function runQuery(
  file: string,
  sql: string,
  options: { json?: boolean; params?: unknown[] },
): Promise<void> {
  const params = options.params ?? [];
  // Reads open read-only so they work beside a running node; writes need the lock.
  const reads = parse(sql).statement.kind === 'select';
  const db = reads ? await openExisting(file) : await openForWriting(file, VIA_NODE.query());
  try {
    const result = await db.query(sql, params);
    if (options.json) printJson(result);
    else printResult(result);
  } finally {
    await db.close();
  }
}

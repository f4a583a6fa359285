/**
 * `docdb query <file> "<sql>"`: runs one statement against a local data file and prints the
 * plan, count and time, then the rows (a table, or JSON with --json). Reads work while a
 * node holds the file; a write needs the file to be free, and otherwise fails at once naming
 * the process and POST /query.
 */

import { type Command, InvalidArgumentError } from 'commander';
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

/** The value of --params: a JSON array; anything else is a usage error naming the flag. */
function paramsArgument(raw: string): unknown[] {
  const example = 'give a JSON array, e.g. \'["ABC123", 5]\'';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new InvalidArgumentError(`it is not JSON (${(error as Error).message}); ${example}`);
  }
  if (!Array.isArray(value)) throw new InvalidArgumentError(`it is not an array; ${example}`);
  return value;
}

export function registerQuery(program: Command): void {
  program
    .command('query')
    .description('run one SQL statement against a local data file and print the results')
    .argument('<file>', 'a data directory or its data.docdb file')
    .argument('<sql>', 'the statement, e.g. "SELECT * FROM orders WHERE pnr = \'ABC123\'"')
    .option('--json', 'print the whole result as JSON for scripts')
    .option('--params <json>', 'values for ? placeholders, as a JSON array', paramsArgument)
    .action(async (file: string, sql: string, options: { json?: boolean; params?: unknown[] }) => {
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
    });
}

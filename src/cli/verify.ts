/**
 * `docdb verify <file> [--peer <file>]`: checks a whole data file, like SQLite's
 * integrity_check, and prints what is wrong (the first problems one by one, then totals by
 * kind); with `--peer`, also compares its change log with another node's and says where
 * their histories part. Exits 1 when anything is wrong or the logs diverged. Read-only and
 * without the writer lock: it runs beside a node, reading one snapshot.
 */

import { type Database, open } from '../engine/index.js';
import { isDbError } from '../errors/index.js';
import { compareLogs } from '../replication/index.js';
import type { LogComparison, VerifyReport } from '../types/index.js';
import { bold, EXIT_FAILURE, exitCodeOf, printJson } from './output.js';
import { progressBar } from './progress.js';

function printReport(report: VerifyReport): void {
  const { checked } = report;
  const stale = checked.staleIndexes > 0 ? ` (${checked.staleIndexes} stale, not checked)` : '';
  const lines = [
    `${bold('file')}     ${report.file}`,
    `${bold('checked')}  ${checked.collections} collections, ${checked.documents} documents, ${checked.indexes} indexes${stale} with ${checked.indexEntries} entries, ${checked.changes} change-log entries`,
  ];
  if (report.ok) {
    lines.push('ok: no problems found');
  } else {
    for (const problem of report.problems) lines.push(`  ${problem.kind}: ${problem.message}`);
    const unlisted = report.problemCount - report.problems.length;
    if (unlisted > 0) lines.push(`  … and ${unlisted} more`);
    const byKind = Object.entries(report.problemCounts)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ');
    lines.push(`${report.problemCount} problems: ${byKind}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Logs that agree, or one behind the other, are fine; parted or unplaceable ones are not. */
function logsAgree(comparison: LogComparison | undefined): boolean {
  return comparison === undefined || ['same', 'behind'].includes(comparison.verdict);
}

/** Opens a file for verify; a file that cannot be opened is a verdict too, for scripts. */
async function openForVerify(
  file: string,
  json: boolean | undefined,
): Promise<Database | undefined> {
  try {
    // Damaged collections and indexes are what verify is for: its own walk keeps LMDB off them.
    return await open(file, { readOnly: true, allowDamagedTrees: true });
  } catch (error) {
    if (!json || !isDbError(error)) throw error;
    printJson({ file, ok: false, error: { code: error.code, message: error.message } });
    // The exit code the same error has without --json (a truncated file: storage).
    process.exitCode = exitCodeOf(error.code);
    return undefined;
  }
}

/** Runs `docdb verify` (declared in commands.ts). */
export async function runVerify(
  file: string,
  options: { json?: boolean; peer?: string },
): Promise<void> {
  const db = await openForVerify(file, options.json);
  if (!db) return;
  let peer: Database | undefined;
  const bar = progressBar(
    'verifying [{bar}] {value}/{total} records {eta_formatted} left',
    options.json,
  );
  try {
    if (options.peer !== undefined) {
      peer = await openForVerify(options.peer, options.json);
      if (!peer) return;
    }
    const report = await db.verify((done, total) => bar.update(done, total));
    bar.stop();
    const comparison =
      peer && compareLogs(db.store, peer.store, { file, peer: options.peer as string });
    const ok = report.ok && logsAgree(comparison);
    if (options.json) printJson(comparison ? { ...report, ok, peer: comparison } : report);
    else {
      printReport(report);
      if (comparison) process.stdout.write(`${bold('peer')}     ${comparison.message}\n`);
    }
    if (!ok) process.exitCode = EXIT_FAILURE;
  } finally {
    bar.stop();
    await peer?.close();
    await db.close();
  }
}

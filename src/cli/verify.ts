/**
 * `docdb verify <file>`: checks a whole data file, like SQLite's integrity_check, and prints
 * what is wrong (the first problems one by one, then totals by kind); exits 1 when anything
 * is. Read-only and without the writer lock: it runs beside a node, reading one snapshot.
 */

import type { Command } from 'commander';
import { open } from '../engine/index.js';
import { isDbError } from '../errors/index.js';
import type { VerifyReport } from '../types/index.js';
import { bold, EXIT_FAILURE, printJson } from './output.js';
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

async function verifyCommand(file: string, options: { json?: boolean }): Promise<void> {
  let db: Awaited<ReturnType<typeof open>>;
  try {
    // Damaged collections and indexes are what verify is for: its own walk keeps LMDB off them.
    db = await open(file, { readOnly: true, allowDamagedTrees: true });
  } catch (error) {
    // A file that cannot even be opened (cut, not a data file) is a verdict too, for scripts.
    if (!options.json || !isDbError(error)) throw error;
    printJson({ file, ok: false, error: { code: error.code, message: error.message } });
    process.exitCode = EXIT_FAILURE;
    return;
  }
  const bar = progressBar(
    'verifying [{bar}] {value}/{total} records {eta_formatted} left',
    options.json,
  );
  try {
    const report = await db.verify((done, total) => bar.update(done, total));
    bar.stop();
    if (options.json) printJson(report);
    else printReport(report);
    if (!report.ok) process.exitCode = EXIT_FAILURE;
  } finally {
    bar.stop();
    await db.close();
  }
}

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description(
      'check a whole data file: pages are sound, documents decode, indexes agree with documents, the change log is contiguous, counts match (read-only; exits 1 when anything is wrong)',
    )
    .argument('<file>', 'a data directory or its data.docdb file')
    .option('--json', 'print the report as JSON for scripts')
    .action(verifyCommand);
}

/** `docdb inspect <file>`: storage facts of a data file, read-only, no server. */

import type { Command } from 'commander';
import type { StoreStats } from '../engine/index.js';
import { open } from '../engine/index.js';
import { bold, dim, formatBytes, printJson } from './output.js';

/** Prints storage facts for people (inspect, and `stats` in the repl). */
export function printStats(stats: StoreStats): void {
  const lines = [
    `${bold('file')}        ${stats.file}`,
    `${bold('size')}        ${formatBytes(stats.fileSizeBytes)} (${stats.fileSizeBytes} bytes)`,
    `${bold('pages')}       ${stats.pages.used} used, ${stats.pages.free} free, ${stats.pages.total} total of ${stats.pageSizeBytes} bytes`,
    `${bold('change log')}  ${stats.changeLog.entries} entries, last seq ${stats.changeLog.lastSeq}, term ${stats.term}`,
    `${bold('collections')} ${stats.collections.length}`,
  ];
  for (const c of stats.collections) {
    lines.push(`  ${bold(c.name)}  ${c.count} documents`);
    for (const i of c.indexes) {
      const flags = [i.unique ? 'unique' : '', i.multikey ? 'multikey' : '', i.state]
        .filter(Boolean)
        .join(', ');
      lines.push(`    ${i.name} (${i.paths.join(', ')}) ${dim(`[${flags}]`)} ${i.entries} entries`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('print size, pages, collections and indexes of a data file (starts no server)')
    .argument('<file>', 'a data directory or its data.docdb file')
    .option('--json', 'print JSON for scripts')
    .action(async (file: string, options: { json?: boolean }) => {
      const db = await open(file, { readOnly: true });
      try {
        const stats = db.stats();
        if (options.json) printJson(stats);
        else printStats(stats);
      } finally {
        await db.close();
      }
    });
}

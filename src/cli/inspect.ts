/** `docdb inspect <file>`: storage facts of a data file, read-only, no server. */

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

/** Runs `docdb inspect` (declared in commands.ts). */
export async function runInspect(file: string, options: { json?: boolean }): Promise<void> {
  const db = await open(file, { readOnly: true });
  try {
    const stats = db.stats();
    if (options.json) printJson(stats);
    else printStats(stats);
  } finally {
    await db.close();
  }
}

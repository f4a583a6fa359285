/**
 * `docdb compact <file> <collection>`: rewrites one collection compactly. It takes the
 * file's writer lock, so it refuses, naming the process and POST /admin/compact, while a
 * node holds the file.
 */

import { dbError } from '../errors/index.js';
import { resolveDataFile } from '../storage/index.js';
import { dataFileExists, openForWriting, VIA_NODE } from './open-file.js';
import { bold, formatBytes, printJson } from './output.js';

/** Runs `docdb compact` (declared in commands.ts). */
export async function runCompact(
  file: string,
  collection: string,
  options: { json?: boolean },
): Promise<void> {
  if (!dataFileExists(file)) {
    throw dbError('ERR_STORAGE_NOT_FOUND', 'noFile', { file: resolveDataFile(file).file });
  }
  const db = await openForWriting(file, VIA_NODE.compact(collection));
  try {
    const sizeBefore = db.stats().fileSizeBytes;
    const result = await db.compact(collection);
    if (options.json) {
      printJson({ ...result, fileSizeBytesBefore: sizeBefore });
      return;
    }
    process.stdout.write(
      [
        `${bold('compacted')}  ${result.collection}`,
        `${bold('pages')}      ${result.pagesBefore} → ${result.pagesAfter} (${result.pagesCompacted} reclaimed)`,
        `${bold('reclaimed')}  ${formatBytes(result.bytesReclaimed)} (${result.bytesReclaimed} bytes) returned to the free list`,
        `${bold('file size')}  ${formatBytes(sizeBefore)} before, ${formatBytes(result.fileSizeBytes)} after (LMDB reuses free pages; the file does not shrink)`,
      ].join('\n') + '\n',
    );
  } finally {
    await db.close();
  }
}

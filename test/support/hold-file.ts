/** A separate process holding a data directory open for writing, as a running node would. */

import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * Starts the holder and resolves once it has the writer lock and each of `inserts` (documents
 * of `orders`, one write each) is acknowledged; kill it with SIGKILL. It writes nothing else,
 * so what it acknowledged waits in the write-ahead log for a checkpoint.
 */
export async function holdFile(dir: string, inserts: unknown[] = []): Promise<ChildProcess> {
  const holder = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('${path.join(ROOT, 'src/index.ts')}').then(async ({ open }) => {
         const db = await open(${JSON.stringify(dir)});
         for (const doc of ${JSON.stringify(inserts)}) await db.collection('orders').insert(doc);
         console.log('holding'); setInterval(() => {}, 1000);
       });`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
  return holder;
}

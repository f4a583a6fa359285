/** A separate process holding a data directory open for writing, as a running node would. */

import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Starts the holder and resolves once it has the writer lock; kill it with SIGKILL. */
export async function holdFile(dir: string): Promise<ChildProcess> {
  const holder = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('${path.join(ROOT, 'src/index.ts')}').then(async ({ open }) => {
         await open(${JSON.stringify(dir)}); console.log('holding'); setInterval(() => {}, 1000);
       });`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
  return holder;
}

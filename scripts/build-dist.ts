/**
 * `npm run build` (and so `prepare`, `pretest`, `bench`, `bench:storage`): compiles src/ into
 * a fresh folder beside dist/ and swaps it in with renames. A `bin/docdb` started while a
 * build runs loads whole modules of the old build or of the new one, never a module tsc is
 * half-way through writing; a failed compile leaves dist/ as it was. Options: `--project
 * <tsconfig>` (default tsconfig.build.json) and `--out <dir>` (default dist), relative to the
 * working directory.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { isProcessAlive } from '../src/util/process-alive.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined
    ? (process.argv[at + 1] as string)
    : fallback;
}

const project = option('--project', 'tsconfig.build.json');
const out = path.resolve(option('--out', 'dist'));
// Siblings of dist/, so renames stay on one file system and source maps keep their paths.
const parent = path.dirname(out);
const prefix = `.${path.basename(out)}-`;
const next = path.join(parent, `${prefix}next-${process.pid}`);

/** Removes what builds that died left behind (their pid is part of the name). */
function removeLeftovers(): void {
  for (const name of fs.readdirSync(parent)) {
    const match = name.startsWith(prefix) ? /-(\d+)$/.exec(name) : null;
    if (match && !isProcessAlive(Number(match[1]))) {
      fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    }
  }
}

/**
 * Moves the current dist/ aside and the new build in. Another build may swap its own in
 * between the two renames; then the second rename finds dist/ again, and it is moved aside
 * too (both builds come from the same sources).
 */
function swapIn(): void {
  for (let attempt = 0; ; attempt++) {
    const old = path.join(parent, `${prefix}old-${process.pid}-${attempt}`);
    try {
      fs.renameSync(out, old);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      fs.renameSync(next, out);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt >= 10) throw error;
    } finally {
      fs.rmSync(old, { recursive: true, force: true });
    }
  }
}

removeLeftovers();
fs.rmSync(next, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', next], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  fs.rmSync(next, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
swapIn();

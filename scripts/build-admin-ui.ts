/**
 * `npm run build`'s second step: builds admin-ui/ with `next build` into admin-ui/out (the
 * static files the node serves at /ui/), unless admin-ui/.build-stamp shows that the same
 * sources were built already, so `npm test`'s pretest build stays quick. A failed build
 * leaves no stamp, so the next run builds again. It bundles docdb/client from dist/, which
 * the first step built.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { adminUiStamp } from './admin-ui-stamp.js';

const dir = path.resolve(import.meta.dirname, '../admin-ui');
const stampFile = path.join(dir, '.build-stamp');
const require = createRequire(path.join(dir, 'package.json'));
const nextVersion = (require('next/package.json') as { version: string }).version;
/** What the UI bundles from the checkout: docdb/client's browser build and what it imports. */
const BUNDLED = ['../dist/client', '../dist/errors', '../dist/types', '../dist/util/limits.js'];
const stamp = adminUiStamp(dir, process.env.NEXT_PUBLIC_DOCDB_URL ?? '', nextVersion, BUNDLED);

const built =
  fs.existsSync(path.join(dir, 'out/index.html')) &&
  fs.existsSync(stampFile) &&
  fs.readFileSync(stampFile, 'utf8').trim() === stamp;
if (built) process.exit(0);

fs.rmSync(stampFile, { force: true });
const startedMs = Date.now();
const next = spawnSync(process.execPath, [require.resolve('next/dist/bin/next'), 'build'], {
  cwd: dir,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
});
if (next.status !== 0) {
  process.stderr.write('admin UI: next build failed (output above); /ui/ serves the last build\n');
  process.exit(next.status ?? 1);
}
fs.writeFileSync(stampFile, `${stamp}\n`);
process.stdout.write(`admin UI built into admin-ui/out in ${Date.now() - startedMs} ms\n`);

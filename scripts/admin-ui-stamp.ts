/**
 * The fingerprint of the admin UI's sources, for `npm run build` to skip the Next build when
 * nothing it reads has changed since the last one: every file of admin-ui/ but its build
 * output and dependencies, what it bundles from outside (docdb/client's browser build),
 * NEXT_PUBLIC_DOCDB_URL (baked into the bundle), and the installed Next version. Reads
 * files; writes nothing.
 */

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** What the Next build writes or reads without it being a source. */
const NOT_SOURCES = new Set(['out', '.next', 'node_modules', '.build-stamp', 'next-env.d.ts']);

function files(dir: string, under = ''): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, under), { withFileTypes: true })) {
    const relative = path.posix.join(under, entry.name);
    if (under === '' && NOT_SOURCES.has(entry.name)) continue;
    if (entry.isDirectory()) found.push(...files(dir, relative));
    else if (entry.isFile()) found.push(relative);
  }
  return found.sort();
}

/**
 * A hex digest of the sources under `dir`, of each file or folder of `bundled` (paths
 * relative to `dir`, e.g. `../dist/client`; a missing one counts as missing), the public URL
 * and `nextVersion`.
 */
export function adminUiStamp(
  dir: string,
  publicUrl: string,
  nextVersion: string,
  bundled: readonly string[] = [],
): string {
  const hash = createHash('sha256');
  hash.update(`NEXT_PUBLIC_DOCDB_URL=${publicUrl}\0next=${nextVersion}\0`);
  const add = (name: string, file: string) => {
    hash.update(`${name}\0`);
    hash.update(fs.readFileSync(file));
    hash.update('\0');
  };
  for (const file of files(dir)) add(file, path.join(dir, file));
  for (const outside of bundled) {
    const at = path.join(dir, outside);
    if (!fs.existsSync(at)) hash.update(`${outside}\0missing\0`);
    else if (fs.statSync(at).isFile()) add(outside, at);
    else for (const file of files(at)) add(path.posix.join(outside, file), path.join(at, file));
  }
  return hash.digest('hex');
}

/**
 * Proves the admin UI's build stamp (scripts/admin-ui-stamp.ts), which lets `npm run build`
 * skip the Next build: the same sources give the same stamp; a changed, added or renamed
 * source, a change in what it bundles from outside admin-ui/ (docdb/client), another
 * NEXT_PUBLIC_DOCDB_URL or another Next version give another; the build's own output and
 * dependencies do not count.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminUiStamp } from '../../scripts/admin-ui-stamp.js';
import { makeTempDir } from '../support/temp-dir.js';

let dir: string;
let cleanup: () => void;

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

beforeEach(() => {
  // The UI's folder inside the temp dir, so what it bundles from `..` stays in it too.
  let root: string;
  ({ dir: root, cleanup } = makeTempDir('docdb-ui-stamp-'));
  dir = path.join(root, 'admin-ui');
  fs.mkdirSync(dir);
  write('package.json', '{}');
  write('app/page.tsx', 'export default 1;');
});
afterEach(() => cleanup());

describe('the admin UI build stamp', () => {
  it('is the same for the same sources, whatever the build wrote', () => {
    const before = adminUiStamp(dir, '', '16.0.0');
    write('out/index.html', '<html>');
    write('.next/cache/x', 'x');
    write('node_modules/a/index.js', 'x');
    write('next-env.d.ts', '// generated');
    write('.build-stamp', 'abc');
    expect(adminUiStamp(dir, '', '16.0.0')).toBe(before);
  });

  it('changes with a source, a new file, a rename, the public URL and the Next version', () => {
    const base = adminUiStamp(dir, '', '16.0.0');
    const seen = new Set([base]);
    write('app/page.tsx', 'export default 2;');
    seen.add(adminUiStamp(dir, '', '16.0.0'));
    write('lib/api.ts', 'export {};');
    seen.add(adminUiStamp(dir, '', '16.0.0'));
    fs.renameSync(path.join(dir, 'lib/api.ts'), path.join(dir, 'lib/api2.ts'));
    seen.add(adminUiStamp(dir, '', '16.0.0'));
    seen.add(adminUiStamp(dir, 'http://127.0.0.1:5000', '16.0.0'));
    seen.add(adminUiStamp(dir, 'http://127.0.0.1:5000', '16.1.0'));
    expect(seen.size).toBe(6);
  });

  it('changes with what it bundles from outside admin-ui/, a file or a folder', () => {
    const bundled = ['../client', '../limits.js'];
    const stamp = () => adminUiStamp(dir, '', '16.0.0', bundled);
    const seen = new Set([stamp()]);
    fs.writeFileSync(path.join(dir, '../limits.js'), 'export const A = 1;');
    seen.add(stamp());
    fs.mkdirSync(path.join(dir, '../client/sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, '../client/sub/browser.js'), 'export {};');
    seen.add(stamp());
    fs.writeFileSync(path.join(dir, '../client/sub/browser.js'), 'export const b = 1;');
    seen.add(stamp());
    expect(seen.size).toBe(4);
    expect(stamp()).toBe(stamp());
  });
});

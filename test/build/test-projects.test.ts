/**
 * Proves the split of the suite into vitest's projects (vitest.config.ts): every `*.test.ts`
 * under src/ and test/ is in exactly one of `fast` and `slow`, so `npm test` (both) runs all of
 * them and `npm run test:fast` none of the slow ones, which start `bin/docdb`, a browser or a
 * build.
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...testFiles(relative));
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(relative);
  }
  return found;
}

describe('the fast and slow projects', () => {
  it('hold every test file once, and the fast one nothing that starts bin/docdb or a browser', () => {
    const listed = JSON.parse(
      execFileSync(process.execPath, [VITEST, 'list', '--filesOnly', '--json'], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as Array<{ file: string; projectName: string }>;
    const projectsOf = new Map<string, string[]>();
    for (const { file, projectName } of listed) {
      const name = path.relative(ROOT, file);
      projectsOf.set(name, [...(projectsOf.get(name) ?? []), projectName]);
    }
    const files = [...testFiles('src'), ...testFiles('test')].sort();
    expect([...projectsOf.keys()].sort()).toEqual(files);
    for (const file of files) expect([file, projectsOf.get(file)?.length]).toEqual([file, 1]);
    const fast = files.filter((file) => projectsOf.get(file)?.[0] === 'fast');
    for (const slowDir of ['test/e2e/', 'test/cli/', 'test/ui/', 'test/distribution/']) {
      expect(fast.filter((file) => file.startsWith(slowDir))).toEqual([]);
    }
    expect(fast).toContain('src/storage/store.test.ts');
    expect(fast).toContain('test/property/index-vs-scan.test.ts');
  });
});

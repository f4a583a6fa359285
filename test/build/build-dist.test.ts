/**
 * Proves the build swap (scripts/build-dist.ts) on a small project in a temp dir: the new
 * build replaces dist/ as a whole (a file the old one had and the new one lacks is gone), a
 * compile that fails leaves the old dist/ untouched, two builds at once both succeed and
 * leave one whole dist/, and no temporary folder stays behind. Also that every script of
 * package.json that builds goes through it, so `npm test` and `npm run bench` never write
 * into the dist/ a running `bin/docdb` reads.
 */

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/build-dist.ts');
const TSX = path.join(ROOT, 'node_modules/tsx/dist/cli.mjs');

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-build-'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'NodeNext', target: 'ES2022', rootDir: 'src' },
      include: ['src'],
    }),
  );
  // The old build: a module the new sources no longer have, and an old version of one.
  fs.mkdirSync(path.join(dir, 'dist'));
  fs.writeFileSync(path.join(dir, 'dist/gone.js'), 'export const gone = true;\n');
  fs.writeFileSync(path.join(dir, 'dist/main.js'), 'export const version = 1;\n');
});
afterEach(() => cleanup());

function source(text: string): void {
  fs.writeFileSync(path.join(dir, 'src/main.ts'), text);
}

const ARGS = [TSX, SCRIPT, '--project', 'tsconfig.json', '--out', 'dist'];

function build(): { code: number; output: string } {
  const result = spawnSync(process.execPath, ARGS, { cwd: dir, encoding: 'utf8' });
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

function leftovers(): string[] {
  return fs.readdirSync(dir).filter((name) => name.startsWith('.dist-'));
}

describe('the build swap', () => {
  it('replaces dist/ as a whole and leaves no temporary folder', () => {
    source('export const version: number = 2;\n');
    const result = build();
    expect(result.code, result.output).toBe(0);
    expect(fs.readdirSync(path.join(dir, 'dist')).sort()).toEqual(['main.js']);
    expect(fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8')).toContain('version = 2');
    expect(leftovers()).toEqual([]);
  });

  it('leaves the old dist/ untouched when the compile fails', () => {
    source('export const version: number = "two";\n');
    const result = build();
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('TS2322');
    expect(fs.readdirSync(path.join(dir, 'dist')).sort()).toEqual(['gone.js', 'main.js']);
    expect(fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8')).toContain('version = 1');
    expect(leftovers()).toEqual([]);
  });

  it('lets two builds run at once, leaving one whole dist/', async () => {
    source('export const version: number = 3;\n');
    const run = () =>
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, ARGS, { cwd: dir, stdio: 'ignore' });
        child.on('exit', (code) => resolve(code ?? -1));
      });
    expect(await Promise.all([run(), run()])).toEqual([0, 0]);
    expect(fs.readdirSync(path.join(dir, 'dist')).sort()).toEqual(['main.js']);
    expect(fs.readFileSync(path.join(dir, 'dist/main.js'), 'utf8')).toContain('version = 3');
    expect(leftovers()).toEqual([]);
  });

  it('removes what a build that died left behind', () => {
    fs.mkdirSync(path.join(dir, '.dist-next-999999999'));
    source('export const version: number = 4;\n');
    expect(build().code).toBe(0);
    expect(leftovers()).toEqual([]);
  });
});

describe('package.json', () => {
  it('builds dist/ only through the swap', () => {
    const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(scripts.build).toBe('tsx scripts/build-dist.ts && tsx scripts/build-admin-ui.ts');
    for (const name of ['prepare', 'pretest', 'bench', 'bench:storage']) {
      expect(scripts[name], name).toMatch(/^npm run build\b/);
    }
    for (const [name, command] of Object.entries(scripts)) {
      expect(command, name).not.toMatch(/\btsc\b(?![^&]*--noEmit)/);
    }
  });
});

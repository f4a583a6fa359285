/**
 * Runs `bin/docdb` as a user would and proves the commands that exist so far: help and
 * version in every spelling, `inspect` (text and --json, read-only, works while a writer
 * holds the file), `compact` (measured result, refuses while another process holds the
 * file), and the exit codes: 0 success, then one per class of error (docs/errors.md): 1
 * failure, 2 usage, 3 not found, 4 conflict, 5 unavailable, 6 storage. Usage errors name
 * what is wrong (`serve ./data` suggests --data-dir), and no help prints a default twice.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { open } from '../../src/index.js';
import { holdFile } from '../support/hold-file.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/docdb');
const VERSION = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

function docdb(...args: string[]): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(BIN, args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-cli-'));
});
afterEach(() => cleanup());

async function seedFile(): Promise<void> {
  const db = await open(dir);
  const c = db.collection('orders');
  await c.insertMany(
    Array.from({ length: 300 }, (_, i) => ({ pnr: `P${i}`, pad: 'x'.repeat(300) })),
  );
  await c.createIndex({ paths: ['pnr'], unique: true, name: 'pnr_u' });
  await db.close();
}

describe('help and version', () => {
  it('prints help for help, --help and -h, listing the commands', () => {
    for (const args of [['help'], ['--help'], ['-h']]) {
      const r = docdb(...args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage: docdb');
      expect(r.stdout).toMatch(/inspect .*<file>/);
      expect(r.stdout).toContain('compact');
    }
  });

  it('prints the version for version, --version and -v', () => {
    for (const args of [['version'], ['--version'], ['-v']]) {
      const r = docdb(...args);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(VERSION);
    }
  });

  it('gives every command its own help', () => {
    for (const command of ['inspect', 'compact', 'version']) {
      const r = docdb(command, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: docdb ${command}`);
      expect(docdb('help', command).stdout).toContain(`Usage: docdb ${command}`);
    }
  });

  it('says a command is unknown, with the closest one, for docdb <name> and docdb help <name>', () => {
    for (const args of [['help', 'nosuch'], ['nosuch']]) {
      const r = docdb(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain("error: unknown command 'nosuch'");
      expect(r.stdout).toBe('');
    }
    for (const args of [['help', 'serv'], ['serv']]) {
      const r = docdb(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain("unknown command 'serv'");
      expect(r.stderr, args.join(' ')).toContain('(Did you mean serve?)');
    }
    expect(docdb('help', 'help').code).toBe(0);
  });

  it('exits 2 on usage errors', () => {
    expect(docdb('frobnicate').code).toBe(2);
    expect(docdb('inspect').code).toBe(2);
    expect(docdb('compact', dir).code).toBe(2);
    expect(docdb('inspect', dir, '--bogus').code).toBe(2);
  });
});

describe('inspect', () => {
  it('prints size, pages, collections and indexes', async () => {
    await seedFile();
    const r = docdb('inspect', dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('data.docdb');
    expect(r.stdout).toMatch(/pages\s+\d+ used, \d+ free/);
    expect(r.stdout).toContain('orders  300 documents');
    expect(r.stdout).toContain('pnr_u (pnr) [unique, ready] 300 entries');
  });

  it('prints JSON with --json, for the data dir or the file', async () => {
    await seedFile();
    for (const target of [dir, path.join(dir, 'data.docdb')]) {
      const r = docdb('inspect', target, '--json');
      expect(r.code).toBe(0);
      const stats = JSON.parse(r.stdout);
      expect(stats.collections[0]).toMatchObject({ name: 'orders', count: 300 });
      expect(stats.fileSizeBytes).toBe(fs.statSync(path.join(dir, 'data.docdb')).size);
    }
  });

  it('fails with exit 3 (not found) and a clear message for a missing file', () => {
    const r = docdb('inspect', path.join(dir, 'nope'));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no docdb data file');
    expect(r.stderr).toContain('ERR_STORAGE_NOT_FOUND');
  });
});

describe('compact', () => {
  it('reports pages and bytes reclaimed and file sizes', async () => {
    await seedFile();
    const db = await open(dir);
    for (const d of db.collection('orders').list({ limit: 250 })) {
      await db.collection('orders').delete(d._id as string);
    }
    await db.close();
    const text = docdb('compact', dir, 'Orders');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/pages\s+\d+ → \d+ \(\d+ reclaimed\)/);
    expect(text.stdout).toContain('file size');
    const json = JSON.parse(docdb('compact', dir, 'orders', '--json').stdout);
    expect(json).toMatchObject({ collection: 'orders' });
    expect(json.bytesReclaimed).toBe(json.pagesCompacted * 4096);
    expect(typeof json.fileSizeBytesBefore).toBe('number');
  });

  it('fails clearly for an unknown collection', async () => {
    await seedFile();
    const r = docdb('compact', dir, 'ghost');
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("unknown collection 'ghost'");
    expect(r.stderr).toContain('orders');
  });

  it('refuses while another process holds the file, naming it; inspect still works', async () => {
    await seedFile();
    const holder = await holdFile(dir);
    try {
      const r = docdb('compact', dir, 'orders');
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('held for writing');
      expect(r.stderr).toContain(`process ${holder.pid}`);
      expect(r.stderr).toContain('ERR_STORAGE_LOCKED');
      expect(docdb('inspect', dir).code).toBe(0);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('exit codes by class of error', () => {
  it('1 for an error of no class: a bad SQL statement', async () => {
    await seedFile();
    const r = docdb('query', dir, 'SELEC * FROM orders');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('ERR_SQL_SYNTAX');
  });

  it('2 for usage: serve given a path as an argument says to write --data-dir', () => {
    const r = docdb('serve', './data');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("serve takes no arguments, but got './data'");
    expect(r.stderr).toContain('write --data-dir ./data');
    expect(r.stderr).not.toContain('too many arguments');
  });

  it('2 for usage: an option given the next flag as its value says its value is missing', () => {
    const r = docdb('serve', '--data-dir', '--port', '5001');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "option '--data-dir <dir>' argument missing (got the flag '--port')",
    );
    expect(fs.existsSync('--port')).toBe(false);
  });

  it('2 for usage: serve with a data directory that is a regular file names the setting', () => {
    const file = path.join(dir, 'plain-file');
    fs.writeFileSync(file, 'not a directory');
    const r = docdb('serve', '--data-dir', file);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`data directory ${file} is a file, not a directory`);
    expect(r.stderr).toContain('--data-dir');
    expect(r.stderr).toContain('ERR_CONFIG_INVALID');
    expect(r.stderr).not.toContain('unexpected error');
  });

  it('3 for not found: a data file that does not exist', () => {
    const r = docdb('inspect', path.join(dir, 'nope'));
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('ERR_STORAGE_NOT_FOUND');
  });

  it('4 for conflict: a backup into a directory that holds files', async () => {
    await seedFile();
    const out = path.join(dir, 'taken');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'something'), 'x');
    const r = docdb('backup', dir, out);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('ERR_BACKUP_TARGET_EXISTS');
  });

  it('5 for unavailable: a node URL nothing answers at', () => {
    const file = path.join(dir, 'one.ndjson');
    fs.writeFileSync(file, '{"a":1}\n');
    const r = docdb('import', 'http://127.0.0.1:1', 'c', file);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('ERR_CLIENT_UNREACHABLE');
  });

  it('6 for storage: a data file cut short', async () => {
    await seedFile();
    const file = path.join(dir, 'data.docdb');
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const r = docdb('inspect', dir);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('ERR_STORAGE_TRUNCATED');
  });
});

describe('help', () => {
  it('states each default once (import --batch-size printed it twice)', () => {
    const r = docdb('import', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout.match(/default/g)).toHaveLength(2); // --batch-size and --api-key
    expect(r.stdout).toContain('(default: 1000)');
    for (const line of r.stdout.split('\n')) {
      expect((line.match(/default/g) ?? []).length, line).toBeLessThan(2);
    }
  });
});

describe('output to a closed pipe', () => {
  it('ends quietly when the reader goes away', () => {
    const r = spawnSync('sh', ['-c', `"${BIN}" help | head -1`], { encoding: 'utf8' });
    expect(r.stdout).toContain('Usage: docdb');
    expect(r.stderr).not.toContain('EPIPE');
  });
});

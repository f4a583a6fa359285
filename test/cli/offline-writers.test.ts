/**
 * Proves what the offline commands that write do beside a process that holds the data file
 * (a running node): `seed`, `compact` and `query` with a write statement fail at once with
 * ERR_STORAGE_LOCKED, naming the process and the HTTP way to do the same work, instead of
 * opening read-only and failing every write; the repl still opens read-only for reads and
 * explains a refused write the same way; a read sees what the holder acknowledged, though
 * only its write-ahead log has it on disk.
 */

import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { open } from '../../src/index.js';
import { holdFile } from '../support/hold-file.js';
import { type CliRun, runDocdb as docdb } from '../support/run-docdb.js';
import { makeTempDir } from '../support/temp-dir.js';

let dir: string;
let cleanup: () => void;
let holder: ChildProcess;

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir('docdb-writers-'));
  const db = await open(dir);
  await db.collection('orders').insert({ pnr: 'A1' });
  await db.close();
  holder = await holdFile(dir, [{ pnr: 'B2' }, { pnr: 'C3' }]);
});
afterEach(() => {
  holder.kill('SIGKILL');
  cleanup();
});

function expectRefused(r: CliRun, how: string): void {
  // Another process holds the file: a conflict (exit 4).
  expect(r.code, r.stderr).toBe(4);
  expect(r.stderr).toContain('ERR_STORAGE_LOCKED');
  expect(r.stderr).toContain(`process ${holder.pid}`);
  expect(r.stderr).toContain(how);
  expect(r.stderr).not.toContain('opened read-only');
  expect(r.stderr).not.toContain('ERR_STORAGE_READ_ONLY');
}

describe('offline writers beside a process holding the file', () => {
  it('seed fails at once, pointing at POST /seed with the same count', () => {
    const r = docdb(['seed', dir, '500']);
    expectRefused(r, `curl -X POST http://127.0.0.1:5000/seed`);
    expect(r.stderr).toContain('{"orders": 500}');
    expect(r.stdout).toBe('');
  });

  it('query with a write statement fails at once, pointing at POST /query', () => {
    const r = docdb(['query', dir, "DELETE FROM orders WHERE pnr = 'A1'"]);
    expectRefused(r, 'POST http://127.0.0.1:5000/query');
    // A read still works beside the holder.
    expect(docdb(['query', dir, 'SELECT COUNT(*) FROM orders']).code).toBe(0);
  });

  it('a read sees every write the holder acknowledged, before any checkpoint holds them', () => {
    const r = docdb(['query', dir, 'SELECT pnr FROM orders ORDER BY pnr', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('B2');
    expect(r.stdout).toContain('C3');
  });

  it('compact fails at once, pointing at POST /admin/compact/<collection>', () => {
    expectRefused(
      docdb(['compact', dir, 'orders']),
      'curl -X POST http://127.0.0.1:5000/admin/compact/orders',
    );
  });

  it('the repl reads, and explains a refused write by who holds the file', () => {
    const r = docdb(
      ['repl', dir],
      'SELECT COUNT(*) FROM orders\nINSERT INTO orders VALUES {"pnr": "B2"}\n',
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/COUNT\(\*\)\n-+\n3\n/);
    expect(r.stderr).toContain('opened read-only; reads work, writes will be refused');
    expect(r.stderr).toContain('this session is read-only');
    expect(r.stderr).toContain(`process ${holder.pid}`);
    expect(r.stderr).toContain('POST http://127.0.0.1:5000/query');
  });
});

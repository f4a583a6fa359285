/**
 * Runs `bin/docdb seed`, `query` and `repl` as a user would: seeded data with the sample
 * indexes, an indexed lookup whose plan is printed, JSON output for scripts, parameters,
 * exit codes (1 for a failed statement, 2 for usage and a bad --params, 3 for an unknown
 * collection, 4 for a file another process holds), repl statements over several lines
 * through piped stdin, its commands, and reads beside a process holding the file.
 */

import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdFile } from '../support/hold-file.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/docdb');

function docdb(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(BIN, args, {
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-sqlcli-'));
});
afterEach(() => cleanup());

describe('seed', () => {
  it('loads the default 10000 orders with the sample indexes', () => {
    const r = docdb(['seed', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/seeded 10000 orders into .*data\.docdb/);
    expect(r.stdout).toContain('idx_orders_pnr');
    const stats = JSON.parse(docdb(['inspect', dir, '--json']).stdout);
    expect(stats.collections[0].count).toBe(10000);
    expect(stats.collections[0].indexes.map((i: { name: string }) => i.name)).toEqual([
      'idx_orders_pnr',
      'idx_orders_status',
      'idx_orders_passengers_lastName',
      'idx_orders_flights_from',
      'idx_orders_fare_total',
      'idx_orders_status_channel',
    ]);
  });

  it('takes a count and a seed, reproducibly, and reports JSON', () => {
    const a = makeTempDir('docdb-seed-a-');
    const b = makeTempDir('docdb-seed-b-');
    try {
      const ra = JSON.parse(docdb(['seed', a.dir, '25', '--seed', '7', '--json']).stdout);
      docdb(['seed', b.dir, '25', '--seed', '7']);
      expect(ra.inserted).toBe(25);
      const sql = 'SELECT pnr, fare.total FROM orders ORDER BY pnr';
      const rowsA = JSON.parse(docdb(['query', a.dir, sql, '--json']).stdout).documents;
      const rowsB = JSON.parse(docdb(['query', b.dir, sql, '--json']).stdout).documents;
      const strip = (rows: Array<Record<string, unknown>>) => rows.map(({ _id, ...rest }) => rest);
      expect(strip(rowsA)).toEqual(strip(rowsB));
      expect(rowsA.length).toBe(25);
    } finally {
      a.cleanup();
      b.cleanup();
    }
  });

  it('rejects a bad count as a usage error', () => {
    expect(docdb(['seed', dir, 'many']).code).toBe(2);
    expect(docdb(['seed', dir, '-5']).code).toBe(2);
  });
});

describe('query', () => {
  beforeEach(() => {
    docdb(['seed', dir, '200']);
  });

  it('prints the plan, count and time, then a table', () => {
    const pnr = JSON.parse(docdb(['query', dir, 'SELECT pnr FROM orders LIMIT 1', '--json']).stdout)
      .documents[0].pnr;
    const r = docdb(['query', dir, `SELECT pnr, status FROM orders WHERE pnr = '${pnr}'`]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/plan: INDEX_SCAN\(idx_orders_pnr\) {2}count: 1 {2}time: [\d.]+ ms/);
    expect(r.stdout).toContain(pnr);
    expect(r.stdout.split('\n')[1]).toMatch(/^_id\s+pnr\s+status/);
  });

  it('prints the whole result as JSON with --json and takes --params', () => {
    const r = docdb([
      'query',
      dir,
      'SELECT COUNT(*) FROM orders WHERE status = ?',
      '--json',
      '--params',
      '["pending"]',
    ]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.plan).toBe('INDEX_SCAN(idx_orders_status) + AGGREGATE');
    expect(typeof result.executionMs).toBe('number');
    expect(result.documents[0]['COUNT(*)']).toBeGreaterThan(0);
  });

  it('runs writes and reports the affected count', () => {
    const ins = docdb(['query', dir, 'INSERT INTO notes VALUES {"t": "hello"}']);
    expect(ins.code).toBe(0);
    expect(ins.stdout).toContain('1 document(s) affected');
    const upd = docdb(['query', dir, "UPDATE notes SET t = 'bye' WHERE t = 'hello'", '--json']);
    expect(JSON.parse(upd.stdout).affected).toBe(1);
  });

  it('fails with a message on stderr for a bad statement (exit 1) or unknown collection (exit 3)', () => {
    const bad = docdb(['query', dir, 'SELECT * FORM orders']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("expected FROM after the select list, found 'FORM' at 1:10");
    const unknown = docdb(['query', dir, 'SELECT * FROM ordres']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain("unknown collection 'ordres'");
    expect(unknown.stderr).toContain('orders');
    expect(docdb(['query', dir]).code).toBe(2);
  });

  it('names --params when its value is not a JSON array, exit 2', () => {
    for (const [params, why] of [
      ['TQHS6Y', 'it is not JSON'],
      ['{}', 'it is not an array'],
    ] as const) {
      const r = docdb(['query', dir, 'SELECT * FROM orders WHERE pnr = ?', '--params', params]);
      expect(r.code, params).toBe(2);
      expect(r.stderr).toContain(`option '--params <json>' argument '${params}' is invalid`);
      expect(r.stderr).toContain(why);
      expect(r.stderr).not.toContain('unexpected error');
    }
  });

  it('reads while another process holds the file; a write is refused clearly', async () => {
    const holder = await holdFile(dir);
    try {
      const read = docdb(['query', dir, 'SELECT COUNT(*) FROM orders', '--json']);
      expect(read.code).toBe(0);
      expect(JSON.parse(read.stdout).documents[0]['COUNT(*)']).toBe(200);
      const write = docdb(['query', dir, 'DELETE FROM orders']);
      expect(write.code).toBe(4);
      expect(write.stderr).toContain('held for writing');
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('repl', () => {
  it('runs statements from piped stdin, including ones spanning lines, and its commands', () => {
    const input = [
      'INSERT INTO t VALUES {"n": 1, "s": "a"}',
      'INSERT INTO t VALUES {"n": 2, "s": "b"}',
      'SELECT n',
      'FROM t',
      'WHERE n > 1',
      '',
      'SELECT COUNT(*) FROM t;',
      'collections',
      'indexes t',
      'stats',
      'help',
      'exit',
      'SELECT * FROM never_runs',
    ].join('\n');
    const r = docdb(['repl', dir], input);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plan: COLLECTION_SCAN  count: 1');
    expect(r.stdout).toMatch(/COUNT\(\*\)\n-+\n2\n/);
    expect(r.stdout).toContain('t  2');
    expect(r.stdout).toContain('(no indexes)');
    expect(r.stdout).toContain('change log');
    expect(r.stdout).toContain('A one-line statement runs on Enter');
  });

  it('reports a bad statement, goes on, and exits 1 for piped input', () => {
    const r = docdb(
      ['repl', dir],
      'SELEC 1\nINSERT INTO t VALUES {"a": 1}\nSELECT COUNT(*) FROM t\n',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("found 'SELEC' at 1:1");
    expect(r.stdout).toMatch(/COUNT\(\*\)\n-+\n1\n/);
  });

  it('prints JSON with --json', () => {
    const r = docdb(['repl', dir, '--json'], 'INSERT INTO t VALUES {"a": 1}\nSELECT a FROM t\n');
    const lines = r.stdout.trim();
    expect(lines).toContain('"plan": "COLLECTION_SCAN"');
    expect(lines).toContain('"a": 1');
  });
});

/**
 * Proves what a SELECT may spend: a query timeout stops a long one with ERR_QUERY_TIMEOUT
 * (db.query and db.queryStream alike) and the database goes on answering; a process whose
 * heap is nearly full stops the statement holding rows with ERR_QUERY_MEMORY instead of
 * ending (a child process with a small heap); ORDER BY … LIMIT keeps only the rows it answers,
 * so the same sort that needs the whole heap without a LIMIT runs in it with one.
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from './index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => cleanup());

/** Runs `script` in a Node process with a heap of `heapMiB`; what it printed, parsed. */
function inChild(script: string, heapMiB: number): unknown {
  const file = path.join(dir, `child-${heapMiB}.mts`);
  fs.writeFileSync(file, script.replaceAll('@src', path.join(ROOT, 'src')));
  const out = execFileSync(
    process.execPath,
    [`--max-old-space-size=${heapMiB}`, '--import', 'tsx', file],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return JSON.parse(out.trim());
}

/** Two collections of `n` documents that all join: n × n pairings. */
async function pairings(db: Database, n: number): Promise<void> {
  await db.collection('a').insertMany(Array.from({ length: n }, (_, i) => ({ k: 1, i })));
  await db.collection('b').insertMany(Array.from({ length: n }, (_, j) => ({ k: 1, j })));
}

describe('the query timeout', () => {
  it('stops a SELECT that runs past it, and the database goes on answering', async () => {
    const db = await open(dir, { queryTimeoutMs: 250 });
    try {
      // 9M pairings: seconds of work on any machine, far past 250 ms.
      await pairings(db, 3000);
      const join = 'SELECT COUNT(*) AS n FROM a JOIN b ON a.k = b.k';
      await expect(db.query(join)).rejects.toMatchObject({
        code: 'ERR_QUERY_TIMEOUT',
        status: 503,
        message: expect.stringContaining('longer than 250 ms'),
      });
      const sorted = 'SELECT a.i, b.j FROM a JOIN b ON a.k = b.k ORDER BY b.j';
      const stream = db.queryStream(sorted);
      await expect(stream.next()).rejects.toMatchObject({ code: 'ERR_QUERY_TIMEOUT' });
      const small = await db.query('SELECT COUNT(*) AS n FROM a WHERE i < 10');
      expect(small.documents).toEqual([{ n: 10 }]);
    } finally {
      await db.close();
    }
  });

  it('bounds a by-key lookup (REST GET /collections/{c}/by/{field}/{value}) the same way', async () => {
    const db = await open(dir, { queryTimeoutMs: 1 });
    try {
      // 20,000 documents read whole for an unindexed field: far past 1 ms anywhere.
      await db.collection('t').insertMany(Array.from({ length: 20_000 }, (_, i) => ({ i })));
      expect(() => db.getByKey('t', 'nowhere', 'x')).toThrow(
        expect.objectContaining({ code: 'ERR_QUERY_TIMEOUT' }),
      );
      expect(db.list('t', { limit: 2 }).count).toBe(2);
    } finally {
      await db.close();
    }
  });

  it('leaves a SELECT unbounded in time without one', async () => {
    const db = await open(dir);
    try {
      await pairings(db, 300);
      const r = await db.query('SELECT COUNT(*) AS n FROM a JOIN b ON a.k = b.k');
      expect(r.documents).toEqual([{ n: 90_000 }]);
    } finally {
      await db.close();
    }
  });
});

describe('the heap', () => {
  it('stops a sort that would fill a small heap, and the process goes on', () => {
    const script = `
      import { open } from '@src/index.ts';
      const db = await open(${JSON.stringify(dir)});
      const n = 2000;
      await db.collection('a').insertMany(Array.from({ length: n }, (_, i) => ({ k: 1, i })));
      await db.collection('b').insertMany(Array.from({ length: n }, (_, j) => ({ k: 1, j })));
      const sorted = 'SELECT a.i, b.j FROM a JOIN b ON a.k = b.k ORDER BY b.j DESC, a.i';
      const out = {};
      try {
        await db.query(sorted);
        out.whole = 'answered';
      } catch (error) {
        out.whole = error.code;
      }
      const first = await db.query(sorted + ' LIMIT 3');
      out.first = first.documents;
      out.count = (await db.query('SELECT COUNT(*) AS n FROM a')).documents;
      await db.close();
      console.log(JSON.stringify(out));
    `;
    // 4M sorted pairings need hundreds of MiB; this heap has 96.
    expect(inChild(script, 96)).toEqual({
      whole: 'ERR_QUERY_MEMORY',
      first: [
        { 'a.i': 0, 'b.j': 1999 },
        { 'a.i': 1, 'b.j': 1999 },
        { 'a.i': 2, 'b.j': 1999 },
      ],
      count: [{ n: 2000 }],
    });
  }, 60_000);
  it('looks at the heap by the bytes it decodes too: a few large documents are stopped', () => {
    const script = `
      import { open } from '@src/index.ts';
      const db = await open(${JSON.stringify(dir)});
      const big = 'q'.repeat(4 * 1024 * 1024);
      for (let n = 0; n < 40; n++) await db.collection('big').insert({ n, big });
      const out = {};
      for (const [name, run] of [
        ['select', () => db.query('SELECT * FROM big')],
        ['list', async () => db.collection('big').list({ limit: 40 })],
      ]) {
        try {
          await run();
          out[name] = 'answered';
        } catch (error) {
          out[name] = error.code;
        }
      }
      out.few = db.collection('big').list({ limit: 2 }).map((d) => d.n);
      await db.close();
      console.log(JSON.stringify(out));
    `;
    // 40 documents of 4 MiB strings: 160 MiB as JavaScript strings; this heap has 128, and
    // 40 rows are fewer than a look's 256.
    expect(inChild(script, 128)).toEqual({
      select: 'ERR_QUERY_MEMORY',
      list: 'ERR_QUERY_MEMORY',
      few: [0, 1],
    });
  }, 60_000);
});

/**
 * Proves that ORDER BY under a LIMIT, which keeps only the first OFFSET + LIMIT rows as it
 * reads (sql/executor/sort.ts `sortedFirst`), answers what the whole sort answers cut to the
 * same window: for random documents (mixed types, missing fields, many ties), random sort
 * keys and directions, and random LIMIT and OFFSET, over a scan, a filter, a JOIN and a
 * GROUP BY (whose sort has no id to break ties: equal groups keep their order), through
 * `db.query` and `db.queryStream`. Real LMDB files in a temp dir.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, open } from '../../src/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { docsArb } from './generators.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
let db: Database;
let run = 0;

beforeAll(async () => {
  temp = makeTempDir('docdb-order-limit-');
  db = await open(temp.dir);
});

afterAll(async () => {
  await db?.close();
  temp?.cleanup();
});

const NUM_RUNS = Number(process.env.DOCDB_PROPERTY_RUNS ?? 60);

const keyArb = fc.constantFrom('n', 's', 'a.b', 'm', 'u', 'tags');
const orderArb = fc
  .array(fc.tuple(keyArb, fc.boolean()), { minLength: 1, maxLength: 2 })
  .map((keys) => keys.map(([path, desc]) => `${path}${desc ? ' DESC' : ''}`).join(', '));
const windowArb = fc.record({
  limit: fc.integer({ min: 0, max: 12 }),
  offset: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
});

/** The window's clause and the slice it stands for. */
function windowOf({ limit, offset }: { limit: number; offset: number | undefined }) {
  const from = offset ?? 0;
  return {
    clause: `LIMIT ${limit}${offset === undefined ? '' : ` OFFSET ${offset}`}`,
    cut: <T>(rows: T[]) => rows.slice(from, from + limit),
  };
}

async function streamed(sql: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  let meta = true;
  for await (const item of db.queryStream(sql)) {
    if (meta) meta = false;
    else rows.push(item);
  }
  return rows;
}

async function sameWindow(whole: string, window: ReturnType<typeof windowOf>): Promise<void> {
  const all = (await db.query(whole)).documents;
  const limited = `${whole} ${window.clause}`;
  expect((await db.query(limited)).documents, limited).toEqual(window.cut(all));
  expect(await streamed(limited), `${limited} (stream)`).toEqual(window.cut(all));
}

describe('ORDER BY … LIMIT … OFFSET', () => {
  it('answers the whole sort cut to its window, on scans, filters, joins and groups', async () => {
    await fc.assert(
      fc.asyncProperty(docsArb, orderArb, windowArb, async (docs, order, window) => {
        const c = `ol${run++}`;
        const d = `${c}b`;
        await db.collection(c).insertMany(docs);
        await db.collection(d).insertMany(docs);
        const w = windowOf(window);
        await sameWindow(`SELECT * FROM ${c} ORDER BY ${order}`, w);
        await sameWindow(`SELECT n, s FROM ${c} WHERE m IS NOT NULL ORDER BY ${order}`, w);
        const joined = order.replace(/\b(n|s|a\.b|m|u|tags)\b/g, `${c}.$1`);
        await sameWindow(
          `SELECT ${c}.n, ${d}.s FROM ${c} JOIN ${d} ON ${c}.m = ${d}.m ORDER BY ${joined}, ${d}.n`,
          w,
        );
        const grouped = order.split(', ')[0]?.replace(/ DESC$/, '') as string;
        await sameWindow(
          `SELECT ${grouped}, COUNT(*) AS k FROM ${c} GROUP BY ${grouped} ORDER BY k DESC`,
          w,
        );
        await db.dropCollection(c);
        await db.dropCollection(d);
      }),
      { numRuns: NUM_RUNS },
    );
  }, 120_000);
});

/**
 * Proves prepared statements on the embedded database: `prepare` answers the handle, kind and
 * placeholder count; `execute` and `executeStream` answer what `query` and `queryStream`
 * answer for the text, check the params the same way, and plan again when the catalog
 * changes; a handle is unknown (ERR_SQL_HANDLE_UNKNOWN) after a restart until the text is
 * prepared again, which answers the same handle.
 */

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { DbError } from '../errors/index.js';
import { type Database, open } from './index.js';

let db: Database;
let temp: { dir: string; cleanup(): void };

beforeEach(async () => {
  temp = makeTempDir();
  db = await open(temp.dir);
  await db.collection('t').insertMany(Array.from({ length: 20 }, (_, i) => ({ i, k: i % 4 })));
});

afterEach(async () => {
  await db.close();
  temp.cleanup();
});

const SELECT = 'SELECT i FROM t WHERE k = ? ORDER BY i';

async function rejection(run: () => unknown): Promise<DbError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(DbError);
    return error as DbError;
  }
  throw new Error('expected a rejection');
}

/** A result without its timing. */
const timeless = ({ executionMs: _, ...rest }: { executionMs: number }) => rest;

describe('db.prepare and db.execute', () => {
  it('answer the handle, kind and placeholder count; execute answers as query does', async () => {
    const prepared = db.prepare(SELECT);
    expect(prepared).toEqual({
      handle: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      kind: 'select',
      paramCount: 1,
    });
    expect(timeless(await db.execute(prepared.handle, [2]))).toEqual(
      timeless(await db.query(SELECT, [2])),
    );
    expect(db.prepare(SELECT).handle).toBe(prepared.handle);
  });

  it('stream as queryStream does', async () => {
    const { handle } = db.prepare(SELECT);
    const streamed: unknown[] = [];
    for await (const value of db.executeStream(handle, [1])) streamed.push(value);
    expect(streamed.slice(1).map((d) => (d as { i: number }).i)).toEqual([1, 5, 9, 13, 17]);
    expect(streamed[0]).toMatchObject({ plan: (await db.query(SELECT, [1])).plan, count: 5 });
  });

  it('check the params as query does', async () => {
    const { handle } = db.prepare(SELECT);
    const error = await rejection(() => db.execute(handle, []));
    expect(error.code).toBe('ERR_SQL_PARAM');
    expect(error.message).toBe('the statement has 1 placeholder(s) but 0 parameter(s) were given');
  });

  it('run writes, and plan a SELECT again after CREATE INDEX', async () => {
    const update = db.prepare('UPDATE t SET seen = true WHERE i < ?');
    expect(update).toMatchObject({ kind: 'update', paramCount: 1 });
    expect((await db.execute(update.handle, [3])).affected).toBe(3);
    const { handle } = db.prepare(SELECT);
    expect((await db.execute(handle, [0])).plan).toMatch(/^COLLECTION_SCAN/);
    await db.query('CREATE INDEX by_k ON t (k)');
    expect((await db.execute(handle, [0])).plan).toMatch(/^INDEX_SCAN\(by_k\)/);
  });

  it('a parse error is the text’s own, at prepare', async () => {
    const error = await rejection(() => db.prepare('SELEC i FROM t'));
    expect(error.code).toBe('ERR_SQL_SYNTAX');
  });

  it('a handle is unknown after a restart until its text is prepared again', async () => {
    const { handle } = db.prepare(SELECT);
    await db.close();
    db = await open(temp.dir);
    const error = await rejection(() => db.execute(handle, [1]));
    expect(error.code).toBe('ERR_SQL_HANDLE_UNKNOWN');
    expect(error.status).toBe(400);
    expect(db.prepare(SELECT).handle).toBe(handle);
    expect((await db.execute(handle, [1])).count).toBe(5);
  });
});

/**
 * Proves that a refused SQL INSERT says once that nothing of it was stored, whether the
 * store's message already says so (a unique violation) or not (an id that exists), for one
 * document and for several.
 */

import { beforeEach, describe, expect, it } from 'vitest';
import { databasePerTest } from '../../test/support/database.js';

const db = databasePerTest();

beforeEach(async () => {
  await db().collection('c').insert({ _id: '0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f', k: 1 });
  await db().query('CREATE UNIQUE INDEX u ON c (k)');
});

async function messageOf(sql: string): Promise<string> {
  try {
    await db().query(sql);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${sql} did not fail`);
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('a refused INSERT', () => {
  it.each([
    ['one duplicate value', 'INSERT INTO c VALUES {"k": 1}'],
    ['a duplicate among several', 'INSERT INTO c VALUES [{"k": 2}, {"k": 1}]'],
    ['an id that exists', 'INSERT INTO c VALUES {"_id": "0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f"}'],
    [
      'an id that exists among several',
      'INSERT INTO c VALUES [{"k": 3}, {"_id": "0193a4f2-7c1e-7d3a-9b2e-4f6a8c0d1e2f"}]',
    ],
  ])('with %s says once that nothing was stored', async (_, sql) => {
    const message = await messageOf(sql);
    expect(occurrences(message, 'nothing')).toBe(1);
    expect(message).toMatch(/; nothing of this write was stored$/);
    expect(db().collection('c').count()).toBe(1);
  });

  it('names the failing document of several', async () => {
    expect(await messageOf('INSERT INTO c VALUES [{"k": 2}, {"k": 1}]')).toMatch(
      /^document 2 of 2: unique index 'u' on c \(k\) already holds 1;/,
    );
  });
});

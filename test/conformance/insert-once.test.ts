/**
 * The router's insert under its own `_id` (cluster/write-plan.ts `insertOnce`), on a real
 * node's storage: tried again after an attempt that did not answer, it finds the copy that
 * attempt stored and succeeds once; a first attempt, or a different document under the
 * `_id`, is the usual 409.
 */

import { describe, expect, it } from 'vitest';
import { insertOnce } from '../../src/cluster/write-plan.js';
import { isDbError } from '../../src/errors/index.js';
import { databasePerTest } from '../support/database.js';

describe('insertOnce', () => {
  const db = databasePerTest();
  const doc = { _id: '0190d8a5-0000-7000-8000-000000000001', pnr: 'AB12', seats: 2 };

  it('stores the document under its _id', async () => {
    expect(await insertOnce(db(), 'orders', doc, false)).toEqual({ id: doc._id });
    expect((await db().getTagged('orders', doc._id))?.doc).toEqual(doc);
  });

  it('tried again, takes the equal document the first try stored as its own', async () => {
    await db().insert('orders', doc);
    expect(await insertOnce(db(), 'orders', { ...doc }, true)).toEqual({ id: doc._id });
    expect((await db().list('orders')).count).toBe(1);
  });

  it('a first try finds the _id taken: 409, even for an equal document', async () => {
    await db().insert('orders', doc);
    const error = await insertOnce(db(), 'orders', doc, false).catch((e) => e);
    expect(isDbError(error, 'ERR_DOCUMENT_ID_EXISTS')).toBe(true);
  });

  it('tried again, another document under the _id is still a 409', async () => {
    await db().insert('orders', { ...doc, seats: 3 });
    const error = await insertOnce(db(), 'orders', doc, true).catch((e) => e);
    expect(isDbError(error, 'ERR_DOCUMENT_ID_EXISTS')).toBe(true);
  });
});

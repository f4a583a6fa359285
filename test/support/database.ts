/**
 * A fresh database for each test of the calling file: a real data file in a temp dir, opened
 * before each test and closed and removed after it. `db()` is the current test's database.
 */

import { afterEach, beforeEach } from 'vitest';
import { type Database, open } from '../../src/engine/index.js';
import { makeTempDir } from './temp-dir.js';

export function databasePerTest(): () => Database {
  let current: Database | undefined;
  let cleanup = () => {};
  beforeEach(async () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    current = await open(temp.dir);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
    cleanup();
  });
  return () => {
    if (!current) throw new Error('the database exists only while a test runs');
    return current;
  };
}

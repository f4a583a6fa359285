/**
 * Proves how a new data file is made: under a temporary name with the node metadata
 * committed, then renamed into place, so the data directory holds either no data file or a
 * whole one; what a creation cut short left behind is cleared by the next one; an existing
 * file is never made again; the creation waits its turn behind another writer's lock; and a
 * path where no data directory can be is refused with its reason.
 */

import * as fs from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { createDataFile } from './new-file.js';
import { DATA_FILE_NAME, Store } from './store.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function tempDir(): string {
  const { dir, cleanup } = makeTempDir('docdb-new-file-');
  cleanups.push(cleanup);
  return dir;
}

describe('a new data file', () => {
  it('is made whole under a temporary name, then takes its own', async () => {
    const dir = path.join(tempDir(), 'nested', 'data');
    const file = path.join(dir, DATA_FILE_NAME);
    await createDataFile(file, dir);
    expect(fs.readdirSync(dir).sort()).toEqual([DATA_FILE_NAME]);
    // The node metadata is committed in it: a read-only open (which writes nothing) reads it.
    const reader = Store.open(file, { readOnly: true });
    expect(reader.nodeState()).toMatchObject({ term: 1, lastSeq: 0 });
    await reader.close();
    expect(fs.statSync(file).size).toBeGreaterThan(0);
  });

  it('clears what a creation cut short left, and never makes an existing file again', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    fs.writeFileSync(`${file}.4242.new`, '');
    fs.writeFileSync(`${file}.4242.new-lock`, '');
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'mine');
    const db = await open(dir);
    await db.collection('c').insert({ n: 1 });
    await db.close();
    expect(fs.readdirSync(dir).filter((name) => name.includes('.new'))).toEqual([]);
    expect(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('mine');
    await createDataFile(file, dir);
    const again = await open(dir);
    expect(again.collection('c').count()).toBe(1);
    await again.close();
  });

  it('is made under the writer lock: a directory another writer holds is refused', async () => {
    const dir = tempDir();
    const file = path.join(dir, DATA_FILE_NAME);
    // A live process (this one's parent) holds the lock of a file that does not exist yet.
    const owner = { pid: process.ppid, host: hostname(), command: 'a test', since: 'now' };
    fs.writeFileSync(`${file}-owner`, JSON.stringify(owner));
    await expect(createDataFile(file, dir)).rejects.toMatchObject({ code: 'ERR_STORAGE_LOCKED' });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('is refused with a reason where no data directory can be: a file in its place, or under a file', async () => {
    const parent = tempDir();
    const plain = path.join(parent, 'plain.txt');
    fs.writeFileSync(plain, 'not a directory');
    await expect(open(plain)).rejects.toMatchObject({
      code: 'ERR_STORAGE_NOT_FOUND',
      message: expect.stringContaining(`${plain} is a file, not a data directory`),
    });
    const under = path.join(plain, 'data');
    await expect(open(under)).rejects.toMatchObject({
      code: 'ERR_STORAGE_NOT_FOUND',
      message: `the data directory ${under} cannot be made (a part of its path is a file)`,
    });
    expect(() => Store.open(under)).toThrow(/a part of its path is a file/);
    expect(fs.readFileSync(plain, 'utf8')).toBe('not a directory');
  });
});

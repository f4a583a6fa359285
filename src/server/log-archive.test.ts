/**
 * Proves the change-log archive on a real data file: every committed entry lands in the
 * archive's segments in seq order, a restart continues where it stopped, a torn last line
 * is cut off, a failed write is logged and retried without holding up a shutdown, and an
 * archive of another history (ahead of the node, or of another term) is refused at start.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type Database, open } from '../engine/index.js';
import { listSegments, readSegment } from '../engine/log-segments.js';
import { isDbError } from '../errors/index.js';
import { type LogArchive, startLogArchive } from './log-archive.js';

const silent = { warn: () => {}, error: () => {} };
let temp: ReturnType<typeof makeTempDir>;
let db: Database | undefined;
let archive: LogArchive | undefined;

afterEach(async () => {
  await archive?.close();
  await db?.close();
  archive = undefined;
  db = undefined;
  temp?.cleanup();
});

function archived(dir: string): number[] {
  return listSegments(dir).flatMap((file) => [...readSegment(file)].map((e) => e.seq));
}

describe('the change-log archive', () => {
  it('archives every commit in order and continues after a restart', async () => {
    temp = makeTempDir('docdb-archive-');
    const dir = path.join(temp.dir, 'archive');
    db = await open(path.join(temp.dir, 'data'));
    await db.collection('c').insert({ a: 0 });
    archive = startLogArchive(db.store, dir, silent);
    for (let i = 1; i <= 5; i++) await db.collection('c').insert({ a: i });
    await db.dropCollection('c');
    await archive.caughtUp();
    expect(archived(dir)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await archive.close();
    // A crash mid-write leaves a torn last line: it is cut off, and the entry written again.
    const segment = listSegments(dir)[0] as string;
    const text = fs.readFileSync(segment, 'utf8');
    fs.writeFileSync(segment, text.slice(0, text.lastIndexOf('\n', text.length - 2) + 10));
    archive = startLogArchive(db.store, dir, silent);
    await db.collection('d').insert({ b: 1 });
    await archive.caughtUp();
    expect(archived(dir)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const entries = listSegments(dir).flatMap((f) => [...readSegment(f)]);
    expect(entries[6]).toMatchObject({ op: 'dropCollection', collection: 'c' });
  });

  it('logs a failed write, lets a waiting shutdown go on, and archives once it can', async () => {
    temp = makeTempDir('docdb-archive-');
    const dir = path.join(temp.dir, 'archive');
    db = await open(path.join(temp.dir, 'data'));
    const errors: string[] = [];
    archive = startLogArchive(db.store, dir, { warn: () => {}, error: (m) => errors.push(m) });
    // The segment the first entry goes to cannot be opened: a directory holds its name.
    const blocked = path.join(dir, 'changes-000000000000001.ndjson');
    fs.mkdirSync(blocked);
    await db.collection('c').insert({ a: 1 });
    await archive.caughtUp();
    expect(errors[0]).toContain('trying again');
    expect(archive.archivedSeq).toBe(0);
    fs.rmdirSync(blocked);
    await vi.waitFor(() => expect(archive?.archivedSeq).toBe(1), { timeout: 10_000 });
    expect(archived(dir)).toEqual([1]);
  });

  it('refuses an archive that is ahead of the node or of another term', async () => {
    temp = makeTempDir('docdb-archive-');
    const dir = path.join(temp.dir, 'archive');
    db = await open(path.join(temp.dir, 'data'));
    await db.collection('c').insert({ a: 1 });
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'changes-000000000000001.ndjson'),
      `${JSON.stringify({ seq: 1, term: 7, atMs: 1, op: 'dropCollection', collection: 'x' })}\n`,
    );
    const refuse = (): string => {
      try {
        archive = startLogArchive((db as Database).store, dir, silent);
      } catch (error) {
        if (isDbError(error, 'ERR_CONFIG_INVALID')) return error.message;
        throw error;
      }
      throw new Error('expected a refusal');
    };
    expect(refuse()).toContain('seq 1 of term 7');
    fs.appendFileSync(
      path.join(dir, 'changes-000000000000001.ndjson'),
      `${JSON.stringify({ seq: 9, term: 1, atMs: 1, op: 'dropCollection', collection: 'x' })}\n`,
    );
    expect(refuse()).toContain("up to seq 9, past this node's 1");
  });
});

/**
 * Proves the change-log segments: entries come back in order across segments; a segment is
 * closed once it holds the byte limit (at the limit a new one begins, one byte under it the
 * next entry still fits); a torn last line is left out when read and cut off before the next
 * append; a line that is not an entry is an error naming the file and line.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { isDbError } from '../errors/index.js';
import type { ChangeEntry } from '../storage/index.js';
import {
  lastSegmentEntry,
  listSegments,
  readSegment,
  SegmentWriter,
  segmentName,
} from './log-segments.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
afterEach(() => temp?.cleanup());

function dir(): string {
  temp = makeTempDir('docdb-segments-');
  return temp.dir;
}

/** Entries whose lines all have the same length (seqs 1 to 9). */
const entry = (seq: number): ChangeEntry => ({
  op: 'delete',
  collection: 'c',
  id: '01a20d6b-acf7-740d-a383-3a5bb31aab2a',
  seq,
  term: 1,
  atMs: 1_700_000_000_000,
});
const LINE_BYTES = Buffer.byteLength(`${JSON.stringify(entry(1))}\n`);

const seqsOf = (d: string) =>
  listSegments(d).map((file) => [...readSegment(file)].map((e) => e.seq));

describe('log segments', () => {
  it('closes a segment once it holds the limit, not before', async () => {
    const atLimit = dir();
    await new SegmentWriter(atLimit, 2 * LINE_BYTES).append([1, 2, 3, 4, 5].map(entry));
    expect(seqsOf(atLimit)).toEqual([[1, 2], [3, 4], [5]]);
    expect(listSegments(atLimit).map((f) => path.basename(f))).toEqual([
      segmentName(1),
      segmentName(3),
      segmentName(5),
    ]);
    temp?.cleanup();
    const underLimit = dir();
    await new SegmentWriter(underLimit, 2 * LINE_BYTES + 1).append([1, 2, 3, 4, 5].map(entry));
    expect(seqsOf(underLimit)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('continues the newest segment after a restart, cutting a torn last line', async () => {
    const d = dir();
    await new SegmentWriter(d).append([entry(1), entry(2)]);
    const file = listSegments(d)[0] as string;
    fs.appendFileSync(file, '{"op":"delete","seq":3');
    expect(seqsOf(d)).toEqual([[1, 2]]);
    expect(lastSegmentEntry(d)?.seq).toBe(2);
    await new SegmentWriter(d).append([entry(3)]);
    expect(seqsOf(d)).toEqual([[1, 2, 3]]);
  });

  it('names the file and line of a line that is not an entry', () => {
    const d = dir();
    const file = path.join(d, segmentName(1));
    fs.writeFileSync(file, `${JSON.stringify(entry(1))}\nnot json\n`);
    try {
      [...readSegment(file)];
      throw new Error('expected an error');
    } catch (error) {
      expect(isDbError(error, 'ERR_BACKUP_LOG_INVALID')).toBe(true);
      expect((error as Error).message).toContain(`${file} line 2: not JSON`);
    }
  });
});

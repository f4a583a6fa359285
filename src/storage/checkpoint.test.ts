/**
 * The checkpoint record's file: two slots written in turn, in place, so a checkpoint takes no
 * new room on the disk and a write torn by a power cut leaves the record before it; a version
 * 1 file (one record, replaced by a rename) is read and rewritten as two slots.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tempDirPerTest } from '../../test/support/temp-dir.js';
import {
  type CheckpointRecord,
  checkpointRecordFile,
  readCheckpointRecord,
  writeCheckpointRecord,
  writeCheckpointRecordSync,
} from './checkpoint.js';

const tempDir = tempDirPerTest();
const PAGE = 4096;

function record(seq: number, clean = false): CheckpointRecord {
  return { pageSize: PAGE, metaPages: Buffer.alloc(2 * PAGE, seq % 251), seq, clean };
}

function dataFile(): string {
  const file = path.join(tempDir(), 'data.docdb');
  fs.mkdirSync(`${file}-wal`);
  return file;
}

describe('the checkpoint record', () => {
  it('is written in place, in the two slots in turn, and reads back as the newest', async () => {
    const file = dataFile();
    const recordFile = checkpointRecordFile(file);
    writeCheckpointRecordSync(file, record(1));
    const { ino, size } = fs.statSync(recordFile);
    expect(size).toBe(2 * 12_288);
    await writeCheckpointRecord(file, record(2));
    writeCheckpointRecordSync(file, record(3, true));
    await writeCheckpointRecord(file, record(4));
    // The same file, the same size: no new room taken (no temporary file, no rename).
    expect(fs.statSync(recordFile)).toMatchObject({ ino, size });
    expect(fs.readdirSync(path.dirname(recordFile))).toEqual(['checkpoint']);
    expect(readCheckpointRecord(file)).toEqual(record(4));
  });

  it('gives the record before a write a power cut tore', async () => {
    const file = dataFile();
    const recordFile = checkpointRecordFile(file);
    writeCheckpointRecordSync(file, record(1));
    await writeCheckpointRecord(file, record(2, true));
    const before = fs.readFileSync(recordFile);
    await writeCheckpointRecord(file, record(3));
    // The cut: of the slot written last (the first: records 1, 2, 3 went to slots 0, 1, 0),
    // only the first 6,000 bytes reached the disk.
    const torn = fs.readFileSync(recordFile);
    expect(torn.subarray(12_288)).toEqual(before.subarray(12_288));
    before.copy(torn, 6_000, 6_000, 12_288);
    fs.writeFileSync(recordFile, torn);
    expect(readCheckpointRecord(file)).toEqual(record(2, true));
    // The next write goes into the torn slot, and is then the record.
    await writeCheckpointRecord(file, record(4));
    expect(readCheckpointRecord(file)).toEqual(record(4));
    fs.writeFileSync(recordFile, Buffer.alloc(2 * 12_288, 7));
    expect(() => readCheckpointRecord(file)).toThrow(
      /is damaged \(it is not a checkpoint record\)/,
    );
  });

  it('reads a version 1 record and rewrites it as two slots at the next checkpoint', async () => {
    const file = dataFile();
    const recordFile = checkpointRecordFile(file);
    const one = record(9, true);
    const head = Buffer.alloc(32);
    head.write('DOCDBCKP', 0, 'latin1');
    head.writeUInt32LE(1, 8);
    head.writeUInt32LE(PAGE, 12);
    head.writeUInt32LE(1, 16);
    head.writeUIntLE(9, 24, 6);
    const body = Buffer.concat([head, one.metaPages]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32LE(zlib.crc32(body));
    fs.writeFileSync(recordFile, Buffer.concat([body, crc]));
    expect(readCheckpointRecord(file)).toEqual(one);
    await writeCheckpointRecord(file, record(10));
    expect(fs.statSync(recordFile).size).toBe(2 * 12_288);
    expect(readCheckpointRecord(file)).toEqual(record(10));
  });
});

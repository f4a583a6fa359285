/**
 * The write-ahead log's own file format and writer: frames read back as written; a torn,
 * damaged or out-of-order tail ends the read with its reason and keeps what came before;
 * appends that arrive while a flush runs share the next flush; segments roll over and go
 * once a checkpoint holds them, the open one cut back or begun anew; a frame taken back (its commit failed) is never read again,
 * and the seqs it held are logged anew after it.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { listWalSegments, readWal, WAL_SEGMENT_BYTES, WalWriter } from './wal.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir());
});

afterEach(() => cleanup());

const entry = (seq: number, size = 20) => Buffer.alloc(size, seq % 251);

/** Appends groups of entries (each a list of seqs), waiting for each group's flush. */
async function writeGroups(writer: WalWriter, groups: number[][], size = 20): Promise<void> {
  for (const group of groups) {
    await writer.append(
      group.map((seq) => entry(seq, size)),
      group[0] as number,
    );
  }
}

/** The descriptor of the segment the writer writes to (to close it under the writer). */
function openFd(writer: WalWriter): number {
  return (writer as unknown as { writing: { fd: number } }).writing.fd;
}

function only(segmentIndex = 0): string {
  return (listWalSegments(dir)[segmentIndex] as { file: string }).file;
}

describe('the write-ahead log', () => {
  it('reads back every entry after a seq, in order, with its bytes', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1], [2, 3, 4], [5]]);
    await writer.close();
    const read = readWal(dir, 2);
    expect(read.stopped).toBeUndefined();
    expect(read.entries.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(Buffer.from(read.entries[0]?.bytes as Uint8Array)).toEqual(entry(3));
    // Zeros are written ahead of the frames: small appends leave the file's size alone.
    expect(fs.statSync(only()).size).toBe(1024 * 1024 + 16);
  });

  it('ends at a torn or damaged frame, keeping every whole frame before it', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1], [2], [3, 4]]);
    await writer.close();
    const bytes = fs.readFileSync(only());
    let end = bytes.length;
    while (bytes[end - 1] === 0) end--;
    for (const damage of ['cut', 'flip'] as const) {
      const copy = Buffer.from(bytes);
      if (damage === 'cut') copy.fill(0, end - 5, end);
      else copy[end - 30] = (copy[end - 30] as number) ^ 0xff;
      fs.writeFileSync(only(), copy);
      const read = readWal(dir, 0);
      expect(read.entries.map((e) => e.seq)).toEqual([1, 2]);
      expect(read.stopped).toMatch(/checksum does not match|cut short|do not add up/);
    }
  });

  it('ends at a gap in the seqs: what follows was never acknowledged', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1], [2], [5]]);
    await writer.close();
    const read = readWal(dir, 0);
    expect(read.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(read.stopped).toMatch(/seq 5 follows 2/);
    // Entries up to a checkpoint's seq are skipped, not a gap.
    expect(readWal(dir, 4).stopped).toBeUndefined();
  });

  it('flushes appends that arrive while a flush runs together, and resolves each in order', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    const settled: number[] = [];
    const appends = Array.from({ length: 20 }, (_, i) =>
      writer.append([entry(i + 1)], i + 1).then(() => settled.push(i + 1)),
    );
    await Promise.all(appends);
    await writer.close();
    expect(settled).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // The first flush took the first append; the other 19 arrived meanwhile and shared one.
    expect(writer.flushes).toBe(2);
    expect(readWal(dir, 0).entries).toHaveLength(20);
  });

  it('rolls over to a new segment, and drops the segments a checkpoint holds', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    const big = Math.floor(WAL_SEGMENT_BYTES / 3);
    await writeGroups(writer, [[1], [2], [3], [4]], big);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 3]);
    expect(readWal(dir, 0).entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    writer.dropThrough(1);
    expect(listWalSegments(dir)).toHaveLength(2);
    writer.dropThrough(2);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([3]);
    expect(readWal(dir, 2).entries.map((e) => e.seq)).toEqual([3, 4]);
    await writer.close();
    await expect(writer.append([entry(5)], 5)).rejects.toMatchObject({
      code: 'ERR_STORAGE_CLOSED',
    });
  });

  it('begins the segment of a frame that passes the size at once, while frames of the old one wait', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    const third = Math.floor(WAL_SEGMENT_BYTES / 3);
    const big = (seq: number) => [entry(seq, third)];
    await writer.append(big(1), 1);
    const two = writer.append(big(2), 2);
    // Frame 3 would pass the segment's size and frame 2 is still flushing: its segment is
    // begun, and its room written, before append returns, as its group has not committed yet.
    // A full disk (here: a directory where the segment's file would go) throws then.
    const blocked = path.join(dir, '0000000000000003.wal');
    fs.mkdirSync(blocked);
    expect(() => writer.append(big(3), 3)).toThrow(/EISDIR/);
    fs.rmdirSync(blocked);
    const three = writer.append(big(3), 3);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 3]);
    expect(fs.statSync(only(1)).size).toBeGreaterThan(16 + third);
    // A crash now: the new segment holds only zeros, and a read ends there without a reason.
    expect(readWal(dir, 0)).toMatchObject({ stopped: undefined, segments: 2 });
    expect(readWal(dir, 0).entries.map((e) => e.seq)).toEqual([1, 2]);
    await Promise.all([two, three]);
    await writer.close();
    expect(readWal(dir, 0).entries.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('drops a frame taken back before it was written, and the segment it began', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    const third = Math.floor(WAL_SEGMENT_BYTES / 3);
    await writer.append([entry(1, third)], 1);
    const two = writer.append([entry(2, third)], 2);
    const three = writer.append([entry(3, third)], 3);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 3]);
    await writer.retract(3);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1]);
    // Its seqs logged anew, in a frame that fits the old segment.
    const again = writer.append([entry(3, 30)], 3);
    await Promise.all([two, three, again]);
    await writer.close();
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1]);
    expect(readWal(dir, 0).entries.map((e) => [e.seq, e.bytes.length])).toEqual([
      [1, third],
      [2, third],
      [3, 30],
    ]);
  });

  it('begins a new segment at the append after a checkpoint that could not cut, frames waiting or not', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1]]);
    const two = writer.append([entry(2)], 2);
    writer.dropThrough(1);
    // Frame 2 still flushes; frame 3 begins the new segment all the same.
    const three = writer.append([entry(3)], 3);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 3]);
    await Promise.all([two, three]);
    writer.dropThrough(2);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([3]);
    expect(readWal(dir, 2).entries.map((e) => e.seq)).toEqual([3]);
    await writer.close();
  });

  it('takes no room once a checkpoint holds every frame: cut back when quiet, else begun anew', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    const size = (file: string) => fs.statSync(file).size;
    await writeGroups(writer, [[1], [2, 3]]);
    // Quiet and covered: the open segment is cut back to its header, name and all kept.
    writer.dropThrough(3);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1]);
    expect(size(only())).toBe(16);
    await writeGroups(writer, [[4], [5]]);
    expect(readWal(dir, 3).entries.map((e) => e.seq)).toEqual([4, 5]);
    // A frame still flushing when the checkpoint of seq 5 ends: the segment cannot be cut, so
    // the next append with none waiting begins a new one, and the next checkpoint removes
    // the old one whole.
    const flushing = writer.append([entry(6)], 6);
    writer.dropThrough(5);
    await flushing;
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1]);
    await writeGroups(writer, [[7], [8]]);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 7]);
    writer.dropThrough(6);
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([7]);
    expect(readWal(dir, 6).entries.map((e) => e.seq)).toEqual([7, 8]);
    // Not every frame covered: nothing is cut.
    writer.dropThrough(7);
    expect(readWal(dir, 6).entries.map((e) => e.seq)).toEqual([7, 8]);
    // Zeros ahead of the frames: a MiB, or the extent a disk with little room is given.
    expect(size(only())).toBe(16 + 1024 * 1024);
    writer.dropThrough(8);
    writer.extentBytes = 16 * 1024;
    await writeGroups(writer, [[9]]);
    expect(size(only())).toBe(16 + 16 * 1024);
    await writer.close();
  });

  it('fails the groups of a failed flush, naming the log, and goes on in a new segment', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1]]);
    // The segment's descriptor closed under the writer: its next write fails (EBADF).
    fs.closeSync(openFd(writer));
    const failed = writer.append([entry(2)], 2);
    await expect(failed).rejects.toMatchObject({ code: 'ERR_STORAGE_FAILED' });
    await expect(failed).rejects.toThrow(path.basename(dir));
    await writeGroups(writer, [[3]]);
    await writer.close();
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 3]);
    // Seq 2 never reached the log: a read from before it stops at the gap; from a checkpoint
    // that holds it (the owner takes one), the read goes on into the new segment.
    expect(readWal(dir, 0)).toMatchObject({ stopped: expect.stringMatching(/seq 3 follows 1/) });
    expect(readWal(dir, 2).entries.map((e) => e.seq)).toEqual([3]);
  });

  it('keeps through a close the segment a retraction began after a failed flush', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1]]);
    fs.closeSync(openFd(writer));
    await expect(writer.append([entry(2)], 2)).rejects.toMatchObject({
      code: 'ERR_STORAGE_FAILED',
    });
    // Its commit failed too: taken back. Its segment ended, so a segment begun at its seq
    // supersedes whatever of it the old one holds, and must outlast the writer.
    await writer.retract(2);
    await writer.close();
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1, 2]);
    expect(readWal(dir, 0).entries.map((e) => e.seq)).toEqual([1]);
  });

  it('writes the room of a frame before it returns, so a full disk throws before its group commits', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1]]);
    // The segment's descriptor closed under the writer: the zeros a large frame needs past
    // the first MiB cannot be written, and append throws at once, queuing nothing.
    fs.closeSync(openFd(writer));
    expect(() => writer.append([Buffer.alloc(2 * 1024 * 1024, 1)], 2)).toThrow(/EBADF/);
    Object.assign(writer, { writing: undefined, tail: undefined });
    await writeGroups(writer, [[2]]);
    await writer.close();
    expect(readWal(dir, 0).entries.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('takes back a frame whose commit failed: a read no longer gives it, and its seqs are logged anew', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1], [2, 3]]);
    // Flushed, then taken back: a read right after (a crash here) stops before it.
    await writer.append([entry(4), entry(5)], 4);
    await writer.retract(4);
    expect(readWal(dir, 0).entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    // Not yet written when taken back (it waits behind a running flush): never written.
    const running = writer.append([entry(4, 30)], 4);
    const taken = writer.append([entry(5, 30)], 5);
    await writer.retract(5);
    await Promise.all([running, taken]);
    await writeGroups(writer, [[5, 6]], 40);
    await writer.close();
    const read = readWal(dir, 0);
    expect(read.stopped).toBeUndefined();
    expect(read.entries.map((e) => [e.seq, e.bytes.length])).toEqual([
      [1, 20],
      [2, 20],
      [3, 20],
      [4, 30],
      [5, 40],
      [6, 40],
    ]);
    // From a checkpoint past the taken-back seqs, the read begins where it should.
    expect(readWal(dir, 4).entries.map((e) => e.seq)).toEqual([5, 6]);
  });

  it('takes back a frame while it flushes: what is appended after goes after the retraction', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writeGroups(writer, [[1]]);
    const two = writer.append([entry(2)], 2);
    const retracted = writer.retract(2);
    const again = writer.append([entry(2, 30), entry(3, 30)], 2);
    await Promise.all([two, retracted, again]);
    await writer.close();
    expect(readWal(dir, 0).entries.map((e) => [e.seq, e.bytes.length])).toEqual([
      [1, 20],
      [2, 30],
      [3, 30],
    ]);
  });

  it('takes back the first frame of a segment, the segment begun again in its place', async () => {
    const writer = new WalWriter(dir);
    writer.open();
    await writer.append([entry(1)], 1);
    await writer.retract(1);
    expect(readWal(dir, 0).entries).toEqual([]);
    await writeGroups(writer, [[1, 2]], 30);
    await writer.close();
    expect(listWalSegments(dir).map((s) => s.firstSeq)).toEqual([1]);
    expect(readWal(dir, 0).entries.map((e) => [e.seq, e.bytes.length])).toEqual([
      [1, 30],
      [2, 30],
    ]);
  });
});

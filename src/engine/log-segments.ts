/**
 * Change-log segments: change-log entries kept outside the data file, for point-in-time
 * recovery (docs/backup.md). A segment is an NDJSON file, one entry per line in the change
 * feed's plain form, named after its first seq (`changes-000000000000042.ndjson`), so people
 * can grep it for the seq of a mistake. It writes and reads segment directories; it never
 * opens a data file.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { dbError } from '../errors/index.js';
import type { ChangeEntry } from '../storage/index.js';
import { fsyncDirectory, makeDirectoryDurably, namesInDirectory } from '../util/index.js';

/** A segment is closed and a new one begun once it holds this many bytes. */
export const LOG_SEGMENT_BYTES_MAX = 16 * 1024 * 1024;

const SEGMENT_NAME = /^changes-(\d{15})\.ndjson$/;

/** The file name of the segment whose first entry is `firstSeq`. */
export function segmentName(firstSeq: number): string {
  return `changes-${String(firstSeq).padStart(15, '0')}.ndjson`;
}

/** The segment files of a directory in seq order (none when it does not exist). */
export function listSegments(dir: string): string[] {
  return namesInDirectory(dir)
    .filter((name) => SEGMENT_NAME.test(name))
    .sort()
    .map((name) => path.join(dir, name));
}

/**
 * The entries of one segment in order. A last line without its newline is a write a crash
 * cut short: it is left out, as it was never complete. Any other bad line is an error
 * naming the file and line.
 */
export function* readSegment(file: string): Generator<ChangeEntry> {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  // After the last newline comes either nothing or a torn write.
  lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    let entry: ChangeEntry;
    try {
      entry = JSON.parse(line) as ChangeEntry;
    } catch (error) {
      throw dbError(
        'ERR_BACKUP_LOG_INVALID',
        'notJson',
        { file, line: i + 1, cause: (error as Error).message },
        { file: file, line: i + 1 },
      );
    }
    if (!Number.isSafeInteger(entry?.seq) || typeof entry.op !== 'string') {
      throw dbError(
        'ERR_BACKUP_LOG_INVALID',
        'notEntry',
        { file, line: i + 1 },
        { file: file, line: i + 1 },
      );
    }
    yield entry;
  }
}

/** The last entry of a directory's newest segment, or undefined when it holds none. */
export function lastSegmentEntry(dir: string): ChangeEntry | undefined {
  const segments = listSegments(dir);
  for (let i = segments.length - 1; i >= 0; i--) {
    let last: ChangeEntry | undefined;
    for (const entry of readSegment(segments[i] as string)) last = entry;
    if (last) return last;
  }
  return undefined;
}

/**
 * Appends entries to a directory's segments: to the newest until it holds
 * LOG_SEGMENT_BYTES_MAX or more, then to a new one named after its first entry. Each `append` is
 * written and synced before it resolves. A torn last line (a crash mid-write) is cut off
 * before the first append, so lines always end where entries do.
 */
export class SegmentWriter {
  private file: string | undefined;
  private bytes = 0;

  /** `segmentBytesMax` is LOG_SEGMENT_BYTES_MAX but in tests of the roll-over. */
  constructor(
    private readonly dir: string,
    private readonly segmentBytesMax = LOG_SEGMENT_BYTES_MAX,
  ) {
    makeDirectoryDurably(dir);
    const newest = listSegments(dir).at(-1);
    if (newest) {
      const text = fs.readFileSync(newest);
      const end = text.lastIndexOf(0x0a) + 1;
      if (end < text.length) fs.truncateSync(newest, end);
      this.file = newest;
      this.bytes = end;
    }
  }

  /** Writes `entries` (in seq order) durably. */
  async append(entries: readonly ChangeEntry[]): Promise<void> {
    let pending: string[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      const created = this.bytes === 0;
      const handle = await fs.promises.open(this.file as string, 'a');
      try {
        await handle.write(pending.join(''));
        await handle.datasync();
      } finally {
        await handle.close();
      }
      // A new segment's name is durable only once its directory is.
      if (created) fsyncDirectory(this.dir);
      this.bytes += pendingBytes;
      pending = [];
      pendingBytes = 0;
    };
    for (const entry of entries) {
      const line = `${JSON.stringify(entry)}\n`;
      if (this.file === undefined || this.bytes + pendingBytes >= this.segmentBytesMax) {
        await flush();
        this.file = path.join(this.dir, segmentName(entry.seq));
        this.bytes = 0;
      }
      pending.push(line);
      pendingBytes += Buffer.byteLength(line);
    }
    await flush();
  }
}

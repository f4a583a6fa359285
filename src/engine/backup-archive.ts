/**
 * A backup as one stream (what `POST /admin/backup` answers, and a file `docdb restore`
 * takes): the manifest as one JSON line, then the bytes of each file it lists, in its order
 * and of its sizes. Packing reads a finished backup directory; unpacking writes one and
 * checks it like any backup. It knows nothing of HTTP.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { dbError } from '../errors/index.js';
import {
  type BackupManifest,
  MANIFEST_NAME,
  readManifest,
  requireEmptyDir,
  verifyBackup,
} from './backup.js';

/** The media type of a backup stream. */
export const BACKUP_ARCHIVE_TYPE = 'application/vnd.docdb.backup';

/** The longest manifest line an archive may start with. */
export const BACKUP_MANIFEST_BYTES_MAX = 16 * 1024 * 1024;

/** The stream of a backup directory: its manifest line, then its files. */
export async function* packBackup(dir: string): AsyncGenerator<Buffer> {
  const manifest = readManifest(dir);
  yield Buffer.from(`${JSON.stringify(manifest)}\n`);
  for (const file of manifest.files) {
    for await (const chunk of fs.createReadStream(path.join(dir, file.path))) {
      yield chunk as Buffer;
    }
  }
}

/** Pulls bytes from a chunk stream. */
class Reader {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly chunks: AsyncIterator<Uint8Array>;
  done = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.chunks = source[Symbol.asyncIterator]();
  }

  private async more(): Promise<boolean> {
    const next = await this.chunks.next();
    if (next.done) {
      this.done = true;
      return false;
    }
    this.buffered = Buffer.concat([this.buffered, Buffer.from(next.value)]);
    return true;
  }

  /**
   * The bytes up to the first newline (without it), or undefined when there is none within
   * `max` bytes.
   */
  async line(max: number): Promise<Buffer | undefined> {
    for (;;) {
      const at = this.buffered.indexOf(0x0a);
      if (at > max) return undefined;
      if (at >= 0) {
        const line = this.buffered.subarray(0, at);
        this.buffered = this.buffered.subarray(at + 1);
        return line;
      }
      if (this.buffered.length > max || !(await this.more())) return undefined;
    }
  }

  /** Up to `max` bytes: what is buffered, or the next chunk; empty at the end. */
  async take(max: number): Promise<Buffer> {
    if (this.buffered.length === 0 && !(await this.more())) return Buffer.alloc(0);
    const part = this.buffered.subarray(0, max);
    this.buffered = this.buffered.subarray(part.length);
    return part;
  }

  async atEnd(): Promise<boolean> {
    return this.buffered.length === 0 && !(await this.more());
  }
}

/**
 * Writes the backup a stream holds into `outDir` (new or empty), then verifies it (sizes and
 * checksums). `source` names the stream in errors. A short stream is refused as truncated.
 */
export async function unpackBackup(
  stream: AsyncIterable<Uint8Array>,
  outDir: string,
  source: string,
): Promise<BackupManifest> {
  requireEmptyDir(outDir);
  const reader = new Reader(stream);
  const line = await reader.line(BACKUP_MANIFEST_BYTES_MAX);
  if (line === undefined) {
    throw dbError(
      'ERR_BACKUP_INVALID',
      'noManifestLine',
      { source, limit: BACKUP_MANIFEST_BYTES_MAX },
      { source },
    );
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, MANIFEST_NAME), line);
  const manifest = readManifest(outDir);
  for (const file of manifest.files) {
    const target = path.join(outDir, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    const handle = await fs.promises.open(target, 'w');
    try {
      let left = file.bytes;
      while (left > 0) {
        const part = await reader.take(left);
        if (part.length === 0) {
          throw dbError(
            'ERR_BACKUP_CORRUPT',
            'streamTruncated',
            { source, path: file.path, bytes: file.bytes - left, total: file.bytes },
            { source: source },
          );
        }
        await handle.write(part);
        left -= part.length;
      }
    } finally {
      await handle.close();
    }
  }
  if (!(await reader.atEnd()))
    throw dbError('ERR_BACKUP_CORRUPT', 'streamTrailing', { source }, { source: source });
  return verifyBackup(outDir);
}

/**
 * Reads the two meta pages at the head of an LMDB data file with plain file reads, before
 * LMDB maps it: the page size and the last page in use tell how long the file must be. A
 * file shorter than that (a copy cut short, a failing disk) is refused here, because LMDB
 * would map it and die with SIGBUS on the first read past its end. Never writes.
 */

import * as fs from 'node:fs';
import { dbError } from '../errors/index.js';

/** LMDB's magic number at the start of each meta page's body. */
const MDB_MAGIC = 0xbeefc0de;
/** Bytes read from the head of each meta page: header, meta body, both root records. */
const META_READ_BYTES = 256;
/** Meta pages at the start of every LMDB file. */
const META_PAGES = 2;

/**
 * The meta body starts after the page header: 24 bytes in the LMDB of lmdb-js 3 (page number,
 * transaction id, flags, bounds), 16 in LMDB 0.9. The magic number tells which.
 */
const PAGE_HEADER_BYTES = [24, 16] as const;

/** What one meta page says. */
export interface MetaPage {
  /** Bytes per page (kept by LMDB in the free tree's record of page 0). */
  pageSizeBytes: number;
  /** The highest page number in use: the file holds at least this page. */
  lastPage: number;
  /** The transaction that wrote this meta page; LMDB uses the meta with the higher one. */
  txnId: number;
  /** Which of the two meta pages this is (0 or 1). */
  pageNumber: number;
  /** Bytes of the page header before the meta body (24 in lmdb-js 3's LMDB). */
  headerBytes: number;
}

/** The facts of a file's head that decide whether it can be opened safely. */
export interface FileHeader {
  sizeBytes: number;
  /** The meta LMDB will use (the one with the higher transaction id), if either is readable. */
  meta: MetaPage | undefined;
  /** The size the file must have at least: all pages up to the last one in use. */
  expectedBytes: number;
  /** Bytes of the page header (from the meta page's layout), 0 when no meta is readable. */
  headerBytes: number;
}

/** What the meta page whose bytes begin `head` says, or undefined when it is not one. */
export function readMeta(head: Buffer, pageNumber: number): MetaPage | undefined {
  for (const header of PAGE_HEADER_BYTES) {
    if (head.length < header + 136 || head.readUInt32LE(header) !== MDB_MAGIC) continue;
    // Meta body: magic u32, version u32, address u64, map size u64, two 48-byte root
    // records (the free tree's first, its pad field holding the page size), last page u64,
    // transaction id u64.
    const dbs = header + 24;
    return {
      pageSizeBytes: head.readUInt32LE(dbs),
      lastPage: Number(head.readBigUInt64LE(dbs + 96)),
      txnId: Number(head.readBigUInt64LE(dbs + 104)),
      pageNumber,
      headerBytes: header,
    };
  }
  return undefined;
}

function readAt(fd: number, position: number): Buffer {
  const buffer = Buffer.alloc(META_READ_BYTES);
  const read = fs.readSync(fd, buffer, 0, META_READ_BYTES, position);
  return buffer.subarray(0, read);
}

/** Reads the head of `file` (which must exist). */
export function readFileHeader(file: string): FileHeader {
  const fd = fs.openSync(file, 'r');
  try {
    const first = readMeta(readAt(fd, 0), 0);
    const pageSizeBytes = first?.pageSizeBytes ?? 0;
    const validPageSize = pageSizeBytes >= 512 && (pageSizeBytes & (pageSizeBytes - 1)) === 0;
    const second = validPageSize ? readMeta(readAt(fd, pageSizeBytes), 1) : undefined;
    const meta = second && (!first || second.txnId > first.txnId) ? second : first;
    const pages = meta ? Math.max(META_PAGES, meta.lastPage + 1) : META_PAGES;
    const expectedBytes = validPageSize ? pages * pageSizeBytes : 0;
    // The size is read after the meta pages: a running writer only grows the file before it
    // commits a meta page naming the new pages, so the size read now covers them. Read first,
    // it could miss a growth the meta read next already names (a hot backup of a busy node
    // then called its own copy truncated).
    const sizeBytes = fs.fstatSync(fd).size;
    return { sizeBytes, meta, expectedBytes, headerBytes: meta?.headerBytes ?? 0 };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Refuses an existing data file shorter than its meta pages say (ERR_STORAGE_TRUNCATED,
 * naming both sizes). An empty file is refused too: LMDB would silently start a new database
 * in it. A file with neither meta page readable is ERR_STORAGE_CORRUPT (LMDB may crash on it).
 */
export function checkFileHead(file: string): void {
  if (!fs.existsSync(file)) return;
  const header = readFileHeader(file);
  if (header.sizeBytes === 0) {
    throw dbError(
      'ERR_STORAGE_TRUNCATED',
      'empty',
      { file },
      { file, expectedBytes: header.expectedBytes, actualBytes: 0 },
    );
  }
  if (!header.meta && header.sizeBytes < META_READ_BYTES) {
    throw dbError(
      'ERR_STORAGE_TRUNCATED',
      'shorterThanHeader',
      { file, sizeBytes: header.sizeBytes },
      { file, actualBytes: header.sizeBytes },
    );
  }
  if (!header.meta) {
    throw dbError('ERR_STORAGE_CORRUPT', 'noMetaPage', { file }, { file });
  }
  if (header.sizeBytes >= header.expectedBytes) return;
  const pageSize = header.meta?.pageSizeBytes ?? 0;
  throw dbError(
    'ERR_STORAGE_TRUNCATED',
    'shorterThanRecorded',
    {
      file,
      expectedBytes: header.expectedBytes,
      expectedPages: header.expectedBytes / pageSize,
      pageSize,
      sizeBytes: header.sizeBytes,
    },
    { file, expectedBytes: header.expectedBytes, actualBytes: header.sizeBytes },
  );
}

/**
 * The change-log entry format, version 1: what one write did. It has two encodings, both
 * pure functions here:
 *
 * - **Portable** (`encodeEntry` / `decodeEntry`): what leaves the file (replication, the change
 *   feed). Documents are plain values, written with msgpackr's record extension and every
 *   record structure defined inline (codec `encodePortable`): any MessagePack reader decodes
 *   it with no state of any file, and the documents of a bulk insert name their keys once.
 * - **Stored** (`encodeStoredEntry` / `decodeStoredEntry`): what the `changes` tree holds. The
 *   same map, except that each document is the very bytes its collection stores (the file's
 *   shared-structure records), so recording a write costs no second encoding of its
 *   documents. Only this file's document codec reads them, which is why nothing but the
 *   portable form ever leaves it; a follower stores what it applies in its own encoding.
 *
 * The map (both encodings):
 *
 *   { v: 1, seq, term, atMs, op, collection, …op fields, endSeq? }
 *
 * - `seq`: the entry's place in the log, strictly increasing from 1, never reused.
 * - `term`: the replication term of the leader that wrote it.
 * - `atMs`: the commit time on that leader (Unix milliseconds).
 * - `endSeq`: on every entry of a write that made more than one (an UPDATE of several
 *   documents), the seq of that write's last entry: a follower applies `seq..endSeq` in one
 *   transaction, as atomically as the leader wrote them.
 * - The ops and their fields are `ChangeOp` (src/types/changes.ts). An op or version this
 *   build does not know is refused when read (ERR_CHANGE_INVALID), never skipped.
 *
 * Files of format 3 hold stored entries without `v` (version 0): the same map without the
 * ops and fields version 1 added (`rebuildIndexes`, `skipIndexes`, `endSeq`).
 */

import { DbError } from '../errors/index.js';
import type { ChangeEntry, ChangeOp, ChangeStamp } from '../types/index.js';
import { decodeValue, encodePortable, encodeValue } from './codec/index.js';
import type { Document } from './document-check.js';

/** The entry format this build writes. */
export const CHANGE_ENTRY_VERSION = 1;

export type { ChangeEntry, ChangeOp, ChangeStamp };

/** An op with its documents as `D`: plain values (portable) or stored bytes. */
type WithDocuments<O, D> = O extends { op: 'insert'; documents: unknown }
  ? Omit<O, 'documents'> & { documents: Array<{ id: string; doc: D }> }
  : O extends { op: 'replace'; doc: unknown }
    ? Omit<O, 'doc'> & { doc: D }
    : O;

/** An op as the log stores it: each document as the bytes its collection stores. */
export type StoredChangeOp = WithDocuments<ChangeOp, Uint8Array>;

/** A stored op with its place in the log. */
export type StoredChangeEntry = StoredChangeOp & ChangeStamp;

const OPS: ReadonlySet<string> = new Set([
  'insert',
  'replace',
  'delete',
  'dropCollection',
  'createIndex',
  'dropIndex',
  'rebuildIndexes',
]);

/** The 8-byte big-endian key of a seq, so keys sort in seq order. */
export function seqKey(seq: number): Buffer {
  // Seqs stay below 2^48 (a million writes a second for nine years): the top two bytes are 0.
  const key = Buffer.alloc(8);
  key.writeUIntBE(seq, 2, 6);
  return key;
}

export function seqOfKey(key: Buffer): number {
  return key.readUIntBE(2, 6);
}

/** The portable bytes of an entry (format version 1). */
export function encodeEntry(entry: ChangeEntry): Buffer {
  return encodePortable({ v: CHANGE_ENTRY_VERSION, ...entry });
}

/** Reads portable bytes written by encodeEntry (any docdb's). */
export function decodeEntry(bytes: Uint8Array): ChangeEntry {
  const entry = versioned(bytes, false);
  return checkEntry(entry);
}

/** The stored bytes of an entry whose documents are already in their stored encoding. */
export function encodeStoredEntry(entry: StoredChangeEntry): Buffer {
  return encodeValue({ v: CHANGE_ENTRY_VERSION, ...entry });
}

/** Reads a stored entry; `decodeDocument` reads the file's stored document bytes. */
export function decodeStoredEntry(
  bytes: Uint8Array,
  decodeDocument: (bytes: Uint8Array) => Document,
): ChangeEntry {
  const entry = checkEntry(versioned(bytes, true));
  if (entry.op === 'replace') {
    return { ...entry, doc: decodeDocument(entry.doc as unknown as Uint8Array) };
  }
  if (entry.op !== 'insert') return entry;
  const documents = entry.documents.map((d) => ({
    id: d.id,
    doc: decodeDocument(d.doc as unknown as Uint8Array),
  }));
  return { ...entry, documents };
}

/**
 * The term of a stored entry, read from its map without decoding its documents (they stay
 * the bytes the collection stores).
 */
export function storedEntryTerm(bytes: Uint8Array): number {
  const { term } = decodeValue<{ term?: unknown }>(bytes);
  if (!Number.isSafeInteger(term) || (term as number) < 0) {
    throw invalidEntry(`has no valid term (${JSON.stringify(term)})`);
  }
  return term as number;
}

function invalidEntry(why: string): DbError {
  return new DbError('ERR_CHANGE_INVALID', `a change-log entry ${why}`);
}

/** The entry's map without `v`, once its version is one this build reads. */
function versioned(bytes: Uint8Array, stored: boolean): Record<string, unknown> {
  let raw: Record<string, unknown>;
  try {
    raw = decodeValue<Record<string, unknown>>(bytes);
  } catch (error) {
    // Bytes from a peer that do not decode are a bad entry, not a damaged file.
    if (stored) throw error;
    throw invalidEntry('is not MessagePack');
  }
  if (raw === null || typeof raw !== 'object') throw invalidEntry('is not a map');
  const { v, ...entry } = raw;
  // Version 0 exists only stored, in files of format 3.
  if (v === CHANGE_ENTRY_VERSION || (v === undefined && stored)) return entry;
  throw invalidEntry(
    `has format version ${v === undefined ? 0 : String(v)}; this docdb reads version ${CHANGE_ENTRY_VERSION}`,
  );
}

/** Checks the fields every entry has; the op's own fields are trusted as written by docdb. */
function checkEntry(entry: Record<string, unknown>): ChangeEntry {
  if (typeof entry.op !== 'string' || !OPS.has(entry.op)) {
    throw invalidEntry(`has an unknown op ${JSON.stringify(entry.op)}`);
  }
  for (const field of ['seq', 'term', 'atMs'] as const) {
    const value = entry[field];
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw invalidEntry(`has no valid ${field} (${JSON.stringify(value)})`);
    }
  }
  if (typeof entry.collection !== 'string') throw invalidEntry('names no collection');
  return entry as unknown as ChangeEntry;
}

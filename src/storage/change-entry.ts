/**
 * The change-log entry format, version 1: what one write did, in a form any docdb file can
 * read. Documents travel as plain values (never in the file's private shared-structure
 * encoding), so a follower stores the leader's entries byte for byte and decodes them with
 * nothing but MessagePack. Pure: encoding and decoding only.
 *
 * An entry is a MessagePack map, written with msgpackr's record extension with every record
 * structure defined inline (codec `encodePortable`: the documents of a bulk insert share their
 * keys once, yet the entry needs no other data to be read):
 *
 *   { v: 1, seq, term, atMs, op, collection, …op fields, endSeq? }
 *
 * - `seq`: the entry's place in the log, strictly increasing from 1, never reused.
 * - `term`: the replication term of the leader that wrote it.
 * - `atMs`: the commit time on that leader (Unix milliseconds).
 * - `endSeq`: on every entry of a write that made more than one (an UPDATE of several
 *   documents), the seq of that write's last entry: a follower applies `seq..endSeq` in one
 *   transaction, as atomically as the leader wrote them.
 * - The ops and their fields are `ChangeOp` below. An op this build does not know is refused
 *   when read (ERR_CHANGE_INVALID), never skipped.
 *
 * Files of format 3 hold entries without `v` (version 0): their documents are stored bytes of
 * that file; `decodeEntry` reads them with the file's document codec.
 */

import { DbError } from '../errors/index.js';
import type { ChangeEntry, ChangeOp, ChangeStamp } from '../types/index.js';
import { decodeValue, encodePortable } from './codec/index.js';
import type { Document } from './document-check.js';

/** The entry format this build writes. */
export const CHANGE_ENTRY_VERSION = 1;

export type { ChangeEntry, ChangeOp, ChangeStamp };

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

/** The bytes of an entry in format version 1. */
export function encodeEntry(entry: ChangeEntry): Buffer {
  return encodePortable({ v: CHANGE_ENTRY_VERSION, ...entry });
}

function invalidEntry(why: string): DbError {
  return new DbError('ERR_CHANGE_INVALID', `a change-log entry ${why}`);
}

/**
 * Reads an entry. `decodeStored` reads the stored document bytes of a version-0 entry (files
 * of format 3); version 1 needs nothing but MessagePack.
 */
export function decodeEntry(
  bytes: Uint8Array,
  decodeStored?: (bytes: Uint8Array) => Document,
): ChangeEntry {
  const raw = decodeValue<Record<string, unknown>>(bytes);
  if (raw === null || typeof raw !== 'object') throw invalidEntry('is not a map');
  const { v, ...entry } = raw;
  if (v === undefined) return fromVersion0(entry, decodeStored);
  if (v !== CHANGE_ENTRY_VERSION) {
    throw invalidEntry(
      `has format version ${String(v)}; this docdb reads version ${CHANGE_ENTRY_VERSION}`,
    );
  }
  return checkEntry(entry);
}

/** Checks the fields every entry has; the op's own fields are trusted as written by docdb. */
export function checkEntry(entry: Record<string, unknown>): ChangeEntry {
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

function fromVersion0(
  entry: Record<string, unknown>,
  decodeStored: ((bytes: Uint8Array) => Document) | undefined,
): ChangeEntry {
  const checked = checkEntry(entry) as ChangeEntry & Record<string, unknown>;
  if (checked.op !== 'insert' && checked.op !== 'replace') return checked;
  if (!decodeStored) throw invalidEntry('of format 0 needs its file to be read');
  if (checked.op === 'replace') {
    return { ...checked, doc: decodeStored(checked.doc as unknown as Uint8Array) };
  }
  const documents = checked.documents.map((d) => ({
    id: d.id,
    doc: decodeStored(d.doc as unknown as Uint8Array),
  }));
  return { ...checked, documents };
}

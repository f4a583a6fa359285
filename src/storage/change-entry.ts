/**
 * The change-log entry format, version 1: what one write did, as the `changes` tree stores
 * it, and as replication ships it (the same bytes: nothing is decoded and encoded again on
 * its way to a follower, issue 22). Pure functions here.
 *
 * Each document of an entry is the very bytes its collection stores: MessagePack records
 * whose structures are shared across the file (codec `DocumentCodec`), so recording a write
 * costs no second encoding of its documents. Reading them needs that file's structures: a
 * follower is told its leader's (replication protocol 3) and reads a leader's entries with
 * them (`readPeerEntry`, then `decodeDocuments`).
 *
 * The map:
 *
 *   { v: 1, seq, term, atMs, op, collection, …op fields, endSeq?, chain? }
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
 *
 * **The hash chain.** A stored entry is the map's bytes behind a 17-byte prefix: the byte
 * 0xc1 (which MessagePack never uses, so no older entry starts with it) and the entry's
 * 16-byte link, the first half of SHA-256(link before it ‖ the map's bytes). The writer
 * computes it once; followers store it verbatim with the rest of the bytes, like `seq` and
 * `term` (a `ChangeEntry` read from them carries it as hex, `chain`). Entries written before
 * the chain have no prefix; the link after one is computed from CHAIN_START, as at the log's
 * beginning.
 */

import { hash } from 'node:crypto';
import { dbError } from '../errors/index.js';
import type { ChangeEntry, ChangeOp, ChangeStamp } from '../types/index.js';
import { decodeValue, encodeValue } from './codec/index.js';
import type { Document } from './document-check.js';

/** The entry format this build writes. */
export const CHANGE_ENTRY_VERSION = 1;

export type { ChangeEntry, ChangeOp, ChangeStamp };

/** An op with its documents as `D`: plain values or stored bytes. */
type WithDocuments<O, D> = O extends { op: 'insert'; documents: unknown }
  ? Omit<O, 'documents'> & { documents: Array<{ id: string; doc: D }> }
  : O extends { op: 'replace'; doc: unknown }
    ? Omit<O, 'doc'> & { doc: D }
    : O;

/** An op as the log stores it: each document as the bytes its collection stores. */
export type StoredChangeOp = WithDocuments<ChangeOp, Uint8Array>;

/** A stored op with its place in the log (its chain link travels beside it, never inside). */
export type StoredChangeEntry = StoredChangeOp & Omit<ChangeStamp, 'chain'>;

/** Bytes of a hash-chain link. */
export const CHAIN_BYTES = 16;

/** The link before a log's first entry (and after an entry written before the chain). */
export const CHAIN_START: Buffer = Buffer.alloc(CHAIN_BYTES);

/** The first byte of a stored entry that carries its link (never a MessagePack first byte). */
const CHAINED = 0xc1;

const CHAIN_HEX = /^[0-9a-f]{32}$/;

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

/**
 * The map's bytes of an entry whose documents are already in their stored encoding: what the
 * chain hashes, and what storedEntryBytes puts behind the link.
 */
export function encodeStoredBody(entry: StoredChangeEntry): Buffer {
  return encodeValue({ v: CHANGE_ENTRY_VERSION, ...entry });
}

/**
 * The stored bytes of an entry whose map is `body`, linked after `previous` (CHAIN_START when
 * undefined): its link is the first CHAIN_BYTES of the SHA-256 of the previous link and the
 * map, which the one buffer made here holds side by side before the link takes the previous
 * one's place.
 */
export function linkedEntryBytes(previous: Uint8Array | undefined, body: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(1 + CHAIN_BYTES + body.length);
  bytes.set(previous ?? CHAIN_START, 1);
  bytes.set(body, 1 + CHAIN_BYTES);
  const link = hash('sha256', bytes.subarray(1), 'buffer');
  bytes[0] = CHAINED;
  bytes.set(link.subarray(0, CHAIN_BYTES), 1);
  return bytes;
}

/** The link of stored bytes made by linkedEntryBytes. */
export function linkOf(bytes: Buffer): Buffer {
  return bytes.subarray(1, 1 + CHAIN_BYTES);
}

/** The stored bytes: the map behind its link, or the bare map for an entry without one. */
export function storedEntryBytes(body: Uint8Array, chain: Uint8Array | undefined): Buffer {
  if (chain === undefined) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const bytes = Buffer.allocUnsafe(1 + CHAIN_BYTES + body.length);
  bytes[0] = CHAINED;
  bytes.set(chain, 1);
  bytes.set(body, 1 + CHAIN_BYTES);
  return bytes;
}

/** A stored entry's link (undefined when it has none) and its map's bytes. */
function splitStored(bytes: Uint8Array): { chain: Uint8Array | undefined; body: Uint8Array } {
  if (bytes[0] !== CHAINED) return { chain: undefined, body: bytes };
  if (bytes.length <= 1 + CHAIN_BYTES) throw dbError('ERR_CHANGE_INVALID', 'entryCut');
  return { chain: bytes.subarray(1, 1 + CHAIN_BYTES), body: bytes.subarray(1 + CHAIN_BYTES) };
}

/** A link as hex (the form entries, status and the protocol carry). */
export function chainText(chain: Uint8Array): string {
  return Buffer.from(chain.buffer, chain.byteOffset, chain.byteLength).toString('hex');
}

/** A link from its hex form; undefined for anything that is not one. */
export function chainFromText(text: unknown): Buffer | undefined {
  return typeof text === 'string' && CHAIN_HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/**
 * The stored bytes of an entry whose documents are plain values, each encoded with
 * `encodeDocument` (plain MessagePack by default: what a reader with no shared structures
 * reads), behind its link when it carries one (`chain`, hex).
 */
export function encodeStoredEntry(
  entry: ChangeEntry,
  encodeDocument: (doc: Document) => Uint8Array = encodeValue,
): Buffer {
  const { chain, ...rest } = entry;
  let stored: StoredChangeEntry;
  if (rest.op === 'insert') {
    const documents = rest.documents.map((d) => ({ id: d.id, doc: encodeDocument(d.doc) }));
    stored = { ...rest, documents };
  } else if (rest.op === 'replace') {
    stored = { ...rest, doc: encodeDocument(rest.doc) };
  } else {
    stored = rest;
  }
  const link = chainFromText(chain);
  if (chain !== undefined && link === undefined) {
    throw dbError('ERR_CHANGE_INVALID', 'entryChainLink', { chain: JSON.stringify(chain) });
  }
  return storedEntryBytes(encodeStoredBody(stored), link);
}

/** Reads a stored entry; `decodeDocument` reads the file's stored document bytes. */
export function decodeStoredEntry(
  bytes: Uint8Array,
  decodeDocument: (bytes: Uint8Array) => Document,
): ChangeEntry {
  const { chain, body } = splitStored(bytes);
  const read = checkEntry(versioned(body, false));
  const entry = chain === undefined ? read : { ...read, chain: chainText(chain) };
  return decodeDocuments(entry as unknown as StoredChangeEntry, decodeDocument);
}

/**
 * A stored entry that came from another node (a leader's, over replication): its bytes as
 * they came, its map with the documents still in that node's encoding, and its link.
 */
export interface PeerEntry {
  bytes: Uint8Array;
  entry: StoredChangeEntry;
  chain: Uint8Array | undefined;
}

/**
 * Reads a stored entry from another node without decoding its documents (they need that
 * node's shared structures: decodeDocuments). Anything that is not an entry, or not one of
 * a version this build reads, is refused with ERR_CHANGE_INVALID.
 */
export function readPeerEntry(bytes: Uint8Array): PeerEntry {
  const { chain, body } = splitStored(bytes);
  const entry = checkEntry(versioned(body, true)) as unknown as StoredChangeEntry;
  const documents: unknown =
    entry.op === 'insert' ? entry.documents : entry.op === 'replace' ? [entry] : [];
  const stored = (d: unknown) => (d as { doc?: unknown } | null)?.doc instanceof Uint8Array;
  if (!Array.isArray(documents) || !documents.every(stored)) {
    throw dbError('ERR_CHANGE_INVALID', 'entryDocument', { seq: entry.seq });
  }
  return { bytes, entry, chain };
}

/** The entry with its stored documents read by `decodeDocument`. */
export function decodeDocuments(
  entry: StoredChangeEntry & { chain?: string },
  decodeDocument: (bytes: Uint8Array) => Document,
): ChangeEntry {
  if (entry.op === 'replace') return { ...entry, doc: decodeDocument(entry.doc) };
  if (entry.op !== 'insert') return entry;
  const documents = entry.documents.map((d) => ({ id: d.id, doc: decodeDocument(d.doc) }));
  return { ...entry, documents };
}

/**
 * The term and link of a stored entry, read from its map without decoding its documents
 * (they stay the bytes the collection stores).
 */
export function storedEntryHead(bytes: Uint8Array): {
  term: number;
  chain: Uint8Array | undefined;
} {
  const { chain, body } = splitStored(bytes);
  const { term } = decodeValue<{ term?: unknown }>(body);
  if (!Number.isSafeInteger(term) || (term as number) < 0) {
    throw dbError('ERR_CHANGE_INVALID', 'entryTerm', { term: JSON.stringify(term) });
  }
  return { term: term as number, chain };
}

/**
 * The entry's map without `v`, once its version is one this build reads. Bytes of this file
 * that do not decode are damage (the codec's ERR_STORAGE_CORRUPT); a peer's are a bad entry.
 */
function versioned(bytes: Uint8Array, fromPeer: boolean): Record<string, unknown> {
  let raw: Record<string, unknown>;
  try {
    raw = decodeValue<Record<string, unknown>>(bytes);
  } catch (error) {
    if (!fromPeer) throw error;
    throw dbError('ERR_CHANGE_INVALID', 'entryNotMessagePack');
  }
  if (raw === null || typeof raw !== 'object') throw dbError('ERR_CHANGE_INVALID', 'entryNotMap');
  const { v, ...entry } = raw;
  // Version 0: entries of files of format 3, which a leader may still hold and send.
  if (v === CHANGE_ENTRY_VERSION || v === undefined) return entry;
  throw dbError('ERR_CHANGE_INVALID', 'entryFormat', {
    version: String(v),
    versionRead: CHANGE_ENTRY_VERSION,
  });
}

/** Checks the fields every entry has; the op's own fields are trusted as written by docdb. */
function checkEntry(entry: Record<string, unknown>): ChangeEntry {
  if (typeof entry.op !== 'string' || !OPS.has(entry.op)) {
    throw dbError('ERR_CHANGE_INVALID', 'entryOp', { op: JSON.stringify(entry.op) });
  }
  for (const field of ['seq', 'term', 'atMs'] as const) {
    const value = entry[field];
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw dbError('ERR_CHANGE_INVALID', 'entryField', {
        field,
        value: JSON.stringify(value),
      });
    }
  }
  if (typeof entry.collection !== 'string') throw dbError('ERR_CHANGE_INVALID', 'entryCollection');
  if (entry.chain !== undefined && chainFromText(entry.chain) === undefined) {
    throw dbError('ERR_CHANGE_INVALID', 'entryChainLink', { chain: JSON.stringify(entry.chain) });
  }
  return entry as unknown as ChangeEntry;
}

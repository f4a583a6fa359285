/**
 * The change log: one entry per write, keyed by a strictly increasing seq, written in the
 * same transaction as the write it records. A bulk insert is one write and one entry, so a
 * follower applies it as atomically as the leader did. Replication ships it; checkpoints
 * trim it.
 */

import type { IndexSpec } from './catalog.js';

/**
 * What a change-log entry records. In the file a document is kept in its stored encoding
 * (`D = Buffer`, readable only with the file's shared structures); readers get it decoded.
 */
export type ChangeOp<D = Buffer> =
  /** One atomic write of one or more documents (a bulk insert is one entry). */
  | { op: 'insert'; collection: string; documents: Array<{ id: string; doc: D }> }
  | { op: 'replace'; collection: string; id: string; doc: D }
  | { op: 'delete'; collection: string; id: string }
  | { op: 'dropCollection'; collection: string }
  | { op: 'createIndex'; collection: string; index: Required<IndexSpec> }
  | { op: 'dropIndex'; collection: string; name: string };

/** A change-log entry; `D` is the document form (stored bytes or a decoded object). */
export type ChangeEntry<D = Buffer> = ChangeOp<D> & { seq: number; term: number; atMs: number };

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

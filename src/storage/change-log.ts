/**
 * The change log: one entry per write, keyed by a strictly increasing seq, written in the
 * same transaction as the write it records. Replication ships it; checkpoints trim it.
 */

import type { IndexSpec } from './catalog.js';

/** What a change-log entry records. Documents travel in their stored encoding. */
export type ChangeOp =
  | { op: 'insert'; collection: string; id: string; doc: Buffer }
  | { op: 'replace'; collection: string; id: string; doc: Buffer }
  | { op: 'delete'; collection: string; id: string }
  | { op: 'dropCollection'; collection: string }
  | { op: 'createIndex'; collection: string; index: Required<IndexSpec> }
  | { op: 'dropIndex'; collection: string; name: string };

/** A change-log entry as stored. */
export type ChangeEntry = ChangeOp & { seq: number; term: number; atMs: number };

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

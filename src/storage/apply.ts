/**
 * A follower's apply: does what a leader's change-log entry says, in the follower's own write
 * transaction, through the same document and index writes as a local write, and writes the
 * entry at the leader's seq, term and link. The follower's documents, indexes and log then
 * match the leader's. A leader's entries come as the bytes its log stores (replication
 * protocol 3), their documents in its shared structures (`LeaderStructures`); a follower
 * whose own structures are the first of the leader's takes the rest of them and stores those
 * bytes as they came, any other keeps its own and stores the entry in its own encoding.
 * Entries apply in seq order only (change-log.ts checks it).
 */

import { dbError } from '../errors/index.js';
import { parseId } from '../util/index.js';
import { checkIndexSpec } from './catalog.js';
import {
  type ChangeEntry,
  decodeDocuments,
  encodeStoredBody,
  type PeerEntry,
  type StoredChangeEntry,
  storedEntryBytes,
} from './change-entry.js';
import { DocumentCodec, type Structure } from './codec/index.js';
import type { StoreContext } from './context.js';
import { checkDocument, type Document } from './document-check.js';
import {
  collectionForWrite,
  deleteDocument,
  dropCollection,
  insertDocuments,
  type PreparedDocument,
  replaceDocument,
  requireForWrite,
} from './documents.js';
import { createIndex, dropIndex, rebuildIndexes } from './indexes.js';
import type { TxnState } from './txn-state.js';
import { prepareDocument } from './write-txn.js';

function idOf(entry: ChangeEntry, id: string): Buffer {
  const bytes = parseId(id);
  if (!bytes)
    throw dbError(
      'ERR_CHANGE_INVALID',
      'applyBadId',
      { seq: entry.seq, op: entry.op, collection: entry.collection, id: JSON.stringify(id) },
      { seq: entry.seq },
    );
  return bytes;
}

/**
 * Applies the change of one entry and answers the entry as this file stores it (its documents
 * in this file's encoding), for the caller to write. `stored`, when given, is the same entry
 * with its documents already in this file's encoding (a leader's of the same structures):
 * they are stored as they are, not encoded again.
 */
export function applyChange(
  ctx: StoreContext,
  txn: TxnState,
  entry: ChangeEntry,
  stored?: StoredChangeEntry,
): StoredChangeEntry {
  const persist = (structures: Structure[]) => ctx.catalog.saveStructures(txn, structures);
  const prepare = (doc: unknown, id: string, encoded: Uint8Array | undefined) => {
    const { body } = checkDocument(doc);
    if (encoded === undefined) return prepareDocument(ctx, body, idOf(entry, id), persist);
    // The leader stored these very bytes, so they passed the same size limit there.
    return { body, encoded: asBuffer(encoded), id: idOf(entry, id) };
  };
  switch (entry.op) {
    case 'insert': {
      const given = stored?.op === 'insert' ? stored.documents : undefined;
      const docs = entry.documents.map((d, k) => prepare(d.doc, d.id, given?.[k]?.doc));
      const options = {
        throwFirst: true,
        replayed: true,
        ...(entry.skipIndexes && { skipIndexes: true }),
      };
      insertDocuments(ctx, txn, entry.collection, docs, options);
      txn.written.insert += docs.length;
      const documents = entry.documents.map((d, k) => ({
        id: d.id,
        doc: (docs[k] as PreparedDocument).encoded,
      }));
      return { ...entry, documents };
    }
    case 'replace': {
      const doc = prepare(entry.doc, entry.id, stored?.op === 'replace' ? stored.doc : undefined);
      const id = idOf(entry, entry.id);
      if (!replaceDocument(ctx, txn, entry.collection, id, doc, { replayed: true })) {
        throw dbError(
          'ERR_CHANGE_INVALID',
          'applyNoDocument',
          { seq: entry.seq, op: entry.op, collection: entry.collection, id: entry.id },
          { seq: entry.seq },
        );
      }
      txn.written.replace++;
      return { ...entry, doc: doc.encoded };
    }
    case 'delete':
      if (!deleteDocument(ctx, txn, entry.collection, idOf(entry, entry.id))) {
        throw dbError(
          'ERR_CHANGE_INVALID',
          'applyNoDocument',
          { seq: entry.seq, op: entry.op, collection: entry.collection, id: entry.id },
          { seq: entry.seq },
        );
      }
      txn.written.delete++;
      return entry;
    case 'dropCollection':
      if (!dropCollection(ctx, txn, entry.collection)) {
        throw dbError(
          'ERR_CHANGE_INVALID',
          'applyNoCollection',
          { seq: entry.seq, op: entry.op, collection: entry.collection },
          { seq: entry.seq },
        );
      }
      return entry;
    case 'createIndex': {
      const def = collectionForWrite(ctx, txn, entry.collection, true);
      if (!def)
        throw dbError(
          'ERR_CHANGE_INVALID',
          'applyCollectionNotCreated',
          { seq: entry.seq, op: entry.op, collection: entry.collection },
          { seq: entry.seq },
        );
      createIndex(ctx, txn, def, checkIndexSpec(entry.collection, entry.index));
      return entry;
    }
    case 'dropIndex':
      dropIndex(ctx, txn, requireForWrite(ctx, txn, entry.collection), entry.name);
      return entry;
    case 'rebuildIndexes':
      rebuildIndexes(ctx, txn, requireForWrite(ctx, txn, entry.collection), entry.names);
      return entry;
    default: {
      const unknown: never = entry;
      const { seq, op, collection } = unknown as ChangeEntry;
      throw dbError('ERR_CHANGE_INVALID', 'applyUnknownOp', { seq, op, collection }, { seq });
    }
  }
}

/**
 * A leader's shared document structures as its replication session told them: what the
 * documents of its stored entries need to be read. They grow as the leader's do; each
 * session starts from none and is told them again.
 */
export class LeaderStructures {
  private list: Structure[] = [];
  private codec = new DocumentCodec([]);

  /** The leader's structures now, in id order. */
  get structures(): readonly Structure[] {
    return this.list;
  }

  /** Takes the leader's structures from id `from` on (it knows those before `from`). */
  take(from: number, structures: readonly Structure[]): void {
    if (from > this.list.length) {
      throw dbError('ERR_CHANGE_INVALID', 'structuresOutOfOrder', {
        from,
        expected: this.list.length,
      });
    }
    this.list = [...this.list.slice(0, from), ...structures.map((s) => [...s])];
    this.codec = new DocumentCodec(this.list);
  }

  /** Reads one of the leader's stored documents (a bad one is a bad entry, not damage here). */
  decode(entry: StoredChangeEntry, bytes: Uint8Array): unknown {
    try {
      return this.codec.decode(bytes);
    } catch {
      throw dbError(
        'ERR_CHANGE_INVALID',
        'applyUndecodable',
        {
          seq: (entry as ChangeEntry).seq,
          op: (entry as ChangeEntry).op,
          collection: (entry as ChangeEntry).collection,
        },
        { seq: (entry as ChangeEntry).seq },
      );
    }
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function sameStructure(a: Structure, b: Structure): boolean {
  return a.length === b.length && a.every((key, k) => key === b[k]);
}

/**
 * When this file's shared structures are the first of the leader's, takes the rest of them
 * (stored in this transaction; a rollback forgets them): the leader's entries and documents
 * then read the same here as there. Answers whether they do.
 */
export function adoptStructures(
  ctx: StoreContext,
  txn: TxnState,
  leader: LeaderStructures,
): boolean {
  const own = ctx.docs.structures;
  const theirs = leader.structures;
  if (own.length > theirs.length) return false;
  for (let k = 0; k < own.length; k++) {
    if (!sameStructure(own[k] as Structure, theirs[k] as Structure)) return false;
  }
  if (own.length < theirs.length) {
    const adopted = theirs.map((s) => [...s]);
    ctx.docs.reset(adopted);
    ctx.catalog.saveStructures(txn, adopted);
  }
  return true;
}

/**
 * Applies a leader's stored entry, its documents read with `leader`'s structures, and writes
 * it to the log: as the bytes it came in when `verbatim` (this file's structures are the
 * leader's: adoptStructures), otherwise with its documents in this file's encoding.
 */
export function applyPeerEntry(
  ctx: StoreContext,
  txn: TxnState,
  peer: PeerEntry,
  leader: LeaderStructures,
  verbatim: boolean,
): void {
  ctx.log.checkApplicable(txn, peer.entry);
  const entry = decodeDocuments(
    peer.entry,
    (bytes) => leader.decode(peer.entry, bytes) as Document,
  );
  const stored = applyChange(ctx, txn, entry, verbatim ? peer.entry : undefined);
  if (verbatim) ctx.log.writeStored(txn, peer.entry, peer.bytes, peer.chain);
  else
    ctx.log.writeStored(
      txn,
      stored,
      storedEntryBytes(encodeStoredBody(stored), peer.chain),
      peer.chain,
    );
}

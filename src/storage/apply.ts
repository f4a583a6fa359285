/**
 * A follower's apply: does what a leader's change-log entry says, in the follower's own write
 * transaction, through the same document and index writes as a local write; the caller then
 * writes the entry at the leader's seq and term. The follower's documents, indexes and log
 * then match the leader's (its log holds the documents in its own stored encoding). Entries
 * apply in seq order only (change-log.ts checks it).
 */

import { DbError } from '../errors/index.js';
import { parseId } from '../util/index.js';
import { checkIndexSpec } from './catalog.js';
import type { ChangeEntry, StoredChangeEntry } from './change-entry.js';
import type { Structure } from './codec/index.js';
import type { StoreContext } from './context.js';
import { checkDocument } from './document-check.js';
import {
  collectionForWrite,
  deleteDocument,
  dropCollection,
  insertDocuments,
  type PreparedDocument,
  requireForWrite,
  replaceDocument,
} from './documents.js';
import { createIndex, dropIndex, rebuildIndexes } from './indexes.js';
import type { TxnState } from './txn-state.js';
import { prepareDocument } from './write-txn.js';

function diverged(entry: ChangeEntry, why: string): DbError {
  return new DbError(
    'ERR_CHANGE_INVALID',
    `change ${entry.seq} (${entry.op} on ${entry.collection}) cannot be applied: ${why}; this node's data no longer matches the leader's`,
    { seq: entry.seq },
  );
}

function idOf(entry: ChangeEntry, id: string): Buffer {
  const bytes = parseId(id);
  if (!bytes) throw diverged(entry, `${JSON.stringify(id)} is not a document id`);
  return bytes;
}

/**
 * Applies the change of one entry and answers the entry as this file stores it (its documents
 * in this file's encoding), for the caller to write.
 */
export function applyChange(
  ctx: StoreContext,
  txn: TxnState,
  entry: ChangeEntry,
): StoredChangeEntry {
  const persist = (structures: Structure[]) => ctx.catalog.saveStructures(txn, structures);
  const prepare = (doc: unknown, id: string) =>
    prepareDocument(ctx, checkDocument(doc).body, idOf(entry, id), persist);
  switch (entry.op) {
    case 'insert': {
      const docs = entry.documents.map((d) => prepare(d.doc, d.id));
      const options = { throwFirst: true, ...(entry.skipIndexes && { skipIndexes: true }) };
      insertDocuments(ctx, txn, entry.collection, docs, options);
      txn.written.insert += docs.length;
      const documents = entry.documents.map((d, k) => ({
        id: d.id,
        doc: (docs[k] as PreparedDocument).encoded,
      }));
      return { ...entry, documents };
    }
    case 'replace': {
      const doc = prepare(entry.doc, entry.id);
      if (!replaceDocument(ctx, txn, entry.collection, idOf(entry, entry.id), doc)) {
        throw diverged(entry, `document ${entry.id} does not exist`);
      }
      txn.written.replace++;
      return { ...entry, doc: doc.encoded };
    }
    case 'delete':
      if (!deleteDocument(ctx, txn, entry.collection, idOf(entry, entry.id))) {
        throw diverged(entry, `document ${entry.id} does not exist`);
      }
      txn.written.delete++;
      return entry;
    case 'dropCollection':
      if (!dropCollection(ctx, txn, entry.collection)) {
        throw diverged(entry, 'the collection does not exist');
      }
      return entry;
    case 'createIndex': {
      const def = collectionForWrite(ctx, txn, entry.collection, true);
      if (!def) throw diverged(entry, 'the collection cannot be created');
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
      throw diverged(unknown, 'its op is unknown');
    }
  }
}

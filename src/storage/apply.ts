/**
 * A follower's apply: does what a leader's change-log entry says, in the follower's own write
 * transaction, through the same document and index writes as a local write, then writes the
 * entry itself at the leader's seq and term. The follower's documents, indexes and log then
 * match the leader's. Entries apply in seq order only (change-log.ts checks it).
 */

import { DbError } from '../errors/index.js';
import { parseId } from '../util/index.js';
import { checkIndexSpec } from './catalog.js';
import type { ChangeEntry } from './change-entry.js';
import type { StoreContext } from './context.js';
import { checkDocument } from './document-check.js';
import {
  collectionForWrite,
  deleteDocument,
  dropCollection,
  insertDocuments,
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

/** Applies the change of one entry (the caller then writes the entry). */
export function applyChange(ctx: StoreContext, txn: TxnState, entry: ChangeEntry): void {
  const persist = (structures: Parameters<typeof ctx.catalog.saveStructures>[1]) =>
    ctx.catalog.saveStructures(txn, structures);
  const prepare = (doc: unknown, id: string) =>
    prepareDocument(ctx, checkDocument(doc).body, idOf(entry, id), persist);
  switch (entry.op) {
    case 'insert': {
      const docs = entry.documents.map((d) => prepare(d.doc, d.id));
      const options = { throwFirst: true, ...(entry.skipIndexes && { skipIndexes: true }) };
      insertDocuments(ctx, txn, entry.collection, docs, options);
      txn.written.insert += docs.length;
      return;
    }
    case 'replace':
      if (
        !replaceDocument(
          ctx,
          txn,
          entry.collection,
          idOf(entry, entry.id),
          prepare(entry.doc, entry.id),
        )
      ) {
        throw diverged(entry, `document ${entry.id} does not exist`);
      }
      txn.written.replace++;
      return;
    case 'delete':
      if (!deleteDocument(ctx, txn, entry.collection, idOf(entry, entry.id))) {
        throw diverged(entry, `document ${entry.id} does not exist`);
      }
      txn.written.delete++;
      return;
    case 'dropCollection':
      if (!dropCollection(ctx, txn, entry.collection)) {
        throw diverged(entry, 'the collection does not exist');
      }
      return;
    case 'createIndex': {
      const def = collectionForWrite(ctx, txn, entry.collection, true);
      if (!def) throw diverged(entry, 'the collection cannot be created');
      createIndex(ctx, txn, def, checkIndexSpec(entry.collection, entry.index));
      return;
    }
    case 'dropIndex':
      dropIndex(ctx, txn, requireForWrite(ctx, txn, entry.collection), entry.name);
      return;
    case 'rebuildIndexes':
      rebuildIndexes(ctx, txn, requireForWrite(ctx, txn, entry.collection), entry.names);
      return;
    default:
      throw diverged(entry as ChangeEntry, 'its op is unknown');
  }
}

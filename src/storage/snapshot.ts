/**
 * Pinned read snapshots: reads spread over many event-loop turns that see one committed
 * state. A document snapshot serves a streamed query; a file snapshot is the whole file at
 * one seq (every collection with its index definitions and documents), what a follower
 * that fell behind the trimmed change log catches up from before it reads the entries after
 * that seq. A snapshot keeps old pages from reuse: release it when done.
 */

import type { FileSnapshot, JsonLines, SnapshotCollection, SnapshotIndex } from '../types/index.js';
import { formatId } from '../util/index.js';
import type { CollectionDef, NodeMeta } from './catalog.js';
import { chainText, seqOfKey, storedEntryHead } from './change-entry.js';
import { decodeValue, type JsonProjection } from './codec/index.js';
import type { StoreContext } from './context.js';
import type { Document } from './document-check.js';
import { countDocuments, type DamageAt, idLines, type LineRange, scanLines } from './json-lines.js';
import type { ReadSnapshot } from './lmdb-env.js';
import { documentJson, ID_MIN, openCatalogTrees } from './records.js';

/** Reads of documents as they were when the snapshot was opened. */
export interface DocumentSnapshot {
  getBody(def: CollectionDef, id: Buffer): Document | undefined;
  /** The document's JSON text with its `_id` (or of its projection), as StoreReader's. */
  getJson(def: CollectionDef, id: Buffer, projection?: JsonProjection): string | undefined;
  /** How many documents the collection holds. */
  count(def: CollectionDef): number;
  /**
   * The collection's documents in id order, within `range`, as NDJSON chunks of their JSON
   * text as `getJson` writes it (json-lines.ts). A failed read throws what `damageAt` makes
   * of its error (the Store's own snapshot names the document).
   */
  scanLines(
    def: CollectionDef,
    projection: JsonProjection | undefined,
    range: LineRange,
    damageAt?: DamageAt,
  ): Generator<JsonLines>;
  /** The documents `ids` name, in that order, as NDJSON chunks (one not there left out). */
  idLines(
    def: CollectionDef,
    projection: JsonProjection | undefined,
    ids: Iterable<Buffer>,
    damageAt?: DamageAt,
  ): Generator<JsonLines>;
  release(): void;
}

/** Pins the committed state, every tree the catalog names opened first (openCatalogTrees). */
function pinWithHandles(ctx: StoreContext): ReadSnapshot {
  openCatalogTrees(ctx);
  return ctx.handles.pin();
}

/** A read's error as it is. */
const asIs: DamageAt = (error) => error;

/** Pins the current committed state for reads of documents by id and of whole collections. */
export function openDocumentSnapshot(ctx: StoreContext): DocumentSnapshot {
  const snapshot = pinWithHandles(ctx);
  return {
    getBody: (def, id) => {
      const bytes = snapshot.get(ctx.handles.get(def.dbName), id);
      return bytes === undefined ? undefined : ctx.docs.decode<Document>(bytes);
    },
    getJson: (def, id, projection) => {
      const bytes = snapshot.get(ctx.handles.get(def.dbName), id);
      return bytes === undefined ? undefined : documentJson(ctx, id, bytes, projection);
    },
    count: (def) => countDocuments(ctx, snapshot, def),
    scanLines: (def, projection, range, damageAt = asIs) =>
      scanLines(ctx, snapshot, def, projection, range, damageAt),
    idLines: (def, projection, ids, damageAt = asIs) =>
      idLines(ctx, snapshot, def, projection, ids, damageAt),
    release: () => snapshot.release(),
  };
}

export type { FileSnapshot, SnapshotCollection, SnapshotIndex };

const META_KEY = Buffer.from('meta');
const COLLECTIONS = { start: Buffer.from('c/'), end: Buffer.from('c0') };
const PAST_LAST_KEY = Buffer.alloc(9, 0xff);

/** Pins the whole committed file: catalog, seq and term, documents, all from one state. */
export function openFileSnapshot(ctx: StoreContext): FileSnapshot {
  const snapshot = pinWithHandles(ctx);
  try {
    const metaBytes = snapshot.get(ctx.handles.catalog, META_KEY);
    const meta = metaBytes ? decodeValue<NodeMeta>(metaBytes) : undefined;
    let seq = meta?.seqFloor ?? 0;
    let lastTerm = meta?.floorTerm ?? 0;
    let lastChain = meta?.floorChain;
    for (const { key, value } of snapshot.range(ctx.handles.changes, {
      start: PAST_LAST_KEY,
      reverse: true,
      limit: 1,
    })) {
      seq = seqOfKey(key);
      const head = storedEntryHead(value);
      lastTerm = head.term;
      lastChain = head.chain && chainText(head.chain);
    }
    const defs = new Map<string, CollectionDef>();
    for (const { value } of snapshot.range(ctx.handles.catalog, COLLECTIONS)) {
      const def = decodeValue<CollectionDef>(value);
      defs.set(def.name, def);
    }
    const collections = [...defs.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((def) => ({
        name: def.name,
        indexes: def.indexes.map((i) => ({
          name: i.name,
          paths: i.paths,
          unique: i.unique,
          state: i.state,
        })),
      }));
    return {
      seq,
      term: meta?.term ?? 1,
      lastTerm,
      lastChain,
      // Pinned in this same turn as the committed state, so the log's history is this one's.
      runs: meta?.termRuns ?? ctx.log.termRuns(),
      collections,
      *documents(collection) {
        const def = defs.get(collection);
        if (!def) return;
        const db = ctx.handles.get(def.dbName);
        for (const { key, value } of snapshot.range(db, { start: ID_MIN })) {
          yield { id: formatId(key), doc: ctx.docs.decode<Document>(value) };
        }
      },
      release: () => snapshot.release(),
    };
  } catch (error) {
    snapshot.release();
    throw error;
  }
}

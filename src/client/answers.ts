/**
 * The bodies of the REST answers that src/types/ does not hold because only the wire has
 * them (docs/rest.md): small envelopes around ids, counts and shared shapes.
 */

import type {
  CheckpointResult,
  Document,
  IndexInfo,
  QueryResult,
  ReplicationStatus,
} from '../types/index.js';

/** `POST /collections/{name}`: the new document's `_id`. */
export interface InsertAnswer {
  id: string;
}

/** `GET /collections/{name}`: a page of documents in `_id` order. */
export interface ListAnswer {
  documents: Document[];
  count: number;
}

/** `GET /collections/{name}/by/{field}/{value}`: every match, and the plan that found them. */
export interface ByKeyAnswer extends ListAnswer {
  plan: string;
}

/** `PUT /collections/{name}/by/{field}/{value}`: the one document replaced. */
export interface ReplaceByKeyAnswer {
  id: string;
  matched: 1;
}

/** `DELETE` by key (every match) or by `_id` (1). */
export interface DeleteAnswer {
  deleted: number;
}

/** `PUT /collections/{name}/{_id}`. */
export interface ReplaceAnswer {
  id: string;
}

/** `DELETE /collections/{name}`. */
export interface DropAnswer {
  dropped: string;
}

/** `POST /index`: the index, built before the answer. */
export interface CreatedIndex extends IndexInfo {
  collection: string;
}

/** `DELETE /indexes/{collection}/{name}`: the canonical collection and the index's own name. */
export interface DroppedIndex {
  collection: string;
  dropped: string;
}

/** What `createIndex` sends: one path or several (a compound index). */
export type IndexRequest = {
  collection: string;
  name?: string;
  unique?: boolean;
} & ({ path: string; paths?: never } | { paths: string[]; path?: never });

/** `POST /admin/flush`. */
export interface FlushAnswer {
  flushed: true;
  lastSeq: number;
}

/** `POST /admin/checkpoint`. */
export interface CheckpointAnswer extends CheckpointResult {
  checkpointed: true;
}

/** `POST /admin/rebuild-indexes/{collection}`. */
export interface RebuildIndexesAnswer {
  collection: string;
  rebuilt: IndexInfo[];
}

/** `POST /admin/rebuild-index/{collection}/{indexName}`. */
export interface RebuildIndexAnswer {
  collection: string;
  rebuilt: IndexInfo;
}

/** The X-DOCDB-* headers of a `POST /query` answer, and its request id. */
export interface QueryHeaders {
  plan: string;
  count: number;
  /** As the header gives it: three decimals. */
  executionMs: number;
  requestId: string | undefined;
}

/** `POST /query`: the envelope, with the headers beside it. */
export interface QueryAnswer extends QueryResult {
  headers: QueryHeaders;
}

/** Options of `bulk` (`?atomic=true`, `?skipIndexes=true`). */
export interface BulkOptions {
  /** All or nothing: any failure stores nothing and throws the first one's DbError. */
  atomic?: boolean;
  /** A cold load: the collection's indexes turn `stale` until rebuilt. */
  skipIndexes?: boolean;
}

/** Options of `list`. */
/** A document with its tag (the `ETag` of `GET …/{_id}`). */
export interface TaggedDocument {
  doc: Document;
  /** Changes with every write to the document; meaningful on the node that gave it only. */
  tag: string;
}

/** Makes `replace` or `delete` conditional: 412 ERR_DOCUMENT_CHANGED when the tag is stale. */
export interface WriteCondition {
  ifMatch?: string;
}

export interface ListOptions {
  /** Default 100, at most 10,000. */
  limit?: number;
  /** Start after this `_id` (the last one of the page before). */
  after?: string;
}

/** What a value in a by-key path may be: it travels as text and matches what it spells. */
export type KeyValue = string | number | boolean | null;

/** The replication transitions answer the status as it is after the change. */
export type TransitionAnswer = ReplicationStatus;

/** The storage layer: one LMDB data file, its catalog, documents, indexes and change log. */

export {
  autoIndexName,
  type CheckedIndexSpec,
  type CollectionDef,
  checkIndexSpec,
  FORMAT_VERSION,
  findIndex,
  type IndexDef,
  type IndexSpec,
  type IndexState,
  normalizeCollectionName,
} from './catalog.js';
export type { ChangeEntry, ChangeOp } from './change-log.js';
export { FieldSelection, KEY_VALUE_BYTES_MAX } from './codec/index.js';
export { checkDocument, type Document } from './document-check.js';
export {
  idForUniqueKey,
  idsForKeys,
  idsForRange,
  type KeyValue,
  type RangeBounds,
  rangeKeys,
} from './lookup.js';
export type { StoredDocument, StoreReader } from './reader.js';
export {
  type BulkResult,
  type CompactResult,
  collectionNotFound,
  DATA_FILE_NAME,
  type DocumentSnapshot,
  type PreparedDocument,
  resolveDataFile,
  Store,
  type StoreOptions,
  type StoreStats,
  withId,
} from './store.js';
export { type LockOwner, lockHolder } from './writer-lock.js';

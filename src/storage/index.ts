/** The storage layer: one LMDB data file, its catalog, documents, indexes and change log. */

export { LeaderStructures } from './apply.js';
export {
  autoIndexName,
  type CheckedIndexSpec,
  type CollectionDef,
  checkIndexSpec,
  FORMAT_VERSION,
  FORMAT_VERSIONS_READ,
  findIndex,
  type IndexDef,
  type IndexSpec,
  type IndexState,
  normalizeCollectionName,
} from './catalog.js';
export {
  CHANGE_ENTRY_VERSION,
  type ChangeEntry,
  type ChangeOp,
  type ChangeStamp,
  encodeStoredEntry,
  type PeerEntry,
  readPeerEntry,
} from './change-entry.js';
export type { ChangeHold, LogPosition, TermRun } from './change-log.js';
export {
  decodedBytes,
  FieldSelection,
  type JsonColumn,
  JsonProjection,
  KEY_VALUE_BYTES_MAX,
  type Structure,
} from './codec/index.js';
export {
  type CheckedDocument,
  checkDocument,
  checkFieldValue,
  type Document,
} from './document-check.js';
export type { BulkResult, InsertOptions, PreparedDocument } from './documents.js';
export { NOTHING_STORED } from './indexes.js';
export {
  idForUniqueKey,
  idsForKeys,
  idsForRange,
  type KeyValue,
  type RangeBounds,
  rangeKeys,
} from './lookup.js';
export type { CompactedTrees, CompactResult, PageUsage, StoreStats } from './maintenance.js';
export type { PageCheck } from './open-check.js';
export type { JsonKeep, StoredDocument, StoreReader } from './reader.js';
export { withId } from './records.js';
export type { LoadIndex, SnapshotLoad, SnapshotPosition } from './resync.js';
export type { SelectionCacheStats } from './scans.js';
export type {
  DocumentSnapshot,
  FileSnapshot,
  SnapshotCollection,
  SnapshotIndex,
} from './snapshot.js';
export {
  DATA_FILE_NAME,
  type Recovery,
  resolveDataFile,
  Store,
  type StoreOptions,
  type StoreWriter,
} from './store.js';
export type { WriteCounts } from './txn-state.js';
export type { VerifyProgress } from './verify.js';
export { removeWal, walDirectory } from './wal.js';
export type { WriteTxn } from './write-txn.js';
export { type LockOwner, lockHolder } from './writer-lock.js';

/** The engine: the Database facade and collection handles over storage (and, later, SQL). */

export type { ChangeEntry, FileSnapshot, PageCheck, StoreStats } from '../storage/index.js';
export type { SeedResult } from '../types/index.js';
export {
  SEED_COUNT_DEFAULT,
  SEED_COUNT_MAX,
  SEED_INDEXES,
  type SeedOptions,
  seedOrders,
} from '../util/index.js';
export {
  BACKUP_FORMAT,
  type BackupManifest,
  type BackupOptions,
  readManifest,
  takeBackup,
  verifyBackup,
} from './backup.js';
export { BACKUP_ARCHIVE_TYPE, packBackup, unpackBackup } from './backup-archive.js';
export type { ChangeFeed, ChangesOptions } from './changes.js';
export {
  Collection,
  type CreateIndexOptions,
  type IndexInfo,
  type InsertManyOptions,
  type WriteCondition,
} from './collection.js';
export { Database, type OpenOptions, open } from './database.js';
export type { FindOptions, FindResult } from './find.js';
export { LOG_SEGMENT_BYTES_MAX, lastSegmentEntry, SegmentWriter } from './log-segments.js';
export type { KeyedRow, QueryMeta, QueryResult, ShardPlan } from './query.js';
export {
  type RestoreOptions,
  type RestorePoint,
  type RestoreResult,
  restoreBackup,
} from './restore.js';
export { type GateState, type Role, WriteGate } from './write-gate.js';

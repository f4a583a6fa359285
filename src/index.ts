/**
 * docdb's embedded API, the package entry point:
 *
 *   import { open } from 'docdb';
 *   const db = await open('./data');
 *   const id = await db.collection('orders').insert({ pnr: 'ABC123' });
 */

export {
  type ChangeFeed,
  type ChangesOptions,
  Collection,
  type CreateIndexOptions,
  Database,
  type FindOptions,
  type FindResult,
  type IndexInfo,
  type InsertManyOptions,
  type OpenOptions,
  open,
  type QueryMeta,
  type QueryResult,
  type WriteCondition,
} from './engine/index.js';
export { DbError, ERROR_CATALOGUE, type ErrorCode, isDbError } from './errors/index.js';
export type { RangeBounds } from './storage/index.js';
export type {
  BulkItemError,
  BulkResult,
  ChangeEntry,
  ChangeFeedOptions,
  ChangeHeartbeat,
  ChangeLine,
  ChangeOp,
  ChangeStamp,
  CheckpointResult,
  CompactResult,
  Document,
  ErrorBody,
  FeedEntry,
  GateState,
  HealthBody,
  IndexState,
  JsonLines,
  JsonText,
  LogPosition,
  NodeApi,
  PreparedStatement,
  Role,
  StoreStats,
  VerifyProblem,
  VerifyProblemKind,
  VerifyReport,
} from './types/index.js';
export { isJsonLines, isJsonText, resumePoint } from './util/index.js';
export { VERSION } from './version.js';

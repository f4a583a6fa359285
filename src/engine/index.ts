/** The engine: the Database facade and collection handles over storage (and, later, SQL). */

export {
  Collection,
  type CreateIndexOptions,
  type IndexInfo,
  type InsertManyOptions,
} from './collection.js';
export { Database, type OpenOptions, open } from './database.js';
export type { QueryResult } from './query.js';

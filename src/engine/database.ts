/**
 * The Database facade: what the CLI, the server and embedding applications call. It owns
 * one Store and hands out collection handles; SQL (`query`) joins it with the SQL issue.
 */

import type { DbError } from '../errors/index.js';
import {
  type ChangeEntry,
  type Document,
  type CompactResult,
  collectionNotFound,
  normalizeCollectionName,
  Store,
  type StoreOptions,
  type StoreStats,
} from '../storage/index.js';
import { Collection } from './collection.js';
import {
  type QueryMeta,
  type QueryResult,
  runQuery,
  StatementCache,
  streamQuery,
} from './query.js';

/** Options of open(). */
export interface OpenOptions extends StoreOptions {}

export class Database {
  private readonly handles = new Map<string, Collection>();
  private readonly statements = new StatementCache();

  constructor(private readonly store: Store) {}

  /** The data file's path. */
  get file(): string {
    return this.store.file;
  }

  /** True when opened read-only. */
  get readOnly(): boolean {
    return this.store.readOnly;
  }

  /**
   * A handle to a collection. Names are case-insensitive (folded to lowercase); an invalid
   * name throws ERR_COLLECTION_NAME_INVALID. The collection is created on first insert.
   */
  collection(name: string): Collection {
    const canonical = normalizeCollectionName(name);
    this.store.refresh();
    let handle = this.handles.get(canonical);
    if (!handle) {
      handle = new Collection(this.store, canonical, (n) => this.unknownCollection(n));
      this.handles.set(canonical, handle);
    }
    return handle;
  }

  /** The collection if it exists; otherwise ERR_COLLECTION_NOT_FOUND naming the known ones. */
  requireCollection(name: string): Collection {
    const handle = this.collection(name);
    if (!handle.exists()) throw this.unknownCollection(name);
    return handle;
  }

  private unknownCollection(name: string): DbError {
    return collectionNotFound(name, this.store.collectionNames());
  }

  /**
   * Runs one SQL statement; `?` placeholders take `params` in order, so applications never
   * build SQL from strings. Reads give `{ plan, count, executionMs, documents }`; writes add
   * `affected` (and `ids` for INSERT).
   */
  query(sql: string, params: readonly unknown[] = []): Promise<QueryResult> {
    return runQuery(this.store, this.statements, sql, params);
  }

  /**
   * Runs one statement as a stream: the first value is the meta `{ plan, count,
   * executionMs }`, then one document at a time (writes yield only the meta). Memory grows
   * with the number of matching ids, not documents; stop early with `break`.
   */
  queryStream(
    sql: string,
    params: readonly unknown[] = [],
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    return streamQuery(this.store, this.statements, sql, params);
  }

  /**
   * The kind of a statement (`select`, `insert`, …) without running it: parsed through the
   * statement cache, so the length limit applies first and the parse is reused.
   */
  statementKind(sql: string): string {
    return this.statements.get(sql).statement.kind;
  }

  /** Canonical names of every collection, sorted. */
  listCollections(): string[] {
    this.store.refresh();
    return this.store.collectionNames();
  }

  /** Drops a collection; resolves false when it did not exist. */
  dropCollection(name: string): Promise<boolean> {
    return this.collection(name).drop();
  }

  /** File size, pages, collections with counts, and every index with its state. */
  stats(): StoreStats {
    this.store.refresh();
    return this.store.stats();
  }

  /** Resolves once every write issued so far is durable. */
  flush(): Promise<{ lastSeq: number }> {
    return this.store.flush();
  }

  /** Flushes and trims the change log to its retention bound. */
  checkpoint(): Promise<{ lastSeq: number; trimmedEntries: number; firstSeq: number }> {
    return this.store.checkpoint();
  }

  /** Rewrites one collection compactly; reports the pages and bytes reclaimed. */
  compact(name: string): Promise<CompactResult> {
    const canonical = normalizeCollectionName(name);
    if (!this.store.getCollection(canonical)) return Promise.reject(this.unknownCollection(name));
    return this.store.compact(canonical);
  }

  /** Change-log entries after `seq`, oldest first (replication reads these). */
  changesSince(seq: number): Iterable<ChangeEntry<Document>> {
    return this.store.changesAfter(seq);
  }

  /** Replication term and newest change-log seq. */
  nodeState(): { term: number; lastSeq: number; seqFloor: number } {
    return this.store.nodeState();
  }

  /** Waits for queued writes, then closes the file and releases its writer lock. */
  close(): Promise<void> {
    return this.store.close();
  }
}

/**
 * Opens a database: a data directory (its `data.docdb` is created when missing) or a
 * `.docdb` file. A writing open takes the file's writer lock; `readOnly` does not.
 */
export async function open(target: string, options: OpenOptions = {}): Promise<Database> {
  return new Database(Store.open(target, options));
}

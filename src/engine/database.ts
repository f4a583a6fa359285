/**
 * The Database facade: what the CLI, the server and embedding applications call. It owns one
 * Store, its write gate and the statement cache, and hands out collection handles. Every write
 * it offers passes the gate (one GatedWriter); replication reaches the store through its own
 * port (replication/port.ts), which the node wires from `store` and `gate`, never through here.
 */

import type { DbError } from '../errors/index.js';
import type { CheckpointResult, VerifyReport } from '../types/index.js';
import {
  type ChangeEntry,
  type CompactResult,
  collectionNotFound,
  type Document,
  type FileSnapshot,
  type LogPosition,
  normalizeCollectionName,
  type Recovery,
  type SelectionCacheStats,
  Store,
  type StoreOptions,
  type StoreStats,
  type VerifyProgress,
  type WriteCounts,
} from '../storage/index.js';
import { type ChangeFeed, type ChangesOptions, openChangeFeed } from './changes.js';
import { Collection } from './collection.js';
import {
  type KeyedRow,
  type QueryMeta,
  type QueryResult,
  runQuery,
  type ShardQueryOptions,
  StatementCache,
  streamQuery,
} from './query.js';
import { GatedWriter, WriteGate } from './write-gate.js';

/** Options of open(). */
export interface OpenOptions extends StoreOptions {}

export class Database {
  private readonly statements = new StatementCache();
  /** The node's role, read-only mode and commit barrier: every client write passes it. */
  readonly gate = new WriteGate();
  /** Where every write this database offers goes: the store, through the gate. */
  private readonly writer: GatedWriter;

  /**
   * `store` is the node's storage, for the node's wiring alone (replication's port, the
   * change-log archive): its own writes pass no gate. Applications use the methods below.
   */
  constructor(readonly store: Store) {
    this.writer = new GatedWriter(store, this.gate);
  }

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
   * name throws ERR_COLLECTION_NAME_INVALID. The collection is created on first insert. A
   * handle holds only the name, so none is kept: kept handles of every name a client asked
   * for, existing or not, grew the heap without bound (64 MiB for 300,000 unknown names).
   */
  collection(name: string): Collection {
    const canonical = normalizeCollectionName(name);
    this.store.refresh();
    return new Collection(this.store, this.writer, canonical, (n) => this.unknownCollection(n));
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
   * `affected` (and `ids` for INSERT). `options` is a router's (ADR 0014): `phase: 'partial'`
   * answers an aggregate's groups as `{ group, states }`, `sortKeys` adds each row's sort key.
   */
  query(
    sql: string,
    params: readonly unknown[] = [],
    options: ShardQueryOptions = {},
  ): Promise<QueryResult> {
    return runQuery(this.store, this.writer, this.statements, sql, params, options);
  }

  /**
   * Runs one statement as a stream: the first value is the meta `{ plan, count,
   * executionMs }`, then one document at a time (writes yield only the meta). Memory grows
   * with the number of matching ids, not documents; stop early with `break`.
   */
  queryStream(
    sql: string,
    params: readonly unknown[] = [],
    options: ShardQueryOptions = {},
  ): AsyncGenerator<QueryMeta | Document | KeyedRow, void, undefined> {
    return streamQuery(this.store, this.writer, this.statements, sql, params, options);
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

  /**
   * Checks the whole file: every document decodes, every index entry agrees with its
   * document both ways, the change log is contiguous, stored counts match. Writes nothing.
   */
  verify(progress?: VerifyProgress): Promise<VerifyReport> {
    return this.store.verify(progress);
  }

  /** Resolves once every write issued so far is durable. */
  flush(): Promise<{ lastSeq: number }> {
    return this.store.flush();
  }

  /**
   * Trims the change log to its retention bound, then makes the data file durable as a
   * checkpoint (the write-ahead log before it is let go).
   */
  checkpoint(): Promise<CheckpointResult> {
    return this.store.checkpoint();
  }

  /**
   * What a writing open found and did after an unclean stop: whether it put the file back at
   * its last checkpoint and how many entries it applied again from the write-ahead log.
   */
  recovery(): Recovery {
    return this.store.recovery();
  }

  /**
   * Writes a consistent copy of the whole data file to `file` (a new path) while writes go
   * on: every write acknowledged before the call is in it. What `takeBackup` builds on.
   */
  copyTo(file: string, compact = false): Promise<void> {
    return this.store.copyTo(file, compact);
  }

  /** Rewrites one collection compactly; reports the pages and bytes reclaimed. */
  compact(name: string): Promise<CompactResult> {
    const canonical = normalizeCollectionName(name);
    if (!this.store.getCollection(canonical)) return Promise.reject(this.unknownCollection(name));
    return this.compactThroughGate(canonical);
  }

  private async compactThroughGate(canonical: string): Promise<CompactResult> {
    const before = this.store.pageUsage();
    const trees = await this.writer.write((txn) => txn.compactCollection(canonical));
    return this.store.compactResult(trees, before);
  }

  /** Change-log entries after `seq` that are still kept, oldest first. */
  changesSince(seq: number): Iterable<ChangeEntry> {
    return this.store.changesAfter(seq);
  }

  /**
   * The change-log entries after `seq`, then each new one as it commits, until `signal`
   * aborts: what a change feed reads. Rejects with ERR_CHANGES_TRIMMED when
   * those entries were trimmed (read `openFileSnapshot()` first, then follow its seq).
   */
  followChanges(seq: number, signal?: AbortSignal): AsyncGenerator<ChangeEntry> {
    return this.store.followChanges(seq, signal);
  }

  /**
   * The change feed: the entries after `since` (default: the last seq now, so only new
   * writes), then each one as it commits, until `signal` aborts; of one collection when given.
   * Bad options and a `since` below the log's floor (ERR_CHANGES_TRIMMED) throw at once.
   * `feed.position` is where a consumer resumes. See docs/changes.md.
   */
  changes(options: ChangesOptions = {}): ChangeFeed {
    return openChangeFeed(this, options);
  }

  /** Every collection, index definition and document at one seq, from one pinned state. */
  openFileSnapshot(): FileSnapshot {
    this.store.refresh();
    return this.store.openFileSnapshot();
  }

  /**
   * Replication term, the change log's newest and trimmed seqs, the term of its newest entry
   * (`lastTerm`: the floor's term when the log holds none, 0 when nothing was written) and
   * that entry's hash-chain link.
   */
  nodeState(): LogPosition {
    return this.store.nodeState();
  }

  /** Documents written through this handle since it opened the file, by operation. */
  writeCounts(): WriteCounts {
    return this.store.writeCounts();
  }

  /** The selections of whole scans this writer keeps in memory, and their documents. */
  selectionCache(): SelectionCacheStats {
    return this.store.selectionCache();
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
  if (options.readOnly !== true) await Store.create(target);
  else await Store.recoverForReading(target);
  return new Database(Store.open(target, options));
}

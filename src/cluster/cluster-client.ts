/**
 * Routing inside the application (`docdb/client/cluster`, issue 25): the shards of a
 * cluster.json asked directly from the caller's process by the router's own code (a Router
 * over its ShardSet), so no router hop stands between, while placement, scatter and merge, a
 * replica set's leader, follower reads and every error stay the router's. This module owns
 * opening, following the file and closing; it must never route, merge or word an answer itself.
 */

import type {
  BulkResult,
  ChangeFeedOptions,
  ChangeLine,
  CompactResult,
  Document,
  HealthBody,
  IndexInfo,
  RouterStats,
  SeedResult,
} from '../client/index.js';
import { dbError } from '../errors/index.js';
import type * as api from '../types/api.js';
import type { QueryMeta, QueryResult } from '../types/index.js';
import { type ClusterConfig, parseClusterConfig } from './config.js';
import { readClusterConfig } from './config-file.js';
import { type ReloadEvents, ReloadingRouter, type RouterSource } from './reload.js';
import { Router } from './router.js';
import type { RouterOptions } from './shard-set.js';

export type { ClusterConfig, ClusterShard, CollectionPlacement } from './config.js';
export { RELOAD_CHECK_MS } from './reload.js';
export type { ReloadEvents, RouterOptions };

/** What `health()` names as the node when the options do not. */
export const CLUSTER_CLIENT_NAME_DEFAULT = 'cluster-client';

/** Options of `connectCluster`: the router's, and how a cluster.json file is followed. */
export interface ClusterClientOptions extends RouterOptions, ReloadEvents {
  /**
   * How often a cluster.json given by path is looked at for changes (default
   * RELOAD_CHECK_MS); a config given as an object is never reloaded.
   */
  checkMs?: number;
  /** The node name `health()` reports (default CLUSTER_CLIENT_NAME_DEFAULT). */
  name?: string;
}

/**
 * The node REST surface (NodeApi) over a cluster's shards, as `docdb router` answers it, in
 * the application's process. Each call starts on the topology of the moment: when the file
 * changes, calls already running finish on the one they started with. Answers, plans
 * (`SINGLE_SHARD(s2): …`) and errors are the router's own (ERR_SHARD_UNAVAILABLE naming a
 * shard that does not answer). `close()` ends every shard connection and the file watch.
 */
export class ClusterClient implements api.NodeApi {
  private closed = false;

  constructor(
    private readonly source: RouterSource,
    /** The cluster.json file followed, or undefined for a config given as an object. */
    readonly file: string | undefined,
  ) {}

  /** The topology calls start on now (the file's last valid content). */
  get config(): ClusterConfig {
    return this.router().config;
  }

  /** The router of the moment; a closed client refuses to go on. */
  private router(): Router {
    if (this.closed) {
      throw dbError('ERR_CLIENT_UNREACHABLE', 'closed', {
        url: `the cluster client of ${this.file ?? 'a cluster config'}`,
      });
    }
    return this.source.current();
  }

  /** `GET /health` as a router answers it: ok, degraded or down by its shards' answers. */
  health(timeoutMs?: number): Promise<HealthBody> {
    return this.router().health(timeoutMs);
  }

  stats(): Promise<RouterStats> {
    return this.router().stats();
  }

  collections(): Promise<string[]> {
    return this.router().collections();
  }

  query(
    sql: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): Promise<QueryResult> {
    return this.router().query(sql, params, options);
  }

  async *queryStream(
    sql: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    yield* this.router().queryStream(sql, params, options);
  }

  /** `POST /query/prepare` as a router answers it: the handle, held by the router. */
  prepare(sql: string): api.PreparedStatement {
    return this.router().prepare(sql);
  }

  execute(
    handle: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): Promise<QueryResult> {
    return this.router().execute(handle, params, options);
  }

  async *executeStream(
    handle: string,
    params?: readonly unknown[],
    options?: api.QueryOptions,
  ): AsyncGenerator<QueryMeta | Document, void, undefined> {
    yield* this.router().executeStream(handle, params, options);
  }

  insert(collection: string, doc: unknown): Promise<api.InsertAnswer> {
    return this.router().insert(collection, doc);
  }

  bulk(collection: string, docs: unknown[], options?: api.BulkOptions): Promise<BulkResult> {
    return this.router().bulk(collection, docs, options);
  }

  list(collection: string, options?: api.ListOptions): Promise<api.ListAnswer> {
    return this.router().list(collection, options);
  }

  getByKey(collection: string, field: string, value: api.KeyValue): Promise<api.ByKeyAnswer> {
    return this.router().getByKey(collection, field, value);
  }

  replaceByKey(
    collection: string,
    field: string,
    value: api.KeyValue,
    doc: unknown,
    condition?: api.WriteCondition,
  ): Promise<api.ReplaceByKeyAnswer> {
    return this.router().replaceByKey(collection, field, value, doc, condition);
  }

  deleteByKey(collection: string, field: string, value: api.KeyValue): Promise<api.DeleteAnswer> {
    return this.router().deleteByKey(collection, field, value);
  }

  getTagged(collection: string, id: string): Promise<api.TaggedDocument | undefined> {
    return this.router().getTagged(collection, id);
  }

  replace(
    collection: string,
    id: string,
    doc: unknown,
    condition?: api.WriteCondition,
  ): Promise<api.ReplaceAnswer> {
    return this.router().replace(collection, id, doc, condition);
  }

  delete(
    collection: string,
    id: string,
    condition?: api.WriteCondition,
  ): Promise<api.DeleteAnswer> {
    return this.router().delete(collection, id, condition);
  }

  dropCollection(name: string): Promise<api.DropAnswer> {
    return this.router().dropCollection(name);
  }

  indexes(collection: string): Promise<IndexInfo[]> {
    return this.router().indexes(collection);
  }

  createIndex(request: api.IndexRequest): Promise<api.CreatedIndex> {
    return this.router().createIndex(request);
  }

  dropIndex(collection: string, name: string): Promise<api.DroppedIndex> {
    return this.router().dropIndex(collection, name);
  }

  flush(): Promise<api.FlushAnswer> {
    return this.router().flush();
  }

  checkpoint(): Promise<api.CheckpointAnswer> {
    return this.router().checkpoint();
  }

  compact(collection: string): Promise<CompactResult> {
    return this.router().compact(collection);
  }

  rebuildIndexes(collection: string): Promise<api.RebuildIndexesAnswer> {
    return this.router().rebuildIndexes(collection);
  }

  rebuildIndex(collection: string, indexName: string): Promise<api.RebuildIndexAnswer> {
    return this.router().rebuildIndex(collection, indexName);
  }

  seed(orders?: number, seed?: number): Promise<SeedResult> {
    return this.router().seed(orders, seed);
  }

  async *changesWithHeartbeats(
    options?: ChangeFeedOptions,
  ): AsyncGenerator<ChangeLine, void, undefined> {
    yield* this.router().changesWithHeartbeats(options);
  }

  /** Stops following the file and closes every shard connection; calls after it are refused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.source.close();
  }
}

/** `name` of the options must be a positive integer when given. */
function checkPositive(options: ClusterClientOptions, name: keyof ClusterClientOptions): void {
  const value = options[name];
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw dbError('ERR_BAD_ARGUMENT', 'clientPositive', { name });
  }
}

/**
 * Opens a cluster for this process: `cluster` is the path of a cluster.json (read, validated
 * and then followed: a valid change serves calls that start from then on, an invalid one is
 * reported to `refused` and the running topology stays) or its content as an object
 * (validated, never reloaded). Shards are reached with the apiKey cluster.json gives each.
 * A cluster.json that breaks its format is ERR_CLUSTER_CONFIG_INVALID naming the field; no
 * shard is asked until the first call.
 */
export async function connectCluster(
  cluster: string | ClusterConfig,
  options: ClusterClientOptions = {},
): Promise<ClusterClient> {
  for (const name of ['timeoutMs', 'leaderWaitMs', 'checkMs'] as const)
    checkPositive(options, name);
  const lag = options.followerReadMaxLagMs;
  if (lag !== undefined && (!Number.isInteger(lag) || lag < 0)) {
    throw dbError('ERR_BAD_ARGUMENT', 'clientNonNegative', { name: 'followerReadMaxLagMs' });
  }
  const { reloaded, refused, ...rest } = options;
  const routerOptions = { ...rest, name: options.name ?? CLUSTER_CLIENT_NAME_DEFAULT };
  if (typeof cluster === 'string') {
    const config = await readClusterConfig(cluster);
    const events: ReloadEvents = {
      ...(reloaded && { reloaded }),
      ...(refused && { refused }),
    };
    return new ClusterClient(new ReloadingRouter(cluster, config, events, routerOptions), cluster);
  }
  const router = new Router(parseClusterConfig(cluster), routerOptions);
  return new ClusterClient({ current: () => router, close: () => router.close() }, undefined);
}

/**
 * The one way the cluster's code opens a client to a shard of cluster.json: the shard's
 * endpoint with its API key, and the caller's pool and timeout choices.
 */

import { type ClientOptions, connect, type DocdbClient } from '../client/index.js';
import type { ClusterShard } from './config.js';

/** A client to `shard`, carrying its `apiKey` from cluster.json when it has one. */
export function shardClient(shard: ClusterShard, options: ClientOptions = {}): DocdbClient {
  return connect(shard.endpoint, {
    ...options,
    ...(shard.apiKey !== undefined && { apiKey: shard.apiKey }),
  });
}

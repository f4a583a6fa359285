/**
 * The one way the cluster's code opens a client to a node of a shard of cluster.json: the
 * shard's endpoint (or one member of its replica set) with its API key, and the caller's
 * pool and timeout choices.
 */

import { type ClientOptions, connect, type DocdbClient } from '../client/index.js';
import { type ClusterShard, shardMembers } from './config.js';

/**
 * A client to `url` (by default the shard's endpoint, or its first member), carrying the
 * shard's `apiKey` from cluster.json when it has one.
 */
export function shardClient(
  shard: ClusterShard,
  options: ClientOptions = {},
  url = shardMembers(shard)[0] as string,
): DocdbClient {
  return connect(url, {
    ...options,
    ...(shard.apiKey !== undefined && { apiKey: shard.apiKey }),
  });
}

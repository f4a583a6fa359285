/**
 * The pure edits `docdb cluster` makes to a cluster.json: each returns a new config,
 * validated as a whole (config.ts), and refuses an edit that would break it, naming why.
 */

import { dbError, isDbError, relayedError } from '../errors/index.js';
import { normalizeCollectionName } from '../util/index.js';
import {
  type ClusterConfig,
  type ClusterShard,
  type CollectionPlacement,
  checkEndpoint,
  describePlacement,
  describeShard,
  parseClusterConfig,
  placementOf,
  shardMembers,
} from './config.js';

/**
 * The config with one more shard, appended (`docdb cluster add-shard`). A name or endpoint
 * already in the config is refused naming the shard that has it; the new shard is validated
 * as `shards[n]`. `source` names the file in messages.
 */
export function withShard(config: ClusterConfig, shard: ClusterShard, source = ''): ClusterConfig {
  const taken = config.shards.find((s) => s.name.toLowerCase() === shard.name.toLowerCase());
  if (taken !== undefined) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'shardExists',
      { shard: describeShard(taken) },
      { shard: taken.name },
    );
  }
  return parseClusterConfig({ ...config, shards: [...config.shards, shard] }, source);
}

/** The shard of `config` named `name` (letter case aside), or a clear error. */
function shardNamed(config: ClusterConfig, name: string): ClusterShard {
  const shard = config.shards.find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (shard !== undefined) return shard;
  const known = config.shards.map((s) => s.name).join(', ') || 'none yet';
  throw dbError(
    'ERR_CLUSTER_CONFIG_INVALID',
    'noShard',
    { name, known },
    {
      shard: name,
    },
  );
}

/**
 * The config with shard `name`'s nodes as `edit` makes them from its shard and its node
 * `url` (an origin, checked as an endpoint is), validated; the shard is a replica set after.
 */
function withMembersEdited(
  config: ClusterConfig,
  name: string,
  url: string,
  source: string,
  edit: (shard: ClusterShard, url: string) => string[],
): ClusterConfig {
  const shard = shardNamed(config, name);
  const { endpoint: _, ...rest } = shard;
  const changed = { ...rest, members: edit(shard, checkEndpoint(source, 'endpoint', url)) };
  const shards = config.shards.map((s) => (s === shard ? changed : s));
  return parseClusterConfig({ ...config, shards }, source);
}

/**
 * The config with one more member in shard `name`'s replica set (`docdb cluster
 * add-member`); a one-endpoint shard becomes a replica set of its endpoint and the new node.
 */
export function withMember(config: ClusterConfig, name: string, url: string, source = '') {
  return withMembersEdited(config, name, url, source, (shard, member) => {
    const holder = config.shards.find((s) => shardMembers(s).includes(member));
    if (holder !== undefined) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'memberInOtherShard',
        { member, holder: describeShard(holder) },
        { shard: holder.name },
      );
    }
    return [...shardMembers(shard), member];
  });
}

/**
 * The config without `url` in shard `name`'s replica set (`docdb cluster remove-member`): a
 * node gone for good. The last node of a shard stays: its documents live there.
 */
export function withoutMember(config: ClusterConfig, name: string, url: string, source = '') {
  return withMembersEdited(config, name, url, source, (shard, member) => {
    const members = shardMembers(shard);
    if (!members.includes(member)) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'notMember',
        { member, shard: describeShard(shard) },
        { shard: shard.name },
      );
    }
    if (members.length === 1) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'onlyMember',
        { member, name: shard.name },
        { shard: shard.name },
      );
    }
    return members.filter((m) => m !== member);
  });
}

/**
 * The config with one more collection (`docdb cluster add-collection`). A collection already
 * in the config is refused naming it and its placement: changing a placement moves documents,
 * which is rebalance's job, not an edit's. `source` names the file in messages.
 */
export function withCollection(
  config: ClusterConfig,
  name: string,
  placement: CollectionPlacement,
  source = '',
): ClusterConfig {
  let canonical: string;
  try {
    canonical = normalizeCollectionName(name);
  } catch (error) {
    if (isDbError(error)) {
      throw relayedError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'recoded',
        { message: error.message },
        { name },
      );
    }
    throw error;
  }
  const existing = placementOf(config, canonical);
  if (existing !== undefined) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'collectionExists',
      { canonical, existing: describePlacement(existing) },
      { collection: canonical },
    );
  }
  return parseClusterConfig(
    {
      ...config,
      collections: { ...config.collections, [canonical]: placement },
    },
    source,
  );
}

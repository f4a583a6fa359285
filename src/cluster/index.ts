/**
 * The cluster layer (DESIGN §7): cluster.json, the shard hash, health and rebalance so far;
 * the router comes next. It talks to shards only through client/ and never imports storage
 * or the engine.
 */

export * from './config.js';
export * from './hash.js';
export * from './health.js';
export * from './rebalance.js';

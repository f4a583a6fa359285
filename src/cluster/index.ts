/**
 * The cluster layer (DESIGN §7): cluster.json and the shard hash so far; the router, health
 * and rebalance come next. It talks to shards only through client/ and never imports storage
 * or the engine.
 */

export * from './config.js';
export * from './hash.js';

/**
 * The cluster layer (DESIGN §7): cluster.json, the shard hash, health, rebalance and the
 * router. It talks to shards only through client/ and never imports storage
 * or the engine.
 */

export * from './collection-counts.js';
export * from './cluster-client.js';
export * from './config.js';
export * from './config-edits.js';
export * from './config-file.js';
export * from './hash.js';
export * from './health.js';
export * from './merge.js';
export * from './rebalance.js';
export * from './reload.js';
export * from './route-plan.js';
export * from './router.js';
export * from './router-changes.js';

/**
 * Small pure helpers shared by every layer: ids, JSON paths, collection names, the value order,
 * limits, the sample orders of `seed`; and the few file helpers that make a file durable.
 */

export * from './clock-cache.js';
export * from './collection-name.js';
export * from './durable-files.js';
export * from './file-faults.js';
export * from './heartbeat-feed.js';
export * from './json-path.js';
export * from './json-text.js';
export * from './key-text.js';
export * from './limits.js';
export * from './process-alive.js';
export * from './resume-point.js';
export * from './sample-orders.js';
export * from './seed-orders.js';
export * from './seeded-random.js';
export * from './term-tags.js';
export * from './uuid7.js';
export * from './value-order.js';

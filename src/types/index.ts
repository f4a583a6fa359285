/**
 * The shapes docdb's interfaces exchange, as plain types: documents, query and bulk results,
 * stats, change-log entries, the node's state and error bodies. The bottom of the stack: it
 * imports nothing but the error codes, so a client (`src/client/`, the admin UI) can use it
 * without touching storage or the engine.
 */

export type * from './api.js';
export type * from './changes.js';
export type * from './documents.js';
export type * from './errors.js';
export type * from './node.js';
export type * from './query.js';
export type * from './replication.js';
export type * from './snapshot.js';
export type * from './stats.js';
export type * from './verify.js';

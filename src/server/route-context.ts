/** What the route plugins receive from the app factories. */

import type { Database } from '../engine/index.js';
import type { Replication } from '../replication/index.js';
import type { NodeApi } from '../types/index.js';
import type { Metrics } from './metrics.js';
import type { NodeStatus } from './node-status.js';

/**
 * What the route plugins a node and a router share receive (routes/api.ts): the REST surface
 * answering now (a router following its cluster.json swaps it per request) and the app's
 * metrics.
 */
export interface ApiContext {
  api: () => NodeApi;
  metrics: Metrics;
}

/** What a node's own route plugins (replication, backup) receive too. */
export interface RouteContext extends ApiContext {
  db: Database;
  status: NodeStatus;
  replication: Replication;
}

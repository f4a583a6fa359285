/** What every route plugin receives from the app factory. */

import type { Database } from '../engine/index.js';
import type { Replication } from '../replication/index.js';
import type { Metrics } from './metrics.js';
import type { NodeStatus } from './node-status.js';

export interface RouteContext {
  db: Database;
  status: NodeStatus;
  metrics: Metrics;
  replication: Replication;
  version: string;
}

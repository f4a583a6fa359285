/**
 * Wires replication's port (replication/port.ts) from a database: its store is the change
 * log's side, its write gate the gate's. The one place the node hands storage to replication.
 */

import type { Database } from '../engine/index.js';
import type { ReplicationPort } from '../replication/index.js';

/** The port replication of `db`'s node runs over. */
export function replicationPort(db: Database): ReplicationPort {
  return { storage: db.store, gate: db.gate };
}

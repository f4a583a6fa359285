/**
 * What replication reports to: a logger (the node's) and counters (the metrics read them).
 * Replication never imports the server; the server hands these in.
 */

export interface ReplicationLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything (tests, embedded use). */
export const SILENT_LOG: ReplicationLog = { info() {}, warn() {}, error() {} };

/** Totals since the node started, for /metrics. */
export type ReplicationCounters = {
  /** Leader: entries and bytes of entries sent to followers. */
  entriesSent: number;
  bytesSent: number;
  /** Leader: snapshots sent. */
  snapshotsSent: number;
  /** Follower: entries applied and bytes received from the leader. */
  entriesApplied: number;
  bytesReceived: number;
  /** Follower: connections to the leader made again after one ended. */
  reconnects: number;
  /** Gaps seen: a follower got a seq that was not the next one and asked again. */
  gaps: number;
};

export function newCounters(): ReplicationCounters {
  return {
    entriesSent: 0,
    bytesSent: 0,
    snapshotsSent: 0,
    entriesApplied: 0,
    bytesReceived: 0,
    reconnects: 0,
    gaps: 0,
  };
}

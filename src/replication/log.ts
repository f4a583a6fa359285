/**
 * What replication reports to: a logger (the node's) and counters (the metrics read them).
 * Replication never imports the server; the server hands these in.
 */

import type { ReplicationCounters } from '../types/index.js';

export interface ReplicationLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger that drops everything (tests, embedded use). */
export const SILENT_LOG: ReplicationLog = { info() {}, warn() {}, error() {} };

export type { ReplicationCounters };

export function newCounters(): ReplicationCounters {
  return {
    entriesSent: 0,
    bytesSent: 0,
    snapshotsSent: 0,
    entriesApplied: 0,
    bytesReceived: 0,
    reconnects: 0,
    gaps: 0,
    divergences: 0,
  };
}

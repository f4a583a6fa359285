/**
 * The settings of one node, as `docdb serve` resolves them from the config file, flags,
 * environment variables and defaults. Plain data; config.ts builds it from the table in
 * settings.ts, whose rows name the fields here (`config`).
 */

import type { PageCheck } from '../engine/index.js';

/** Where a setting's value came from. */
export type SettingSource = 'default' | 'file' | 'flag' | 'env';

export interface TlsSettings {
  /** A PKCS#12 file (.pfx/.p12) or a PEM file holding the certificate chain and private key. */
  certPath: string;
  /** A PEM private key file, when the PEM certificate file holds only the chain. */
  keyPath?: string;
  /** Unlocks the key; `env:VAR_NAME` in the file is resolved before it lands here. */
  certPassword?: string;
}

export interface ReplicationSettings {
  /** Absent on a coordinated node, whose role comes from the coordinator. */
  role?: 'leader' | 'follower';
  port: number;
  /** Followers that must apply a write before it is acknowledged (default 0). */
  syncFollowers: number;
  /** How long a write waits for them (default 10). */
  syncTimeoutSeconds: number;
  leaderHost?: string;
  leaderPort?: number;
  autoFailover?: { silenceSeconds: number; newLeaderPort?: number };
  /** Where other nodes reach this node's replication listener (`host:port`). */
  advertiseAddress?: string;
  /** A fenced leader follows the leader that fenced it by itself (default false). */
  autoRejoin: boolean;
  /** The etcd to take leadership from (`etcd://host:port`, issue 24): coordinated mode. */
  coordinator?: string;
  /** With a coordinator: the replica set this node is a member of. */
  replicaSet?: string;
  /** With a coordinator: the leader lease's TTL in seconds (default 10). */
  leaseSeconds?: number;
  /** With a coordinator: the write-stop margin in ms (default max(1000, TTL / 4)). */
  writeStopMarginMs?: number;
}

/** Backups: where the node archives its change log for point-in-time recovery. */
export interface BackupSettings {
  logArchiveDir?: string;
}

export interface NodeConfig {
  nodeName: string;
  port: number;
  dataDir: string;
  bindAll: boolean;
  /** MiB of change log the node keeps (default 256). */
  changeLogRetainMiB: number;
  /** Whether the data file's pages are walked before it is served (default 'open'). */
  pageCheck: PageCheck;
  /** MiB the data file may hold before writes are refused; no cap when unset. */
  maxFileMiB?: number;
  /** MiB the write-ahead log may grow by before the next checkpoint (default 64). */
  checkpointMiB: number;
  /** How long a slow or silent client may hold a connection (seconds). */
  idleTimeoutSeconds: number;
  headerTimeoutSeconds: number;
  requestTimeoutSeconds: number;
  /** Seconds a SELECT may run before ERR_QUERY_TIMEOUT; none when unset (a config built by hand). */
  queryTimeoutSeconds?: number;
  /**
   * Processes that accept connections and serve reads (server/readers.ts); 1 when unset, as
   * a config built by hand has it. `docdb serve` defaults it to the cores.
   */
  serveProcesses?: number;
  apiKey?: string;
  /** The one web origin allowed to call the API from a browser (CORS); none when unset. */
  corsOrigin?: string;
  replicationSecret?: string;
  tls?: TlsSettings;
  replication?: ReplicationSettings;
  backup?: BackupSettings;
}

export { NODE_DEFAULTS } from './settings.js';

/** A node's state as its API reports it. */

/** A node's replication role: none for a single node. */
export type Role = 'leader' | 'follower' | 'none';

/** What the write gate holds: the role, read-only mode and the leader's address. */
export interface GateState {
  role: Role;
  readOnly: boolean;
  /** The leader's address (`host:port`), when this node knows it. */
  leader?: string;
}

/** `GET /health`. */
export interface HealthBody {
  /**
   * A node: `ok`. A router: `ok` when every shard answers, `degraded` when some do not,
   * `down` when none does.
   */
  status: 'ok' | 'degraded' | 'down';
  node: string;
  version: string;
  readOnly: boolean;
  /** A node's replication role; `router` when a router answers. */
  role: Role | 'router';
  uptimeSeconds: number;
  /** A router only: how many shards its cluster.json lists now. */
  shards?: number;
  /** A router only: the shards that did not answer, each with why. */
  shardsDown?: Array<{ shard: string; error: string }>;
  /** A router only: the shards that refuse writes (then `readOnly` is true). */
  shardsReadOnly?: string[];
}

/**
 * The node's live status: name, start time, replication role and read-only mode. Routes read
 * it; replication (a later issue) changes it. Writes are refused while it says read-only.
 */

import { DbError } from '../errors/index.js';

export type Role = 'leader' | 'follower' | 'none';

export interface NodeStatus {
  name: string;
  startedAtMs: number;
  role: Role;
  readOnly: boolean;
  /** Address of the leader, when this node knows it (followers). */
  leader?: string;
}

export function newNodeStatus(name: string): NodeStatus {
  return { name, startedAtMs: Date.now(), role: 'none', readOnly: false };
}

/** True when the node takes writes: neither read-only nor a follower. */
export function isWritable(status: NodeStatus): boolean {
  return !status.readOnly && status.role !== 'follower';
}

/** Throws ERR_NODE_READ_ONLY when the node refuses writes, naming why and the leader. */
export function requireWritable(status: NodeStatus): void {
  if (isWritable(status)) return;
  const why =
    status.role === 'follower' ? 'this node is a follower' : 'this node is read-only (handover)';
  const leader = status.leader ? `; send writes to the leader at ${status.leader}` : '';
  throw new DbError('ERR_NODE_READ_ONLY', `${why}${leader}`, {
    role: status.role,
    ...(status.leader && { leader: status.leader }),
  });
}

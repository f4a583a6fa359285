/**
 * A node's replication as `GET /replication/status` (and every transition) reports it. The
 * replication module fills these shapes; a client reads them without importing it.
 */

import type { Role } from './node.js';

/** One connected follower, as its leader's status shows it. */
export interface FollowerLink {
  name: string;
  address: string;
  connectedAt: string;
  /** `handshake`, `snapshot` (sending one), then `streaming`. */
  state: 'handshake' | 'snapshot' | 'streaming';
  /** The last seq sent to it. */
  sentSeq: number;
  /** The last seq it acknowledged as applied. */
  acknowledgedSeq: number;
  /** Gaps it reported (it asked for entries again). */
  gaps: number;
}

/** A follower as the leader's status lists it. */
export interface FollowerStatus extends FollowerLink {
  lagEntries: number;
  lagSeconds: number;
}

/** A rollback file a follower wrote before undoing writes its new leader never had. */
export interface RollbackRecord {
  /** The file written. */
  file: string;
  /** The seqs rolled back: after `after`, up to and including `through`. */
  after: number;
  through: number;
  entries: number;
}

/** What a follower shows in status. */
export interface FollowerView {
  /** The leader's replication address, `host:port`. */
  leader: string;
  leaderName: string | null;
  connected: boolean;
  state: 'connecting' | 'snapshot' | 'streaming' | 'stopped';
  leaderTerm: number | null;
  /** The leader's last seq, from its last heartbeat. */
  leaderSeq: number | null;
  /** The last seq this node applied. */
  appliedSeq: number;
  lagEntries: number | null;
  lastLeaderContactAt: string | null;
  gaps: number;
  reconnects: number;
  lastError: string | null;
  rollbacks: RollbackRecord[];
  /** While a snapshot loads: documents loaded so far, and the seq it brings the node to. */
  snapshot: { seq: number; documents: number } | null;
}

/** Auto-failover as status shows it (DESIGN §6). */
export interface AutoFailoverView {
  enabled: boolean;
  silenceSeconds: number | null;
  newLeaderPort: number | null;
  state: 'off' | 'watching' | 'promoted';
  /**
   * True once this follower has reached its leader since it started following: only then
   * may it promote itself (one that never reached its leader may be the one cut off).
   */
  armed: boolean;
  lastLeaderContactAt: string | null;
}

/** One auto-failover follower whose lease a leader holds. */
export interface LeaseHolderView {
  name: string;
  /** Its silence: it promotes itself after this long without hearing the leader. */
  silenceSeconds: number;
  /** How long before that the leader stops acknowledging writes. */
  marginMs: number;
  /** When it was last heard from; null since this process started leading. */
  lastHeardAt: string | null;
  /** How much longer the lease from it runs (0: lapsed). */
  validForMs: number;
}

/**
 * A leader's lease from its auto-failover followers (replication/lease.ts): while it is
 * required and not valid, the leader refuses writes with ERR_REPLICATION_NO_LEASE.
 */
export interface LeaseView {
  /** True when some follower of this leader promotes itself on silence. */
  required: boolean;
  /** True while this leader may acknowledge writes as far as the lease goes. */
  valid: boolean;
  holders: LeaseHolderView[];
}

/** Where a fenced node learned that another leads: a newer term, and who told it. */
export interface FencedView {
  term: number;
  by: string;
  at: string;
  /** The new leader's replication address, when its notice said. */
  leader?: string;
  /** The new leader's HTTP address, when its notice said. */
  httpUrl?: string;
}

/**
 * A coordinated node's view of its replica set in etcd (issue 24): null in the status of a
 * node without a coordinator.
 */
export interface CoordinatorView {
  /** The coordinator, `etcd://host:port`. */
  url: string;
  replicaSet: string;
  /** Who holds the leader key, as this node's watch saw it last; null when no one does. */
  leader: { name: string; term: number } | null;
  /**
   * This node's own leader lease while it leads: whether it may still acknowledge writes, and
   * until when (wall clock, from its local deadline); null when it does not lead.
   */
  lease: { valid: boolean; validUntil: string } | null;
  /** The members whose records are live, with their last published positions, by name. */
  members: Array<{ name: string; url: string; replication: string; term: number; seq: number }>;
}

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
  /**
   * Histories found parted: on a leader, followers that joined holding entries it never had;
   * on a follower, the times it found itself so (and rolled back, or refused).
   */
  divergences: number;
};

/** `GET /replication/status`, and the answer of every transition. */
export interface ReplicationStatus {
  role: Role;
  readOnly: boolean;
  term: number;
  /** The node's last seq and the highest seq trimmed from its log. */
  lastSeq: number;
  seqFloor: number;
  /** Set when this node, as leader, saw a newer term: it turned read-only. */
  fenced: FencedView | null;
  /** Leader: the replication listener's port. */
  replicationPort: number | null;
  syncFollowers: number;
  followerCount: number;
  followers: FollowerStatus[];
  /** Follower: its link to the leader. */
  leader: FollowerView | null;
  /** Gaps seen since the node started (followers' and this node's). */
  gaps: number;
  /** Histories found parted since the node started (counters.divergences). */
  divergences: number;
  /** A leader's lease from its auto-failover followers; null when not leading. */
  lease: LeaseView | null;
  autoFailover: AutoFailoverView;
  /** Leadership by an etcd lease: the coordinator, as this node sees it; null without one. */
  coordinator: CoordinatorView | null;
  counters: ReplicationCounters;
}

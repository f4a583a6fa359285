/**
 * A won election: the leader key held on an etcd lease, the term it gives, and the write-stop
 * (`canAcknowledge`). It owns resigning (with an optional handover) and reporting the loss of
 * the lease; what the node does on either (turn read-only, follow) is its caller's.
 *
 * The clock argument. etcd expires a lease TTL seconds after the last grant or keepalive that
 * reached it, timed by the etcd leader's clock; a request reaches etcd after it was sent. So
 * the lease cannot end before (local time when the last answered grant or keepalive was SENT)
 * + TTL, as long as the two clocks run at the same rate — they measure durations only, never
 * compare wall-clock readings, and a monotonic clock's rate is off by parts per million. The
 * holder stops a margin earlier: validUntil = sent + TTL − margin (default max(1 s, TTL/4)).
 * The margin covers what happens between checking `canAcknowledge()` and the answer leaving
 * the process (a stalled event loop, a slow fsync), and clock rate drift. No other member can
 * lead before the lease ended on etcd: its campaign is a transaction that puts the leader key
 * only if absent, and the key lives on this lease (or is deleted by resign, after this side
 * stopped). Hence one acknowledging leader at a time. etcd itself only ever lengthens a lease
 * (a new etcd leader restarts every lease's TTL), never shortens it; a lease revoked by hand
 * (etcdctl lease revoke) is the one case the argument does not cover, and is learnt at the
 * next renewal.
 */

import { performance } from 'node:perf_hooks';
import type { EtcdClient, TxnWrite } from './etcd-client.js';
import type { KeptLease, LeaseEnd } from './kept-lease.js';
import type { LeaseTiming } from './lease-timing.js';
import type { HandoverRecord, MemberIdentity, SetKeys } from './set-keys.js';

/** Why a leader's lease was lost (not resigned): its deadline passed, or etcd dropped it. */
export interface LeadershipLost {
  set: string;
  term: number;
  reason: string;
}

/** A member's leadership of its replica set, from the won election to its end. */
export class Leadership {
  private resigning = false;
  private readonly lostListeners: Array<(lost: LeadershipLost) => void> = [];

  constructor(
    private readonly client: EtcdClient,
    private readonly keys: SetKeys,
    private readonly timing: LeaseTiming,
    private readonly lease: KeptLease,
    /** The replica set led. */
    readonly set: string,
    readonly identity: MemberIdentity,
    /** The etcd revision of the put that won: the term's round. */
    readonly revision: number,
    /** The term to lead in (set-keys.ts termOfRevision). */
    readonly term: number,
  ) {
    lease.onEnd((end) => this.leaseEnded(end));
  }

  /**
   * True while the leader may acknowledge a write: it has not resigned and its lease's local
   * deadline has not passed. Checked at the moment of acknowledging; false for good once false.
   */
  canAcknowledge(): boolean {
    return !this.resigning && this.lease.isValid();
  }

  /** The local deadline (performance.now milliseconds) until which it may acknowledge. */
  get validUntil(): number {
    return this.lease.validUntil;
  }

  /** Milliseconds it may still acknowledge for (0 once it may not). */
  msLeft(): number {
    return this.canAcknowledge() ? Math.max(0, this.lease.validUntil - performance.now()) : 0;
  }

  /** True once the lease was lost or resigned. */
  get ended(): boolean {
    return this.resigning || this.lease.end !== undefined;
  }

  /**
   * Calls `listener` once if the lease is lost without resigning: the deadline passed with
   * no renewal, or etcd answered that the lease is gone. `canAcknowledge()` is false already
   * when it is called. Not called after `resign()`.
   */
  onLost(listener: (lost: LeadershipLost) => void): void {
    const end = this.lease.end;
    if (end !== undefined && end.kind !== 'released') {
      listener(this.lostOf(end));
      return;
    }
    this.lostListeners.push(listener);
  }

  /**
   * Stops acknowledging at once, then gives up the leader key: deletes it only if it is still
   * the key this election put (a transaction on its mod revision), naming `toMember` in the
   * handover key when given (on a short lease of its own, so a handover to a member that never
   * campaigns lapses after one TTL), and revokes the lease. Resolves with whether the key was
   * still this leader's. Call it once the named member is caught up: the election rule lets it
   * campaign whatever its position. A failed call leaves the lease to expire.
   */
  async resign(toMember?: string): Promise<boolean> {
    this.resigning = true;
    try {
      const writes: TxnWrite[] = [{ kind: 'delete', key: this.keys.leader }];
      if (toMember !== undefined) {
        const short = await this.client.grantLease(this.timing.ttlSeconds);
        const record: HandoverRecord = { to: toMember, from: this.identity.name };
        writes.push({
          kind: 'put',
          key: this.keys.handover,
          value: JSON.stringify(record),
          lease: short.id,
        });
      }
      const done = await this.client.transaction(
        `the resignation of ${this.identity.name} from ${this.set}`,
        [{ key: this.keys.leader, target: 'Mod', revision: this.revision }],
        writes,
      );
      return done !== undefined;
    } finally {
      await this.lease.revoke();
    }
  }

  private leaseEnded(end: LeaseEnd): void {
    if (end.kind === 'released' || this.resigning) return;
    const lost = this.lostOf(end);
    for (const listener of this.lostListeners.splice(0)) listener(lost);
  }

  private lostOf(end: LeaseEnd): LeadershipLost {
    return { set: this.set, term: this.term, reason: end.detail };
  }
}

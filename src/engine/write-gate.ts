/**
 * The write gate: the node's replication role and read-only mode, and the one rule that
 * follows from them: a follower or a read-only node (a planned handover, a fenced leader)
 * refuses every client write, and a leader refuses them while replication's lease check
 * says so; and the commit barrier a leader's client writes wait for once committed
 * (replication's `syncFollowers`). Every writer the engine offers writes through one
 * GatedWriter, so the REST API, SQL, the embedded API and the CLI are all refused alike; the
 * store itself knows no gate, and replication's apply and snapshot load, which go to the store
 * directly, are the ways past it. The server shows the state; replication changes it.
 */

import { dbError } from '../errors/index.js';
import type { Store, StoreWriter, WriteTxn } from '../storage/index.js';
import type { GateState, Role } from '../types/index.js';

export type { GateState, Role };

const ROLES: readonly Role[] = ['leader', 'follower', 'none'];

export class WriteGate {
  private current: GateState = { role: 'none', readOnly: false };
  private starting = false;
  private leaseCheck: (() => void) | undefined;
  private barrier: ((seq: number) => Promise<void>) | undefined;

  /** The role, read-only flag and leader, as a copy. */
  get state(): GateState {
    return { ...this.current };
  }

  get role(): Role {
    return this.current.role;
  }

  get readOnly(): boolean {
    return this.current.readOnly;
  }

  get leader(): string | undefined {
    return this.current.leader;
  }

  /** True when the node takes client writes: neither starting, read-only nor a follower. */
  get writable(): boolean {
    return !this.starting && !this.current.readOnly && this.current.role !== 'follower';
  }

  /**
   * Holds (true) or lets go (false) every client write while a node starts its replication:
   * it listens before it knows whether it leads, and a node that took writes in its own name
   * then (role `none`) would part its history from its leader's. Kept apart from read-only
   * mode, which the node's role and handovers own.
   */
  setStarting(starting: boolean): void {
    this.starting = starting;
  }

  /** Sets the role; a follower may name its leader (`host:port`). */
  setRole(role: Role, leader?: string): void {
    if (!ROLES.includes(role)) {
      throw dbError('ERR_BAD_ARGUMENT', 'role', { role });
    }
    this.current = { ...this.current, role };
    if (leader !== undefined) this.setLeader(leader);
  }

  /** Enters (true) or leaves (false) read-only mode. */
  setReadOnly(readOnly: boolean): void {
    if (typeof readOnly !== 'boolean') {
      throw dbError('ERR_BAD_ARGUMENT', 'readOnlyFlag', { readOnly: String(readOnly) });
    }
    this.current = { ...this.current, readOnly };
  }

  /** Names the leader writes should go to (undefined: unknown). */
  setLeader(leader: string | undefined): void {
    const { leader: _, ...rest } = this.current;
    this.current = leader === undefined ? rest : { ...rest, leader };
  }

  /**
   * Sets the check a leader's writes pass besides the role and read-only mode: replication's
   * lease, which throws while the leader must not acknowledge (undefined: none).
   */
  setLeaseCheck(check: (() => void) | undefined): void {
    this.leaseCheck = check;
  }

  /**
   * Makes every client write that changed something wait, once committed, for `barrier` with
   * the log's last seq before it resolves: replication's `syncFollowers`. A barrier that
   * rejects fails the write's promise although the write is committed (its error says so).
   * Undefined removes it.
   */
  setCommitBarrier(barrier: ((seq: number) => Promise<void>) | undefined): void {
    this.barrier = barrier;
  }

  /** The commit barrier now (see setCommitBarrier). */
  get commitBarrier(): ((seq: number) => Promise<void>) | undefined {
    return this.barrier;
  }

  /**
   * Throws ERR_NODE_READ_ONLY when the node refuses writes, naming why and the leader; on a
   * leader, whatever its lease check throws.
   */
  check(): void {
    if (this.writable) {
      if (this.current.role === 'leader') this.leaseCheck?.();
      return;
    }
    const { role, leader } = this.current;
    const hint = leader ? `; send writes to the leader at ${leader}` : '';
    const why = role === 'follower' ? 'follower' : this.starting ? 'starting' : 'readOnly';
    throw dbError(
      'ERR_NODE_READ_ONLY',
      why,
      { hint },
      {
        role,
        ...(leader && { leader }),
      },
    );
  }
}

/**
 * The engine's writes: each passes the gate when it is queued and again when its job runs (a
 * write queued before the node turned read-only fails), and one whose job logged a change
 * waits, once committed, for the commit barrier that was set when it was queued. Collections,
 * SQL, seeding and compaction all write through the one of their Database.
 */
export class GatedWriter implements StoreWriter {
  constructor(
    private readonly store: Store,
    private readonly gate: WriteGate,
  ) {}

  async write<T>(job: (txn: WriteTxn) => T): Promise<T> {
    const { gate } = this;
    gate.check();
    const barrier = gate.commitBarrier;
    let changed = false;
    const value = await this.store.write((txn) => {
      gate.check();
      const result = job(txn);
      changed = txn.logsChanges;
      return result;
    });
    // The log's last seq once the commit resolved: this write's entries and any committed
    // with or after them, which followers must hold before the write is acknowledged.
    if (barrier && changed) await barrier(this.store.nodeState().lastSeq);
    return value;
  }
}

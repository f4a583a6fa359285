/**
 * One node's membership of a replica set in etcd: its record (identity and replication
 * position) on a lease of its own, published at a bounded rate, and its elections — one
 * campaign on request, or a loop that campaigns by the election rule whenever the set has no
 * leader. It hands a won Leadership to its caller and never touches the node itself.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { type ElectionChoice, electionChoice, type MemberPosition } from './election-rule.js';
import type { EtcdClient } from './etcd-client.js';
import { KeptLease } from './kept-lease.js';
import { Leadership } from './leadership.js';
import type { LeaseTiming } from './lease-timing.js';
import {
  checkIdentity,
  leaderValue,
  type MemberIdentity,
  type MemberRecord,
  readHandover,
  readMember,
  type SetKeys,
  setKeys,
  termOfRevision,
} from './set-keys.js';
import { type Observation, watchLeader } from './watch-leader.js';

/** How soon a member whose lease was lost tries to publish its record again. */
const REPUBLISH_RETRY_MS = 250;

/** A member's replication position: the term and seq of its last entry. */
export interface Position {
  term: number;
  seq: number;
}

/** What the election loop tells its caller. */
export interface ElectionHandlers {
  /** This member won: lead in `leadership.term` until it resigns or `onLost` fires. */
  onElected(leadership: Leadership): void;
  /** Each decision the rule made while the set had no leader (for logs and status). */
  onChoice?(choice: ElectionChoice): void;
  /** A step failed (etcd unreachable…); the loop carries on. */
  onError?(error: Error): void;
}

/** A member of a replica set, from `join` to `leave`. */
export class Member {
  private readonly keys: SetKeys;
  private lease: KeptLease | undefined;
  private position: Position;
  private publishedAt = Number.NEGATIVE_INFINITY;
  private published: string | undefined;
  private publishTimer: NodeJS.Timeout | undefined;
  private publishing: Promise<void> = Promise.resolve();
  private leadership: Leadership | undefined;
  private elections: { observation?: Observation; wake: () => void } | undefined;
  private left = false;

  private constructor(
    private readonly client: EtcdClient,
    private readonly timing: LeaseTiming,
    readonly set: string,
    readonly identity: MemberIdentity,
    position: Position,
  ) {
    this.keys = setKeys(set);
    checkIdentity(identity);
    this.position = { ...position };
  }

  /** Joins `set`: grants the member lease and publishes the record. */
  static async join(
    client: EtcdClient,
    timing: LeaseTiming,
    set: string,
    identity: MemberIdentity,
    position: Position,
  ): Promise<Member> {
    const member = new Member(client, timing, set, identity, position);
    try {
      await member.publishNow();
    } catch (error) {
      // A lease granted before the write failed would be renewed for nobody.
      await member.leave();
      throw error;
    }
    return member;
  }

  /** The leadership this member holds, if it won and has not lost or resigned it. */
  get leading(): Leadership | undefined {
    return this.leadership?.ended === false ? this.leadership : undefined;
  }

  /**
   * Records the member's position; it reaches etcd at most once per publish interval (each
   * write is one etcd revision, and revisions are the terms' rounds), the latest one winning.
   */
  report(position: Position): void {
    this.position = { ...position };
    if (this.left || this.publishTimer) return;
    const waitMs = this.publishedAt + this.timing.publishIntervalMs - performance.now();
    this.publishTimer = setTimeout(
      () => {
        this.publishTimer = undefined;
        this.publishNow().catch(() => {});
      },
      Math.max(0, waitMs),
    );
  }

  /** Writes the record now, unless etcd has this very record already; one write at a time. */
  publishNow(): Promise<void> {
    const next = this.publishing.then(() => this.publishOnce());
    this.publishing = next.catch(() => {});
    return next;
  }

  /**
   * One campaign, with no election rule: puts the leader key on a fresh lease if the key is
   * absent, and clears a handover in the same transaction. Resolves with the Leadership when
   * it won, undefined when another member leads.
   */
  async campaign(): Promise<Leadership | undefined> {
    const lease = await KeptLease.grant(this.client, this.timing);
    let revision: number | undefined;
    try {
      revision = await this.client.transaction(
        `the campaign of ${this.identity.name} in ${this.set}`,
        [{ key: this.keys.leader, target: 'Create', revision: 0 }],
        [
          {
            kind: 'put',
            key: this.keys.leader,
            value: leaderValue(this.identity),
            lease: lease.id,
          },
          { kind: 'delete', key: this.keys.handover },
        ],
      );
    } catch (error) {
      await lease.revoke();
      throw error;
    }
    if (revision === undefined) {
      await lease.revoke();
      return undefined;
    }
    const term = termOfRevision(revision, this.identity.tag);
    this.leadership = new Leadership(
      this.client,
      this.keys,
      this.timing,
      lease,
      this.set,
      this.identity,
      revision,
      term,
    );
    return this.leadership;
  }

  /**
   * Starts the election loop: whenever the set has no leader (and this member does not lead),
   * it publishes its position, waits the settle time for the others' last positions, and
   * campaigns if the election rule says so. Watches the leader key to act at once, and looks
   * again every settle time in case a watch event was missed.
   */
  async startElections(handlers: ElectionHandlers): Promise<void> {
    if (this.elections) return;
    let wake = () => {};
    this.elections = { wake: () => wake() };
    this.elections.observation = await watchLeader(this.client, this.set, (leader) => {
      if (leader === undefined) wake();
    });
    void (async () => {
      while (!this.left) {
        try {
          await this.electionStep(handlers);
        } catch (error) {
          handlers.onError?.(error as Error);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(this.timing.settleMs, 100));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
  }

  /** Stops the election loop, resigns a leadership held, and removes the member record. */
  async leave(): Promise<void> {
    this.left = true;
    clearTimeout(this.publishTimer);
    this.elections?.wake();
    await this.elections?.observation?.close();
    if (this.leading) await this.leading.resign().catch(() => false);
    await this.publishing;
    await this.lease?.revoke();
  }

  private async electionStep(handlers: ElectionHandlers): Promise<void> {
    if (this.leading || this.left) return;
    if ((await this.client.get(this.keys.leader)).stored) return;
    await this.publishNow();
    await sleep(this.timing.settleMs);
    const [leader, members, handover] = await Promise.all([
      this.client.get(this.keys.leader),
      this.client.getPrefix(this.keys.members),
      this.client.get(this.keys.handover),
    ]);
    if (leader.stored || this.left) return;
    const live = members.keys.map(readMember).filter((m): m is MemberRecord => m !== undefined);
    const self: MemberPosition = { name: this.identity.name, ...this.position };
    const choice = electionChoice(self, live, readHandover(handover.stored)?.to);
    handlers.onChoice?.(choice);
    if (!choice.campaign) return;
    const won = await this.campaign();
    if (won) handlers.onElected(won);
  }

  /**
   * The member lease was lost (etcd unreachable for a TTL, or it dropped the lease): the
   * record went with it, so publish again on a new lease until etcd takes it.
   */
  private republishAfterLoss(): void {
    if (this.left) return;
    setTimeout(() => {
      this.publishNow().then(
        () => {
          if (this.published === undefined) this.republishAfterLoss();
        },
        () => this.republishAfterLoss(),
      );
    }, REPUBLISH_RETRY_MS);
  }

  private async publishOnce(): Promise<void> {
    if (this.left) return;
    if (this.lease?.isValid() !== true) {
      // A lost member lease took the record with it: a new lease, and the record again.
      void this.lease?.revoke();
      const lease = await KeptLease.grant(this.client, this.timing);
      this.lease = lease;
      this.published = undefined;
      lease.onEnd((end) => {
        if (end.kind !== 'released') this.republishAfterLoss();
      });
    }
    const record: MemberRecord = { ...this.identity, ...this.position };
    const value = JSON.stringify(record);
    if (value === this.published) return;
    this.publishedAt = performance.now();
    await this.client.put(this.keys.member(this.identity.name), value, this.lease.id);
    this.published = value;
  }
}

/**
 * Coordinated mode (issue 24): a node's membership of its replica set in etcd, wired to its
 * replication. It joins the set, reports the node's position as entries commit, runs the
 * election loop, watches who leads, and tells the node what to do: lead in a won term, stop
 * at once when the lease is lost, follow whoever leads otherwise; and which follower a
 * handover goes to, and when it is caught up. It changes nothing of the node's data or role
 * itself; replication.ts carries the steps out, one at a time.
 */

import type {
  Coordinator,
  LeaderInfo,
  Leadership,
  LeadershipLost,
  Member,
  MemberIdentity,
  MemberRecord,
  Observation,
  Position,
} from '../coordinator/index.js';
import { dbError } from '../errors/index.js';
import type { CoordinatorView, FollowerLink } from '../types/index.js';
import type { ReplicationLog } from './log.js';

/** How often the members list shown in the status is read again from etcd. */
const MEMBERS_REFRESH_MS = 1000;
/** How often the position is reported besides on every commit (a snapshot load, a rollback). */
const POSITION_REFRESH_MS = 1000;
/** How often a handover looks whether its target applied the leader's last seq. */
const HANDOVER_POLL_MS = 20;

/** What the coordination asks of the node's replication. */
export interface CoordinatedReplica {
  /** The node's replication position: the term of its last entry, and its last seq. */
  position(): Position;
  /** Resolves once the log moves past `seq` (storage's whenCommittedAfter). */
  whenCommittedAfter(seq: number, signal: AbortSignal): Promise<number>;
  /** This member won: lead in `leadership.term`, or refuse and resign. */
  lead(leadership: Leadership): void;
  /** The lease of a leadership was lost: stop acknowledging at once. */
  lost(lost: LeadershipLost): void;
  /** Another member leads: follow it (at its replication address), from whatever this node does. */
  follow(leader: LeaderInfo): void;
  log: ReplicationLog;
}

/** A node's part in its replica set, from joining to leaving. */
export class Coordination {
  private leader: LeaderInfo | undefined;
  private members: MemberRecord[] = [];
  private leadership: Leadership | undefined;
  private readonly stopper = new AbortController();
  private timers: NodeJS.Timeout[] = [];
  /** The etcd failures logged since etcd last answered, so an outage logs each once. */
  private readonly logged = new Set<string>();
  private observation: Observation | undefined;

  private constructor(
    private readonly coordinator: Coordinator,
    readonly set: string,
    private readonly member: Member,
    private readonly replica: CoordinatedReplica,
  ) {}

  /**
   * Joins `set` as `identity`, then watches the leader key and runs the election loop. Rejects
   * with ERR_COORDINATOR_UNREACHABLE when etcd does not take the join or the watch.
   */
  static async start(
    coordinator: Coordinator,
    set: string,
    identity: MemberIdentity,
    replica: CoordinatedReplica,
  ): Promise<Coordination> {
    const member = await coordinator.join(set, identity, replica.position());
    const coordination = new Coordination(coordinator, set, member, replica);
    try {
      await coordination.run();
    } catch (error) {
      await coordination.stop();
      await member.leave().catch(() => {});
      throw error;
    }
    return coordination;
  }

  private async run(): Promise<void> {
    const { log } = this.replica;
    this.observation = await this.coordinator.observeLeader(this.set, (leader) =>
      this.observed(leader),
    );
    await this.member.startElections({
      onElected: (leadership) => this.elected(leadership),
      onChoice: (choice) => {
        if (!choice.campaign)
          log.info(`replication: not campaigning in ${this.set}: ${choice.reason}`);
      },
      onError: (error) => this.failed(error),
    });
    void this.reportCommits();
    this.timers.push(
      setInterval(() => this.member.report(this.replica.position()), POSITION_REFRESH_MS),
      setInterval(() => this.refreshMembers(), MEMBERS_REFRESH_MS),
    );
    this.refreshMembers();
  }

  /** What the status shows of the coordinator, as this node sees it now. */
  view(): CoordinatorView {
    const leading = this.leadership?.ended === false ? this.leadership : undefined;
    const msLeft = leading?.msLeft() ?? 0;
    return {
      url: this.coordinator.url,
      replicaSet: this.set,
      leader: this.leader ? { name: this.leader.name, term: this.leader.term } : null,
      lease: leading
        ? {
            valid: leading.canAcknowledge(),
            validUntil: new Date(Date.now() + msLeft).toISOString(),
          }
        : null,
      members: this.members.map(({ name, url, replication, term, seq }) => ({
        name,
        url,
        replication,
        term,
        seq,
      })),
    };
  }

  /**
   * Leaves the set (stops watching and campaigning, resigns a leadership held) and closes the
   * coordinator's connection.
   */
  async close(): Promise<void> {
    await this.stop();
    await this.coordinator.close();
  }

  private async stop(): Promise<void> {
    this.stopper.abort();
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.observation?.close().catch(() => {});
  }

  private elected(leadership: Leadership): void {
    if (this.stopper.signal.aborted) {
      void leadership.resign().catch(() => false);
      return;
    }
    this.leadership = leadership;
    leadership.onLost((lost) => this.replica.lost(lost));
    this.replica.lead(leadership);
  }

  private observed(leader: LeaderInfo | undefined): void {
    this.leader = leader;
    if (leader === undefined || this.stopper.signal.aborted) return;
    // This member's own key: led by this process, or left by its previous run (killed while
    // leading), which lapses within a TTL; either way there is no one else to follow.
    if (leader.name === this.member.identity.name) return;
    this.replica.follow(leader);
  }

  /** Reports the position after every commit, so an election reads it exact. */
  private async reportCommits(): Promise<void> {
    let seq = this.replica.position().seq;
    while (!this.stopper.signal.aborted) {
      try {
        seq = await this.replica.whenCommittedAfter(seq, this.stopper.signal);
      } catch {
        return;
      }
      if (this.stopper.signal.aborted) return;
      // The next wait starts from the seq the log answered (always past the last one), so a
      // position read a moment behind it cannot make the loop spin.
      this.member.report(this.replica.position());
    }
  }

  private refreshMembers(): void {
    this.coordinator.members(this.set).then(
      (members) => {
        this.members = members;
        this.logged.clear();
      },
      (error: Error) => this.failed(error),
    );
  }

  /** An etcd step failed: each message logged once until etcd answers again; the loops go on. */
  private failed(error: Error): void {
    if (this.logged.has(error.message)) return;
    this.logged.add(error.message);
    this.replica.log.warn(`replication: coordinator: ${error.message}`);
  }
}

/**
 * The member a coordinated leader named `self` hands over to, among its `followers`: `to`
 * when it streams from this leader, else the one that acknowledged most (ties by name).
 * Throws ERR_REPLICATION_STATE naming the followers when there is none to hand over to.
 */
export function handoverTarget(
  followers: readonly FollowerLink[],
  self: string,
  to: string | undefined,
): string {
  const streaming = followers.filter((follower) => follower.state === 'streaming');
  if (to === self) throw dbError('ERR_REPLICATION_STATE', 'handoverToSelf', { to });
  if (to !== undefined) {
    if (streaming.some((follower) => follower.name === to)) return to;
    const names = streaming.map((follower) => follower.name);
    throw names.length === 0
      ? dbError('ERR_REPLICATION_STATE', 'handoverNoFollower', { to })
      : dbError('ERR_REPLICATION_STATE', 'handoverNotFollower', { to, names: names.join(', ') });
  }
  const best = [...streaming].sort(
    (a, b) => b.acknowledgedSeq - a.acknowledgedSeq || (a.name < b.name ? -1 : 1),
  )[0];
  if (best === undefined) throw dbError('ERR_REPLICATION_STATE', 'handoverNoneConnected');
  return best.name;
}

/** Resolves true once follower `name` acknowledged `seq`, false after `timeoutMs`. */
export async function followerApplied(
  followers: () => readonly FollowerLink[],
  name: string,
  seq: number,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const link = followers().find((follower) => follower.name === name);
    if (link !== undefined && link.acknowledgedSeq >= seq) return true;
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, HANDOVER_POLL_MS));
  }
}

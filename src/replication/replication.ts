/**
 * A node's replication: its role and the transitions of the spec's state table (start
 * leading, start following, read-only and back, promote, auto-failover on and off), the
 * term fencing of a stale leader (and the notice a promoted node sends the node it replaced,
 * notice.ts), the lease a leader holds from its auto-failover followers (lease.ts), durable
 * writes (`syncFollowers`), and the status body. The role itself lives in the engine's write
 * gate, which refuses client writes; this module moves it. With a coordinator (issue 24,
 * coordinated.ts) the role comes from an etcd lease instead, and the transitions by request
 * are refused. The server's routes and `docdb serve` call it; it never imports the server.
 */

import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as tls from 'node:tls';
import type { Coordinator, LeaderInfo, Leadership, LeadershipLost } from '../coordinator/index.js';
import { type DbError, dbError } from '../errors/index.js';
import type { AutoFailoverView, FencedView, ReplicationStatus } from '../types/index.js';
import { isPort, PORT_RANGE_TEXT } from '../util/index.js';
import { ReplicationFollower } from './follower.js';
import type { Introduction } from './handshake.js';
import { type NoticeFrom, ReplicationLeader } from './leader.js';
import { Lease } from './lease.js';
import { Coordination, followerApplied, handoverTarget } from './coordinated.js';
import { newCounters, type ReplicationLog, SILENT_LOG } from './log.js';
import { Notifier } from './notice.js';
import type { ReplicationGate, ReplicationPort, ReplicationStorage } from './port.js';
import { describeTerm, drawTag, nextTerm } from './terms.js';
import { SilenceWatch } from './watch.js';

/** What a node tells its replication when it starts. */
export interface ReplicationOptions {
  /** The node's change log and write gate (port.ts). */
  port: ReplicationPort;
  nodeName: string;
  /** The HTTP port: the replication port must differ from it. */
  httpPort?: number | undefined;
  /** The node's HTTP address, told to followers (they name it in their 503s). */
  httpUrl?: string | undefined;
  /** Bind the replication listener to all interfaces (--bind-all). */
  bindAll?: boolean;
  /** The configured shared secret (a start request may give another). */
  secret?: string | undefined;
  /** The node's TLS options: replication speaks TLS too when set. */
  tls?: tls.SecureContextOptions | undefined;
  /** A write is acknowledged once this many followers applied it (default 0). */
  syncFollowers?: number;
  /** How long a write waits for them before it answers 503 (default 10 s). */
  syncTimeoutMs?: number;
  /**
   * Where other nodes reach this node's replication listener (`host:port`), told in the
   * notice it sends the node it replaced; by default that node uses the address the notice
   * came from and this node's replication port.
   */
  advertiseAddress?: string | undefined;
  /** A leader fenced by a newer leader's notice starts following it by itself. */
  autoRejoin?: boolean;
  log?: ReplicationLog;
}

const SYNC_TIMEOUT_MS_DEFAULT = 10_000;

/** What `docdb serve` hands a coordinated node's replication (issue 24). */
export interface CoordinatedSettings {
  /** An open coordinator; replication closes it with the node. */
  coordinator: Coordinator;
  replicaSet: string;
  /** The replication port this node leads on when elected. */
  port: number;
}

export class Replication {
  private leader: ReplicationLeader | undefined;
  private follower: ReplicationFollower | undefined;
  private watch: SilenceWatch | undefined;
  private failoverState: AutoFailoverView['state'] = 'off';
  private fenced: FencedView | null = null;
  private notifier: Notifier | undefined;
  /** The silence this node watched its leader with before it was promoted (0: none). */
  private watchedSilenceMs = 0;
  private readonly lease: Lease;
  private readonly counters = newCounters();
  private readonly log: ReplicationLog;
  /** One transition at a time: each awaits the one before. */
  private transition: Promise<unknown> = Promise.resolve();
  /** Coordinated mode: the set membership, and the leadership won through it. */
  private coordination: Coordination | undefined;
  private coordinatedPort: number | undefined;
  private leadership: Leadership | undefined;
  private closing = false;

  constructor(private readonly options: ReplicationOptions) {
    this.log = options.log ?? SILENT_LOG;
    this.lease = new Lease(path.dirname(options.port.storage.file));
    options.port.gate.setLeaseCheck(() => this.requireLease());
  }

  private get storage(): ReplicationStorage {
    return this.options.port.storage;
  }

  private get gate(): ReplicationGate {
    return this.options.port.gate;
  }

  private get syncFollowers(): number {
    return this.options.syncFollowers ?? 0;
  }

  /** Runs one transition after any already running. */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.transition.then(step, step);
    this.transition = next.catch(() => {});
    return next;
  }

  // ---- transitions -------------------------------------------------------------------------

  /** single node → leader: opens the replication listener on `port`. */
  startLeader(request: { port: number; sharedSecret?: string }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.refuseCoordinated('started as a leader');
      const role = this.gate.role;
      if (role !== 'none') {
        throw role === 'leader'
          ? dbError('ERR_REPLICATION_STATE', 'alreadyLeads', { port: this.leader?.port })
          : dbError('ERR_REPLICATION_STATE', 'followerCannotLead');
      }
      await this.ensureTermTag();
      this.lease.load();
      await this.lead(request.port, request.sharedSecret);
      this.log.info(
        `replication: leading on port ${request.port} (${describeTerm(this.storage.nodeState().term)})`,
      );
      return this.status();
    });
  }

  /**
   * single node → follower: follows the leader at `host:port`. A read-only leader (the old
   * leader of a planned handover, or one a newer leader fenced) may follow the new one too:
   * its listener closes.
   */
  startFollower(request: {
    host: string;
    port: number;
    sharedSecret?: string;
  }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.refuseCoordinated('told whom to follow');
      await this.followNow(request.host, request.port, request.sharedSecret);
      return this.status();
    });
  }

  private async followNow(host: string, port: number, secret: string | undefined): Promise<void> {
    const { role, readOnly } = this.gate;
    const current = this.follower;
    if (
      role === 'follower' &&
      current !== undefined &&
      secret !== undefined &&
      current.follows(host, port, secret) === 'otherSecret'
    ) {
      // Its leader refused the secret it had (or its lack, which the refusal says to set):
      // told another, it reconnects with it rather than wait for a restart.
      await current.stop();
      this.follow(host, port, secret);
      return;
    }
    if (role === 'follower') {
      throw dbError('ERR_REPLICATION_STATE', 'alreadyFollows', {
        leader: this.follower?.status().leader,
      });
    }
    if (role === 'leader' && !readOnly) {
      throw dbError('ERR_REPLICATION_STATE', 'leaderTakesWrites');
    }
    await this.stopLeading();
    // A fenced leader that follows the new one has done what the fence asked; its own
    // followers follow another node now, so the lease they gave it is over.
    this.fenced = null;
    this.lease.clear();
    // A follower from here on: no client write may slip in while its tag is made durable
    // (a node started as a follower would otherwise take writes until then).
    const before = { role, leader: this.gate.leader };
    this.gate.setRole('follower', `${host}:${port}`);
    try {
      await this.ensureTermTag();
    } catch (error) {
      this.gate.setRole(before.role, before.leader);
      throw error;
    }
    this.follow(host, port, secret);
  }

  /** read-write → read-only: the first step of a planned handover. */
  readOnly(): Promise<ReplicationStatus> {
    return this.serial(async () => {
      // Coordinated, read-write comes from the lease alone: a read-only step by request could
      // not be undone; a handover makes its own.
      this.refuseCoordinated('made read-only by request');
      this.gate.setReadOnly(true);
      // Every write queued before this point has committed (or failed) when it answers.
      await this.storage.flush();
      this.log.info('replication: read-only (handover); writes are refused');
      return this.status();
    });
  }

  /** read-only → read-write: recovers or aborts a handover. A follower takes no writes. */
  readWrite(): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.refuseCoordinated('made read-write by request');
      if (this.gate.role === 'follower') {
        throw dbError('ERR_REPLICATION_STATE', 'followerTakesNoWrites');
      }
      if (this.fenced) {
        throw dbError('ERR_REPLICATION_STATE', 'newerTermSeen', {
          term: describeTerm(this.fenced.term),
          by: this.fenced.by,
        });
      }
      this.gate.setReadOnly(false);
      this.log.info('replication: read-write');
      return this.status();
    });
  }

  /**
   * follower → leader: takes over in a new term and listens on `port`. The role is checked
   * before the port, so a node that cannot be promoted hears why (409) rather than that a
   * port is missing.
   */
  promote(request: { port?: number | undefined }): Promise<ReplicationStatus> {
    return this.serial(() => {
      this.refuseCoordinated('promoted');
      this.checkPromotable();
      if (request.port === undefined) {
        throw dbError('ERR_BAD_ARGUMENT', 'promotePort');
      }
      return this.promoteNow(request.port, 'promoted by request', this.watchSilenceMs());
    });
  }

  /** Throws ERR_REPLICATION_STATE unless this node follows a leader. */
  private checkPromotable(): ReplicationFollower {
    const follower = this.follower;
    if (this.gate.role !== 'follower' || !follower) {
      throw this.gate.role === 'leader'
        ? dbError('ERR_REPLICATION_STATE', 'promoteLeader')
        : dbError('ERR_REPLICATION_STATE', 'promoteSingle');
    }
    return follower;
  }

  /** The silence of the running watch in ms; 0 when none runs. */
  private watchSilenceMs(): number {
    return this.watch?.silenceMs ?? 0;
  }

  /**
   * Promotes this follower. `watchedMs` is the silence it watched its leader with (0: none):
   * its notice tells it to the old leader, which watches it the same way if it rejoins.
   */
  private async promoteNow(
    port: number,
    why: string,
    watchedMs: number,
  ): Promise<ReplicationStatus> {
    const follower = this.checkPromotable();
    if (this.storage.snapshotLoadPending()) {
      throw dbError('ERR_REPLICATION_STATE', 'dataIncomplete');
    }
    this.checkPort(port);
    await probePort(port, this.host);
    const leaderTerm = follower.status().leaderTerm ?? 0;
    const replaced = follower.target();
    // The follower leaves without releasing the old leader's lease: the old leader must let
    // it lapse and stop acknowledging, since this node now does.
    await follower.stop();
    this.follower = undefined;
    this.watchedSilenceMs = watchedMs;
    this.stopWatch();
    const tag = await this.ensureTermTag();
    const term = await this.storage.setTerm(
      nextTerm(Math.max(this.storage.nodeState().term, leaderTerm), tag),
    );
    this.gate.setRole('leader');
    this.gate.setLeader(undefined);
    this.gate.setReadOnly(false);
    this.fenced = null;
    this.lease.load();
    try {
      await this.lead(port, undefined);
    } catch (error) {
      this.log.error(
        `replication: promoted, but the listener on port ${port} failed (${(error as Error).message}); followers cannot connect until POST /replication/start-leader succeeds`,
      );
      throw error;
    }
    this.log.info(
      `replication: ${why}; leading in ${describeTerm(term)} from seq ${this.storage.nodeState().lastSeq} on port ${port}`,
    );
    this.notify(replaced);
    return this.status();
  }

  /**
   * follower → watching: promotes itself once the leader is silent `silenceSeconds`, then
   * leads on `newLeaderPort` (default: its leader's replication port, as
   * `--auto-failover-new-port` defaults).
   */
  enableAutoFailover(request: {
    silenceSeconds: number;
    newLeaderPort?: number | undefined;
  }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.refuseCoordinated('given auto-failover');
      if (this.gate.role !== 'follower' || !this.follower) {
        throw dbError('ERR_REPLICATION_STATE', 'autoFailoverOnFollower');
      }
      const newLeaderPort = request.newLeaderPort ?? this.follower.target().port;
      this.checkPort(newLeaderPort);
      this.startWatch(request.silenceSeconds, newLeaderPort);
      this.follower?.silenceChanged();
      return this.status();
    });
  }

  /** Stops watching the leader's silence (the next ack tells the leader to release its lease). */
  disableAutoFailover(): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.refuseCoordinated('given auto-failover');
      this.stopWatch();
      this.failoverState = 'off';
      this.follower?.silenceChanged();
      return this.status();
    });
  }

  /**
   * A leader stops waiting for the lease of follower `name` (gone for good). If that node is
   * in fact alive and promoted itself, two nodes then take writes: the operator's call.
   */
  forgetFollower(request: { name: string }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      if (this.gate.role !== 'leader') {
        throw dbError('ERR_REPLICATION_STATE', 'leaseOnLeader');
      }
      if (!this.lease.release(request.name)) {
        const held = this.lease.view().holders.map((h) => h.name);
        throw held.length === 0
          ? dbError('ERR_REPLICATION_STATE', 'noLeaseHolder', { name: request.name })
          : dbError('ERR_REPLICATION_STATE', 'notLeaseHolder', {
              name: request.name,
              held: held.join(', '),
            });
      }
      this.log.warn(
        `replication: released the lease of follower ${request.name} by request; this leader no longer waits for it`,
      );
      return this.status();
    });
  }

  /**
   * Applies the replication settings `docdb serve` resolved: leads or follows (with the
   * auto-failover watch) from the start.
   */
  async startFromSettings(settings: {
    role: 'leader' | 'follower';
    port: number;
    leaderHost?: string | undefined;
    leaderPort?: number | undefined;
    autoFailover?: { silenceSeconds: number; newLeaderPort?: number | undefined } | undefined;
  }): Promise<void> {
    if (settings.role === 'leader') {
      await this.startLeader({ port: settings.port });
      return;
    }
    const { leaderHost, leaderPort, autoFailover } = settings;
    if (leaderHost === undefined || leaderPort === undefined) {
      throw dbError('ERR_CONFIG_INVALID', 'followerLeader');
    }
    await this.startFollower({ host: leaderHost, port: leaderPort });
    if (autoFailover) {
      await this.enableAutoFailover({
        silenceSeconds: autoFailover.silenceSeconds,
        newLeaderPort: autoFailover.newLeaderPort,
      });
    }
  }

  /**
   * Stops leading and following (again is a no-op); the node keeps its data and role. A
   * follower tells its leader it no longer watches it; a leader keeps its lease record.
   */
  async close(): Promise<void> {
    // Leaves the set first (resigning a leadership), so no election result arrives after.
    this.closing = true;
    const coordination = this.coordination;
    this.coordination = undefined;
    await coordination?.close();
    return this.serial(async () => {
      this.stopWatch();
      await this.follower?.stop({ release: true });
      this.follower = undefined;
      await this.stopLeading();
    });
  }

  // ---- coordinated mode (issue 24) ---------------------------------------------------------

  /**
   * Takes leadership from the coordinator: joins `replicaSet` as this node (its name, HTTP
   * URL, replication address and term tag, at its position), then leads while it holds the
   * lease and follows whoever holds it otherwise. Read-only until it does either. On a failed
   * join the coordinator is closed and the error (ERR_COORDINATOR_UNREACHABLE…) rethrown.
   */
  startCoordinated(settings: CoordinatedSettings): Promise<void> {
    return this.serial(async () => {
      const { coordinator, replicaSet, port } = settings;
      try {
        if (this.gate.role !== 'none') {
          throw dbError('ERR_REPLICATION_STATE', 'joinFromSingle');
        }
        this.checkPort(port);
        // The port it leads on must be free now, or every election it won would end in a
        // resignation.
        await probePort(port, this.host, 'replicationPortTaken');
        const tag = await this.ensureTermTag();
        this.gate.setReadOnly(true);
        this.coordinatedPort = port;
        const identity = {
          name: this.options.nodeName,
          url: this.options.httpUrl ?? `http://${this.host}:${this.options.httpPort}`,
          replication: this.options.advertiseAddress ?? `${this.advertisedHost}:${port}`,
          tag,
        };
        this.coordination = await Coordination.start(coordinator, replicaSet, identity, {
          position: () => {
            const { lastTerm, lastSeq } = this.storage.nodeState();
            return { term: lastTerm, seq: lastSeq };
          },
          whenCommittedAfter: (seq, signal) => this.storage.whenCommittedAfter(seq, signal),
          lead: (leadership) => this.leadElected(leadership),
          lost: (lost) => this.lostLeadership(lost),
          follow: (leader) => this.followElected(leader),
          log: this.log,
        });
      } catch (error) {
        await coordinator.close();
        throw error;
      }
      this.log.info(
        `replication: coordinated by ${coordinator.url} as a member of replica set ${replicaSet}; it leads on port ${port} while it holds the lease`,
      );
    });
  }

  /** The host other members reach this node's replication listener at, by default. */
  private get advertisedHost(): string {
    return this.options.bindAll ? os.hostname() : '127.0.0.1';
  }

  /** Throws ERR_REPLICATION_STATE naming why, when a coordinator decides who leads. */
  private refuseCoordinated(what: string): void {
    const coordination = this.coordination;
    if (coordination === undefined) return;
    throw dbError('ERR_REPLICATION_STATE', 'coordinated', { set: coordination.set, what });
  }

  /** The election loop won: lead in the won term, unless that would not move the term up. */
  private leadElected(leadership: Leadership): void {
    this.serial(async () => {
      if (this.closing || leadership.ended) return;
      const own = this.storage.nodeState().term;
      const refusal =
        leadership.term <= own
          ? `the won ${describeTerm(leadership.term)} is not above this node's ${describeTerm(own)}`
          : this.storage.snapshotLoadPending()
            ? 'its data is incomplete (a snapshot load was cut short)'
            : undefined;
      if (refusal !== undefined) {
        this.log.error(
          `replication: elected leader of replica set ${leadership.set}, but refuses to lead: ${refusal}; it resigns`,
        );
        await leadership.resign().catch(() => false);
        return;
      }
      const port = this.coordinatedPort as number;
      this.stopWatch();
      await this.follower?.stop();
      this.follower = undefined;
      await this.stopLeading();
      const term = await this.storage.setTerm(leadership.term);
      this.leadership = leadership;
      this.fenced = null;
      this.lease.clear();
      this.gate.setLeader(undefined);
      try {
        await this.lead(port, undefined);
      } catch (error) {
        this.gate.setReadOnly(true);
        this.log.error(
          `replication: elected leader of replica set ${leadership.set}, but its listener on port ${port} failed (${(error as Error).message}); it resigns`,
        );
        await leadership.resign().catch(() => false);
        return;
      }
      this.gate.setReadOnly(!leadership.canAcknowledge());
      this.log.info(
        `replication: elected leader of replica set ${leadership.set} by the coordinator; leading in ${describeTerm(term)} from seq ${this.storage.nodeState().lastSeq} on port ${port}`,
      );
    }).catch((error: unknown) =>
      this.log.error(`replication: could not lead after the election: ${(error as Error).message}`),
    );
  }

  /** The leader lease was lost: no write is taken or acknowledged from now on. */
  private lostLeadership(lost: LeadershipLost): void {
    this.gate.setReadOnly(true);
    this.log.error(
      `replication: lost the leadership of replica set ${lost.set} (${describeTerm(lost.term)}): ${lost.reason}. This node turned read-only; it follows the next leader the coordinator names`,
    );
  }

  /**
   * Another member leads: follow it. A leader turns read-only first and follows through the
   * fenced leader's path (rolling back into files what the new leader lacks); a follower of
   * another leader re-points to this one.
   */
  private followElected(leader: LeaderInfo): void {
    if (leader.url !== '') this.gate.setLeader(leader.url);
    this.serial(async () => {
      if (this.closing) return;
      const target = parseAddress(leader.replication);
      if (!target) {
        throw dbError('ERR_REPLICATION_STATE', 'leaderAddress', {
          name: leader.name,
          address: leader.replication,
        });
      }
      const current = this.follower?.target();
      if (current?.host === target.host && current.port === target.port) return;
      if (this.leadership?.canAcknowledge() === true) {
        // The watch lags behind this node's own election; the next change sets it right.
        return;
      }
      this.gate.setReadOnly(true);
      this.leadership = undefined;
      if (this.follower) {
        await this.follower.stop();
        this.follower = undefined;
        this.gate.setRole('none');
      }
      await this.followNow(target.host, target.port, undefined);
      this.gate.setLeader(leader.url);
    }).catch((error: unknown) =>
      this.log.error(
        `replication: could not follow ${leader.name}, the leader the coordinator names: ${(error as Error).message}`,
      ),
    );
  }

  /**
   * A planned handover in coordinated mode: the leader stops taking writes, waits until
   * `to` (default: the connected follower that applied most) applied its last seq, and
   * resigns the lease naming it, so it alone campaigns; this node then follows it. On a
   * target that does not catch up in the sync timeout, the leader takes writes again
   * (ERR_REPLICATION_TIMEOUT).
   */
  handover(request: { to?: string | undefined }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      const leadership = this.leadership;
      const coordination = this.coordination;
      if (coordination === undefined) {
        throw dbError('ERR_REPLICATION_STATE', 'handoverUncoordinated');
      }
      if (!this.leader || leadership?.canAcknowledge() !== true) {
        const leader = coordination.view().leader;
        const set = coordination.set;
        throw leader
          ? dbError('ERR_REPLICATION_STATE', 'handoverOtherLeads', { set, leader: leader.name })
          : dbError('ERR_REPLICATION_STATE', 'handoverNoLeader', { set });
      }
      const followers = () => this.leader?.followers() ?? [];
      const target = handoverTarget(followers(), this.options.nodeName, request.to);
      this.gate.setReadOnly(true);
      const { lastSeq } = await this.storage.flush();
      const timeoutMs = this.options.syncTimeoutMs ?? SYNC_TIMEOUT_MS_DEFAULT;
      if (!(await followerApplied(followers, target, lastSeq, timeoutMs))) {
        if (leadership.canAcknowledge()) this.gate.setReadOnly(false);
        throw dbError('ERR_REPLICATION_TIMEOUT', 'handoverTimeout', {
          target,
          lastSeq,
          seconds: timeoutMs / 1000,
        });
      }
      await leadership.resign(target);
      this.log.info(
        `replication: handed the leadership of replica set ${coordination.set} over to ${target} at seq ${lastSeq}; this node follows it once it leads`,
      );
      return this.status();
    });
  }

  // ---- status ------------------------------------------------------------------------------

  status(): ReplicationStatus {
    const { term, lastSeq, seqFloor } = this.storage.nodeState();
    const followers = (this.leader?.followers() ?? []).map((link) => ({
      ...link,
      lagEntries: Math.max(0, lastSeq - link.acknowledgedSeq),
      lagSeconds: this.lagSeconds(link.acknowledgedSeq, lastSeq),
    }));
    const leader = this.follower?.status() ?? null;
    return {
      role: this.gate.role,
      // What a client meets: a follower refuses writes as a read-only leader does.
      readOnly: !this.gate.writable,
      term,
      lastSeq,
      seqFloor,
      fenced: this.fenced,
      replicationPort: this.leader?.port ?? null,
      syncFollowers: this.syncFollowers,
      followerCount: followers.length,
      followers,
      leader,
      gaps: this.counters.gaps,
      divergences: this.counters.divergences,
      lease: this.leader ? this.lease.view() : null,
      autoFailover: {
        enabled: this.watch !== undefined,
        silenceSeconds: this.watch?.silenceSeconds ?? null,
        newLeaderPort: this.watch?.newLeaderPort ?? null,
        state: this.failoverState,
        armed: this.watch !== undefined && this.follower?.armed === true,
        lastLeaderContactAt: leader?.lastLeaderContactAt ?? null,
      },
      coordinator: this.coordination?.view() ?? null,
      counters: { ...this.counters },
    };
  }

  /** Seconds since the oldest entry a follower has not acknowledged was committed. */
  private lagSeconds(acknowledged: number, lastSeq: number): number {
    if (acknowledged >= lastSeq) return 0;
    for (const entry of this.storage.changesAfter(acknowledged)) {
      return Math.max(0, (Date.now() - entry.atMs) / 1000);
    }
    return 0;
  }

  // ---- parts -------------------------------------------------------------------------------

  private get host(): string {
    return this.options.bindAll ? '0.0.0.0' : '127.0.0.1';
  }

  private checkPort(port: number): void {
    if (!isPort(port)) {
      throw dbError('ERR_BAD_ARGUMENT', 'port', { range: PORT_RANGE_TEXT, port });
    }
    if (port === this.options.httpPort) {
      throw dbError('ERR_BAD_ARGUMENT', 'replicationPortIsHttp', { port });
    }
  }

  /** This node's term tag, drawn and stored the first time it is needed. */
  private async ensureTermTag(): Promise<number> {
    const tag = this.storage.termTag();
    if (tag !== undefined) return tag;
    const drawn = drawTag();
    await this.storage.setTermTag(drawn);
    return drawn;
  }

  /** Listens on `port` and becomes the leader, each write then passing the commit barrier. */
  private async lead(port: number, secret: string | undefined): Promise<void> {
    this.checkPort(port);
    this.leader = await ReplicationLeader.listen({
      storage: this.storage,
      nodeName: this.options.nodeName,
      host: this.host,
      port,
      secret: secret ?? this.options.secret,
      tls: this.options.tls,
      httpUrl: this.options.httpUrl,
      log: this.log,
      counters: this.counters,
      lease: this.lease,
      onHigherTerm: (term, by, notice) => this.fence(term, by, notice),
    });
    this.gate.setRole('leader');
    this.gate.setCommitBarrier((seq) => this.beforeAcknowledging(seq));
  }

  private async stopLeading(): Promise<void> {
    await this.notifier?.stop();
    this.notifier = undefined;
    await this.leader?.close();
    this.leader = undefined;
    this.gate.setCommitBarrier(undefined);
  }

  private follow(host: string, port: number, secret: string | undefined): void {
    this.follower = new ReplicationFollower({
      storage: this.storage,
      nodeName: this.options.nodeName,
      host,
      port,
      secret: secret ?? this.options.secret,
      tls: this.options.tls !== undefined,
      log: this.log,
      counters: this.counters,
      onLeaderUrl: (url) => this.gate.setLeader(url),
      silenceMs: () => this.watchSilenceMs(),
    });
    this.gate.setRole('follower', `${host}:${port}`);
    this.follower.start();
    this.log.info(`replication: following the leader at ${host}:${port}`);
  }

  /**
   * Tells the node this one replaced of its new term, until told (notice.ts). Stops too once
   * that node is seen following this one.
   */
  private notify(replaced: { host: string; port: number; name: string | null }): void {
    const target = replaced.name
      ? `${replaced.name} (${replaced.host}:${replaced.port})`
      : `the old leader at ${replaced.host}:${replaced.port}`;
    this.notifier = new Notifier({
      host: replaced.host,
      port: replaced.port,
      target,
      secret: this.options.secret,
      tls: this.options.tls !== undefined,
      log: this.log,
      hello: () => this.noticeHello(),
      stopWhen: () => replaced.name !== null && this.leader?.hasFollower(replaced.name) === true,
      onNewerTerm: (term, by) => this.fence(term, by),
    });
    this.notifier.start();
  }

  /** What a notice says: this node's position and term, and where it is reached. */
  private noticeHello(): Introduction {
    const position = this.storage.nodeState();
    const { advertiseAddress, httpUrl } = this.options;
    return {
      node: this.options.nodeName,
      seq: position.lastSeq,
      ...(position.lastChain !== undefined && { lastChain: position.lastChain }),
      runs: [...this.storage.termRuns()],
      term: position.term,
      tag: this.storage.termTag() ?? 0,
      silenceMs: 0,
      notice: {
        port: this.leader?.port ?? 0,
        silenceMs: this.watchedSilenceMs,
        ...(advertiseAddress !== undefined && { address: advertiseAddress }),
        ...(httpUrl !== undefined && { httpUrl }),
      },
    };
  }

  /**
   * Another node leads in a newer term: this one stops taking writes. With the new leader's
   * address (its notice) and `autoRejoin`, it then follows it by itself.
   */
  private fence(term: number, by: string, notice?: NoticeFrom): void {
    const known = this.fenced;
    if (known && (known.term > term || (known.term === term && (known.leader || !notice)))) return;
    this.fenced = {
      term,
      by,
      at: new Date().toISOString(),
      ...(notice && { leader: notice.address }),
      ...(notice?.httpUrl && { httpUrl: notice.httpUrl }),
    };
    this.gate.setReadOnly(true);
    if (notice?.httpUrl) this.gate.setLeader(notice.httpUrl);
    const rejoins = notice !== undefined && this.options.autoRejoin === true;
    this.log.error(
      `replication: ${by} is in ${describeTerm(term)}, newer than this node's ${describeTerm(this.storage.nodeState().term)}: another node was promoted. This node turned read-only; ${
        rejoins
          ? `it follows the new leader at ${notice.address} by itself (--auto-rejoin), rolling back what that leader never had`
          : 'let it follow the new leader (POST /replication/start-follower) or restart it as a follower: it rolls back what that leader never had'
      }`,
    );
    if (rejoins) this.rejoin(notice);
  }

  /** A fenced leader follows the node that fenced it, watching it as that node watched it. */
  private rejoin(notice: NoticeFrom): void {
    const target = parseAddress(notice.address);
    if (!target) {
      this.log.error(
        `replication: cannot rejoin: the new leader's address ${notice.address} is not host:port`,
      );
      return;
    }
    const ownPort = this.leader?.port;
    this.serial(async () => {
      if (this.gate.role !== 'leader' || !this.fenced) return;
      await this.followNow(target.host, target.port, undefined);
      if (notice.silenceMs > 0 && ownPort !== undefined) {
        this.startWatch(Math.max(1, Math.round(notice.silenceMs / 1000)), ownPort);
      }
    }).catch((error: unknown) =>
      this.log.error(`replication: could not rejoin as a follower: ${(error as Error).message}`),
    );
  }

  private startWatch(silenceSeconds: number, newLeaderPort: number): void {
    this.stopWatch();
    const watch = new SilenceWatch(
      silenceSeconds,
      newLeaderPort,
      () => this.follower,
      (silentMs) => this.failOver(watch, silentMs),
    );
    this.watch = watch;
    this.failoverState = 'watching';
    this.log.info(
      `replication: auto-failover watching: promotes itself on port ${newLeaderPort} after ${silenceSeconds} s of leader silence, once the leader holds its lease`,
    );
  }

  private stopWatch(): void {
    this.watch?.stop();
    this.watch = undefined;
  }

  /** The watch saw the leader silent long enough: this follower promotes itself. */
  private failOver(watch: SilenceWatch, silentMs: number): void {
    const { silenceSeconds, newLeaderPort } = watch;
    this.stopWatch();
    this.log.warn(
      `replication: the leader has been silent ${Math.round(silentMs / 1000)} s; promoting this node (auto-failover)`,
    );
    this.serial(async () => {
      await this.promoteNow(newLeaderPort, 'promoted by auto-failover', watch.silenceMs);
      this.failoverState = 'promoted';
    }).catch((error: unknown) => {
      this.log.error(`replication: auto-failover could not promote: ${(error as Error).message}`);
      if (this.follower) this.startWatch(silenceSeconds, newLeaderPort);
    });
  }

  /** The write gate's check on a leader: refused while the lease lapsed. */
  private requireLease(): void {
    if (!this.leader) return;
    const lapse = this.lease.lapsed() ?? this.leadershipLapsed();
    if (lapse !== undefined) throw lapse;
  }

  /** The refusal of a coordinated leader that may not acknowledge (its etcd lease), if any. */
  private leadershipLapsed(): DbError | undefined {
    const leadership = this.leadership;
    if (this.coordination === undefined && leadership === undefined) return undefined;
    if (leadership?.canAcknowledge() === true) return undefined;
    const set = this.coordination?.set ?? leadership?.set;
    return dbError('ERR_REPLICATION_NO_LEASE', 'leadershipLapsed', { set }, { role: 'leader' });
  }

  /**
   * The commit barrier of a leader: a committed write is acknowledged only once
   * `syncFollowers` followers applied it, and only while the lease still holds.
   */
  private async beforeAcknowledging(seq: number): Promise<void> {
    await this.waitForFollowers(seq);
    // Checked after the wait: the lease may have lapsed while the followers applied it.
    const lapse = this.leader ? (this.lease.lapsed() ?? this.leadershipLapsed()) : undefined;
    if (lapse === undefined) return;
    const values = { seq, lapse: lapse.message };
    throw dbError('ERR_REPLICATION_NO_LEASE', 'notAcknowledged', values, notAcknowledged(seq));
  }

  /** Waits until `syncFollowers` followers applied `seq`. */
  private async waitForFollowers(seq: number): Promise<void> {
    const required = this.syncFollowers;
    const leader = this.leader;
    if (required === 0 || !leader || this.gate.role !== 'leader') return;
    const timeoutMs = this.options.syncTimeoutMs ?? SYNC_TIMEOUT_MS_DEFAULT;
    if (await leader.waitForAcks(seq, required, timeoutMs)) return;
    const applied = leader.ackedBy(seq);
    const values = { seq, applied, required, seconds: timeoutMs / 1000 };
    throw dbError('ERR_REPLICATION_TIMEOUT', 'notAcknowledged', values, {
      ...notAcknowledged(seq),
      followersApplied: applied,
      followersRequired: required,
    });
  }
}

/**
 * The details of a write committed on this leader but not acknowledged. It may still reach the
 * followers when they catch up, or be rolled back by a failover into the rollback files of this
 * node: a client that must know reads it back from the leader after the dust settles.
 */
function notAcknowledged(seq: number): {
  committedLocally: true;
  acknowledged: false;
  seq: number;
} {
  return { committedLocally: true, acknowledged: false, seq };
}

/** `host:port` (an IPv6 host in brackets) as its parts, or undefined. */
function parseAddress(address: string): { host: string; port: number } | undefined {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port < 1 || port > 65_535) return undefined;
  return { host: match[1] as string, port };
}

/** Fails with a clear error when `port` cannot be bound, before anything changes. */
function probePort(
  port: number,
  host: string,
  inUse: 'promotePortInUse' | 'replicationPortTaken' = 'promotePortInUse',
): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        // The same code as any port in use (leader.ts, server/node.ts).
        error.code === 'EADDRINUSE'
          ? dbError('ERR_CONFIG_INVALID', inUse, { port })
          : dbError('ERR_CONFIG_INVALID', 'cannotListen', {
              port,
              cause: error.code ?? error.message,
            }),
      ),
    );
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

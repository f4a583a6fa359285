/**
 * A node's replication: its role and the transitions of the spec's state table (start
 * leading, start following, read-only and back, promote, auto-failover on and off), the
 * term fencing of a stale leader, durable writes (`syncFollowers`), and the status body. The
 * role itself lives in the engine's write gate, which refuses client writes; this module
 * moves it. The server's routes and `docdb serve` call it; it never imports the server.
 */

import * as net from 'node:net';
import type * as tls from 'node:tls';
import type { Database } from '../engine/index.js';
import { DbError } from '../errors/index.js';
import type { AutoFailoverView, ReplicationStatus } from '../types/index.js';
import { ReplicationFollower } from './follower.js';
import { ReplicationLeader } from './leader.js';
import { newCounters, type ReplicationLog, SILENT_LOG } from './log.js';
import { FAILOVER_CHECK_MS } from './timing.js';

/** What a node tells its replication when it starts. */
export interface ReplicationOptions {
  db: Database;
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
  log?: ReplicationLog;
}

const SYNC_TIMEOUT_MS_DEFAULT = 10_000;

interface Watch {
  silenceSeconds: number;
  newLeaderPort: number;
  startedMs: number;
  timer: NodeJS.Timeout;
}

export class Replication {
  private leader: ReplicationLeader | undefined;
  private follower: ReplicationFollower | undefined;
  private watch: Watch | undefined;
  private failoverState: AutoFailoverView['state'] = 'off';
  private fenced: ReplicationStatus['fenced'] = null;
  private readonly counters = newCounters();
  private readonly log: ReplicationLog;
  /** One transition at a time: each awaits the one before. */
  private transition: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ReplicationOptions) {
    this.log = options.log ?? SILENT_LOG;
    // Only a node that waits for followers pays for the barrier on its writes.
    if (this.syncFollowers > 0) options.db.setCommitBarrier((seq) => this.waitForFollowers(seq));
  }

  private get db(): Database {
    return this.options.db;
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
      const role = this.db.gate.role;
      if (role !== 'none') {
        throw stateError(
          role === 'leader'
            ? `this node already leads, on replication port ${this.leader?.port}`
            : 'this node is a follower; a follower takes over with POST /replication/promote',
        );
      }
      this.leader = await this.listen(request.port, request.sharedSecret);
      this.db.gate.setRole('leader');
      this.log.info(
        `replication: leading on port ${request.port} (term ${this.db.nodeState().term})`,
      );
      return this.status();
    });
  }

  /**
   * single node → follower: follows the leader at `host:port`. A read-only leader (the old
   * leader of a planned handover) may follow the new one too: its listener closes.
   */
  startFollower(request: {
    host: string;
    port: number;
    sharedSecret?: string;
  }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      const { role, readOnly } = this.db.gate;
      if (role === 'follower') {
        throw stateError(`this node already follows ${this.follower?.status().leader}`);
      }
      if (role === 'leader' && !readOnly) {
        throw stateError(
          'this node leads and takes writes; turn it read-only first (POST /replication/read-only), then let it follow the new leader',
        );
      }
      await this.stopLeading();
      // A fenced leader that follows the new one has done what the fence asked.
      this.fenced = null;
      this.follow(request.host, request.port, request.sharedSecret);
      return this.status();
    });
  }

  /** read-write → read-only: the first step of a planned handover. */
  readOnly(): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.db.gate.setReadOnly(true);
      // Every write queued before this point has committed (or failed) when it answers.
      await this.db.flush();
      this.log.info('replication: read-only (handover); writes are refused');
      return this.status();
    });
  }

  /** read-only → read-write: recovers or aborts a handover. */
  readWrite(): Promise<ReplicationStatus> {
    return this.serial(async () => {
      if (this.fenced) {
        throw stateError(
          `this node saw term ${this.fenced.term} (from ${this.fenced.by}), newer than its own: another node leads; restart it as a follower of that leader`,
        );
      }
      this.db.gate.setReadOnly(false);
      this.log.info('replication: read-write');
      return this.status();
    });
  }

  /** follower → leader: takes over in a new term and listens on `port`. */
  promote(request: { port: number }): Promise<ReplicationStatus> {
    return this.serial(() => this.promoteNow(request.port, 'promoted by request'));
  }

  private async promoteNow(port: number, why: string): Promise<ReplicationStatus> {
    if (this.db.gate.role !== 'follower' || !this.follower) {
      throw stateError(
        this.db.gate.role === 'leader'
          ? 'this node already leads'
          : 'only a follower is promoted; a single node starts leading with POST /replication/start-leader',
      );
    }
    if (this.db.snapshotLoadPending()) {
      throw stateError(
        "this node's data is incomplete (a snapshot load from its leader was cut short); let it finish catching up before promoting it",
      );
    }
    this.checkPort(port);
    await probePort(port, this.host);
    const leaderTerm = this.follower.status().leaderTerm ?? 0;
    await this.follower.stop();
    this.follower = undefined;
    this.stopWatch();
    const term = await this.db.setTerm(Math.max(this.db.nodeState().term, leaderTerm) + 1);
    this.db.gate.setRole('leader');
    this.db.gate.setLeader(undefined);
    this.db.gate.setReadOnly(false);
    this.fenced = null;
    try {
      this.leader = await this.listen(port, undefined);
    } catch (error) {
      this.log.error(
        `replication: promoted, but the listener on port ${port} failed (${(error as Error).message}); followers cannot connect until POST /replication/start-leader succeeds`,
      );
      throw error;
    }
    this.log.info(
      `replication: ${why}; leading in term ${term} from seq ${this.db.nodeState().lastSeq} on port ${port}`,
    );
    return this.status();
  }

  /** follower → watching: promotes itself once the leader is silent `silenceSeconds`. */
  enableAutoFailover(request: {
    silenceSeconds: number;
    newLeaderPort: number;
  }): Promise<ReplicationStatus> {
    return this.serial(async () => {
      if (this.db.gate.role !== 'follower') {
        throw stateError('auto-failover watches a leader: only a follower enables it');
      }
      this.checkPort(request.newLeaderPort);
      this.startWatch(request.silenceSeconds, request.newLeaderPort);
      return this.status();
    });
  }

  /** Stops watching the leader's silence. */
  disableAutoFailover(): Promise<ReplicationStatus> {
    return this.serial(async () => {
      this.stopWatch();
      this.failoverState = 'off';
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
      throw new DbError('ERR_CONFIG_INVALID', 'a follower needs the leader host and port');
    }
    await this.startFollower({ host: leaderHost, port: leaderPort });
    if (autoFailover) {
      await this.enableAutoFailover({
        silenceSeconds: autoFailover.silenceSeconds,
        newLeaderPort: autoFailover.newLeaderPort ?? leaderPort,
      });
    }
  }

  /** Stops leading and following (again is a no-op); the node keeps its data and role. */
  close(): Promise<void> {
    return this.serial(async () => {
      this.stopWatch();
      await this.follower?.stop();
      this.follower = undefined;
      await this.stopLeading();
      this.db.setCommitBarrier(undefined);
    });
  }

  // ---- status ------------------------------------------------------------------------------

  status(): ReplicationStatus {
    const { term, lastSeq, seqFloor } = this.db.nodeState();
    const followers = (this.leader?.followers() ?? []).map((link) => ({
      ...link,
      lagEntries: Math.max(0, lastSeq - link.acknowledgedSeq),
      lagSeconds: this.lagSeconds(link.acknowledgedSeq, lastSeq),
    }));
    const leader = this.follower?.status() ?? null;
    return {
      role: this.db.gate.role,
      readOnly: this.db.gate.readOnly,
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
      autoFailover: {
        enabled: this.watch !== undefined,
        silenceSeconds: this.watch?.silenceSeconds ?? null,
        newLeaderPort: this.watch?.newLeaderPort ?? null,
        state: this.failoverState,
        lastLeaderContactAt: leader?.lastLeaderContactAt ?? null,
      },
      counters: { ...this.counters },
    };
  }

  /** Seconds since the oldest entry a follower has not acknowledged was committed. */
  private lagSeconds(acknowledged: number, lastSeq: number): number {
    if (acknowledged >= lastSeq) return 0;
    for (const entry of this.db.changesSince(acknowledged)) {
      return Math.max(0, (Date.now() - entry.atMs) / 1000);
    }
    return 0;
  }

  // ---- parts -------------------------------------------------------------------------------

  private get host(): string {
    return this.options.bindAll ? '0.0.0.0' : '127.0.0.1';
  }

  private checkPort(port: number): void {
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new DbError('ERR_BAD_ARGUMENT', `a port is an integer from 1 to 65535; got ${port}`);
    }
    if (port === this.options.httpPort) {
      throw new DbError(
        'ERR_BAD_ARGUMENT',
        `the replication port must differ from the HTTP port ${port}`,
      );
    }
  }

  private async listen(port: number, secret: string | undefined): Promise<ReplicationLeader> {
    this.checkPort(port);
    return ReplicationLeader.listen({
      db: this.db,
      nodeName: this.options.nodeName,
      host: this.host,
      port,
      secret: secret ?? this.options.secret,
      tls: this.options.tls,
      httpUrl: this.options.httpUrl,
      log: this.log,
      counters: this.counters,
      onHigherTerm: (term, by) => this.fence(term, by),
    });
  }

  private async stopLeading(): Promise<void> {
    await this.leader?.close();
    this.leader = undefined;
  }

  private follow(host: string, port: number, secret: string | undefined): void {
    this.follower = new ReplicationFollower({
      db: this.db,
      nodeName: this.options.nodeName,
      host,
      port,
      secret: secret ?? this.options.secret,
      tls: this.options.tls !== undefined,
      log: this.log,
      counters: this.counters,
      onLeaderUrl: (url) => this.db.gate.setLeader(url),
    });
    this.db.gate.setRole('follower', `${host}:${port}`);
    this.follower.start();
    this.log.info(`replication: following the leader at ${host}:${port}`);
  }

  /** A follower showed a newer term: another node leads; this one stops taking writes. */
  private fence(term: number, by: string): void {
    if (this.fenced && this.fenced.term >= term) return;
    this.fenced = { term, by, at: new Date().toISOString() };
    this.db.gate.setReadOnly(true);
    this.log.error(
      `replication: ${by} is in term ${term}, newer than this leader's term ${this.db.nodeState().term}: another node was promoted. This node turned read-only; restart it as a follower of the new leader (it rolls back what that leader never had)`,
    );
  }

  private startWatch(silenceSeconds: number, newLeaderPort: number): void {
    this.stopWatch();
    const timer = setInterval(() => this.checkSilence(), FAILOVER_CHECK_MS);
    timer.unref();
    this.watch = { silenceSeconds, newLeaderPort, startedMs: Date.now(), timer };
    this.failoverState = 'watching';
    this.log.info(
      `replication: auto-failover watching: promotes itself on port ${newLeaderPort} after ${silenceSeconds} s of leader silence`,
    );
  }

  private stopWatch(): void {
    if (this.watch) clearInterval(this.watch.timer);
    this.watch = undefined;
  }

  private checkSilence(): void {
    const { watch, follower } = this;
    if (!watch || !follower) return;
    const since = Math.max(follower.lastContactMs, watch.startedMs);
    const silentMs = Date.now() - since;
    if (silentMs < watch.silenceSeconds * 1000) return;
    const { newLeaderPort } = watch;
    this.stopWatch();
    this.log.warn(
      `replication: the leader has been silent ${Math.round(silentMs / 1000)} s; promoting this node (auto-failover)`,
    );
    this.serial(async () => {
      await this.promoteNow(newLeaderPort, 'promoted by auto-failover');
      this.failoverState = 'promoted';
    }).catch((error: unknown) => {
      this.log.error(`replication: auto-failover could not promote: ${(error as Error).message}`);
      if (this.follower) this.startWatch(watch.silenceSeconds, newLeaderPort);
    });
  }

  /** The commit barrier: a write waits until `syncFollowers` followers applied it. */
  private async waitForFollowers(seq: number): Promise<void> {
    const required = this.syncFollowers;
    const leader = this.leader;
    if (required === 0 || !leader || this.db.gate.role !== 'leader') return;
    const timeoutMs = this.options.syncTimeoutMs ?? SYNC_TIMEOUT_MS_DEFAULT;
    if (await leader.waitForAcks(seq, required, timeoutMs)) return;
    const acknowledged = leader.ackedBy(seq);
    throw new DbError(
      'ERR_REPLICATION_TIMEOUT',
      `the write is committed on this node (seq ${seq}) but only ${acknowledged} of the ${required} followers it waits for applied it within ${timeoutMs / 1000} s; it reaches them when they catch up`,
      { committedLocally: true, seq, acknowledged, required },
    );
  }
}

function stateError(message: string): DbError {
  return new DbError('ERR_REPLICATION_STATE', message);
}

/** Fails with a clear error when `port` cannot be bound, before anything changes. */
function probePort(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new DbError(
          'ERR_BAD_ARGUMENT',
          error.code === 'EADDRINUSE'
            ? `port ${port} is already in use; promote with another port`
            : `cannot listen on port ${port} (${error.code ?? error.message})`,
        ),
      ),
    );
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/**
 * The leader's side: a TCP (or TLS) listener on the replication port and one session per
 * follower. A session checks the hello, proves and checks the shared secret, finds where the
 * follower's history parts from this one (fork.ts, asking the follower for links) and so
 * where it catches up (catch-up.ts), sends a snapshot when it must, then pushes entries as
 * they commit (no polling), heartbeats stamped with this node's clock, and takes
 * acknowledgements: they move the follower's retention hold, renew the lease of a follower
 * that watches (lease.ts), and release writes waiting for `syncFollowers`, but only for
 * entries this session sent and the follower applied. It never writes data; a follower or a
 * promoted node's notice with a higher term makes it call `onHigherTerm`.
 */

import * as net from 'node:net';
import * as tls from 'node:tls';
import { dbError } from '../errors/index.js';
import type { ChangeHold, FollowerLink } from '../types/index.js';
import {
  REPLICATION_BATCH_BYTES,
  REPLICATION_FOLLOWERS_MAX,
  REPLICATION_SNAPSHOT_BATCH_DOCS,
} from '../util/index.js';
import { planCatchUp } from './catch-up.js';
import { ForkSearch, type ForkStep } from './fork.js';
import { checkProof, newNonce, proofOf } from './handshake.js';
import { heartbeatPeriodMs, type Lease } from './lease.js';
import type { ReplicationCounters, ReplicationLog } from './log.js';
import { Peer } from './peer.js';
import type { ReplicationStorage, Structure } from './port.js';
import { checkHello, type MessageOf, PROTOCOL_VERSION } from './protocol.js';
import { describeTerm } from './terms.js';
import { HANDSHAKE_TIMEOUT_MS, HEARTBEAT_MS } from './timing.js';

/** Probes one fork search may take before the follower is refused (each narrows 32-fold). */
const FORK_ROUNDS_MAX = 16;

/** What a promoted node's notice says of it, for a fenced node that rejoins it. */
export interface NoticeFrom {
  /** Where its replication listener is reached, `host:port`. */
  address: string;
  httpUrl: string | undefined;
  /** Its auto-failover silence as a follower, in ms (0: none). */
  silenceMs: number;
}

export interface LeaderOptions {
  storage: ReplicationStorage;
  nodeName: string;
  /** Address to bind: 127.0.0.1, or 0.0.0.0 with --bind-all. */
  host: string;
  port: number;
  /** When set, followers must prove they know it. */
  secret?: string | undefined;
  /** The node's TLS options: the replication port then speaks TLS too. */
  tls?: tls.SecureContextOptions | undefined;
  /** The node's HTTP address, told to followers so they can name it in their 503s. */
  httpUrl?: string | undefined;
  log: ReplicationLog;
  counters: ReplicationCounters;
  /** The lease this leader holds from its auto-failover followers. */
  lease: Lease;
  /**
   * A follower or a notice showed a newer term than this node's: this leader is stale. A
   * notice says where the node that leads now is.
   */
  onHigherTerm(term: number, by: string, notice?: NoticeFrom): void;
}

export type { FollowerLink } from '../types/index.js';

interface AckWaiter {
  seq: number;
  count: number;
  resolve: () => void;
}

export class ReplicationLeader {
  private readonly sessions = new Set<LeaderSession>();
  private ackWaiters: AckWaiter[] = [];

  private constructor(
    readonly options: LeaderOptions,
    private readonly server: net.Server,
  ) {}

  /** Opens the listener; rejects with ERR_CONFIG_INVALID when the port cannot be bound. */
  static async listen(options: LeaderOptions): Promise<ReplicationLeader> {
    const server = options.tls
      ? tls.createServer({ ...options.tls, minVersion: 'TLSv1.2' })
      : net.createServer();
    const leader = new ReplicationLeader(options, server);
    server.on(options.tls ? 'secureConnection' : 'connection', (socket: net.Socket) =>
      leader.accept(socket),
    );
    // A client that fails the TLS handshake never becomes a session; say why in the log.
    server.on('tlsClientError', (error: Error) =>
      options.log.warn(`replication: a TLS handshake failed (${error.message})`),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          // The same code as an HTTP port in use (server/node.ts): a setting to change.
          error.code === 'EADDRINUSE'
            ? dbError('ERR_CONFIG_INVALID', 'replicationPortInUse', { port: options.port })
            : dbError('ERR_CONFIG_INVALID', 'cannotListenReplication', {
                port: options.port,
                cause: error.code ?? error.message,
              }),
        ),
      );
      server.listen(options.port, options.host, () => resolve());
    });
    server.on('error', (error) => options.log.error(`replication listener: ${error.message}`));
    return leader;
  }

  /** The port it listens on (the one asked for, or the one the system gave for 0). */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : this.options.port;
  }

  private accept(socket: net.Socket): void {
    const peer = new Peer(socket, `${socket.remoteAddress}:${socket.remotePort}`);
    if (this.sessions.size >= REPLICATION_FOLLOWERS_MAX) {
      void peer.finish({
        t: 'refused',
        code: 'ERR_REPLICATION_REFUSED',
        reason: `this leader already serves ${REPLICATION_FOLLOWERS_MAX} followers`,
      });
      return;
    }
    const session = new LeaderSession(this, peer);
    this.sessions.add(session);
    session.run().finally(() => {
      this.sessions.delete(session);
      this.acked();
    });
  }

  /** The followers connected now. */
  followers(): FollowerLink[] {
    return [...this.sessions].map((s) => ({ ...s.link })).filter((l) => l.name !== '');
  }

  /**
   * Resolves true once `count` followers have acknowledged `seq`, or false after `timeoutMs`.
   */
  waitForAcks(seq: number, count: number, timeoutMs: number): Promise<boolean> {
    if (this.ackedBy(seq) >= count) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: AckWaiter = {
        seq,
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        this.ackWaiters = this.ackWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      this.ackWaiters.push(waiter);
    });
  }

  /**
   * How many connected followers have applied `seq` as part of their session: an entry this
   * leader sent them and they acknowledged, never a position they claimed when they joined.
   */
  ackedBy(seq: number): number {
    let count = 0;
    for (const session of this.sessions) if (session.confirms(seq)) count++;
    return count;
  }

  /** True while a follower named `name` is connected (past its handshake). */
  hasFollower(name: string): boolean {
    return [...this.sessions].some((s) => s.link.name === name && s.link.state !== 'handshake');
  }

  /** The term tags of the connected followers but `except`. */
  tagsBut(except: LeaderSession): Set<number> {
    const tags = new Set<number>();
    for (const session of this.sessions) {
      if (session !== except && session.tag !== undefined) tags.add(session.tag);
    }
    return tags;
  }

  /** A follower acknowledged (or left): wake the writes it satisfied. */
  acked(): void {
    if (this.ackWaiters.length === 0) return;
    const waiting = this.ackWaiters;
    this.ackWaiters = [];
    for (const waiter of waiting) {
      if (this.ackedBy(waiter.seq) >= waiter.count) waiter.resolve();
      else this.ackWaiters.push(waiter);
    }
  }

  /** Closes the listener and every session. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const session of this.sessions) session.stop();
    await closed;
  }
}

class LeaderSession {
  readonly link: FollowerLink;
  /** The follower's term tag, once its hello said it. */
  tag: number | undefined;
  private readonly stopper = new AbortController();
  private hold: ChangeHold | undefined;
  /** Set when the follower asked again from a seq (a gap): the stream restarts there. */
  private restartAfter: number | undefined;
  private wake = new AbortController();
  /** Where this session's stream began: the follower's position as it joined. */
  private startAfter = 0;
  /** The last seq the follower acknowledged past `startAfter`: applied from this session. */
  private confirmed = 0;
  /** The follower's auto-failover silence (0: none), which sets the heartbeat period. */
  private silenceMs = 0;
  private heartbeatTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly leader: ReplicationLeader,
    private readonly peer: Peer,
  ) {
    this.link = {
      name: '',
      address: peer.address,
      connectedAt: new Date().toISOString(),
      state: 'handshake',
      sentSeq: 0,
      acknowledgedSeq: 0,
      gaps: 0,
    };
    peer.onEnd(() => {
      this.stopper.abort();
      this.wake.abort();
    });
  }

  private get options(): LeaderOptions {
    return this.leader.options;
  }

  /** Ends the session: the leader stopped replicating, or `failure` ended it. */
  stop(failure?: Error): void {
    this.peer.close(
      failure === undefined
        ? dbError('ERR_REPLICATION_CONNECTION', 'leaderStopped')
        : dbError('ERR_REPLICATION_CONNECTION', 'sessionFailed', { cause: failure.message }),
    );
  }

  /** True when the follower applied `seq` from this session (see ReplicationLeader.ackedBy). */
  confirms(seq: number): boolean {
    return this.startAfter < seq && this.confirmed >= seq;
  }

  async run(): Promise<void> {
    const { log } = this.options;
    try {
      const start = await this.handshake();
      if (start === undefined) return;
      let after = start;
      void this.receiveLoop();
      // Heartbeats start with the stream, or once a snapshot's header is out (it comes first).
      if (this.link.state === 'snapshot') after = await this.sendSnapshot();
      else this.beat();
      this.link.state = 'streaming';
      await this.stream(after);
    } catch (error) {
      if (this.peer.open) {
        log.warn(`replication: follower ${this.describe()}: ${(error as Error).message}`);
        this.stop(error as Error);
      }
    } finally {
      if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
      this.hold?.release();
      if (this.link.name !== '' && this.link.state !== 'handshake') {
        const why = this.peer.endReason?.message ?? 'the session ended';
        log.info(`replication: follower ${this.describe()} disconnected (${why})`);
      }
    }
  }

  /** (Re)starts the heartbeat at the period the follower's silence asks for. */
  private beat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeat();
    this.heartbeatTimer = setInterval(
      () => this.heartbeat(),
      heartbeatPeriodMs(this.silenceMs, HEARTBEAT_MS),
    );
  }

  private describe(): string {
    return this.link.name === '' ? this.link.address : `${this.link.name} (${this.link.address})`;
  }

  private async refuse(code: string, reason: string): Promise<undefined> {
    this.options.log.warn(`replication: refused follower ${this.describe()}: ${reason}`);
    await this.peer.finish({ t: 'refused', code, reason });
    return undefined;
  }

  /** The handshake; answers the seq the stream starts after (or undefined when it ends here). */
  private async handshake(): Promise<number | undefined> {
    const { storage, secret, nodeName } = this.options;
    const hello = (await this.peer.receive(['hello'], HANDSHAKE_TIMEOUT_MS)) as MessageOf<'hello'>;
    this.link.name = hello.node;
    if (hello.protocol !== PROTOCOL_VERSION) {
      return this.refuse(
        'ERR_REPLICATION_PROTOCOL',
        `this leader speaks replication protocol ${PROTOCOL_VERSION}; the follower speaks ${hello.protocol}: run the same docdb version on both`,
      );
    }
    checkHello(hello);
    this.tag = hello.tag;
    const { term } = storage.nodeState();
    const nonce = newNonce();
    await this.peer.send({
      t: 'challenge',
      protocol: PROTOCOL_VERSION,
      node: nodeName,
      term,
      tag: storage.termTag() ?? 0,
      nonce,
      secret: secret !== undefined,
    });
    const auth = (await this.peer.receive(['auth'], HANDSHAKE_TIMEOUT_MS)) as MessageOf<'auth'>;
    const binding = this.peer.binding;
    if (secret !== undefined) {
      if (!auth.proof) {
        return this.refuse(
          'ERR_REPLICATION_AUTH',
          'this leader requires the replication secret and the follower sent no proof of it; set --replication-secret (or sharedSecret) on the follower',
        );
      }
      if (!checkProof(secret, 'follower', nonce, auth.proof, binding)) {
        return this.refuse(
          'ERR_REPLICATION_AUTH',
          "the follower's replication secret does not match the leader's",
        );
      }
    }
    const proof =
      secret === undefined ? {} : { proof: proofOf(secret, 'leader', hello.nonce, binding) };
    if (hello.notice) return this.takeNotice(hello, proof);
    if (hello.term > term) {
      this.options.onHigherTerm(hello.term, this.describe());
      return this.refuse(
        'ERR_REPLICATION_STALE_LEADER',
        `this leader's ${describeTerm(term)} is older than the follower's ${describeTerm(hello.term)}: another node was promoted since; this node has turned read-only`,
      );
    }
    const fork = await this.findFork(hello);
    const position = storage.nodeState();
    const plan = planCatchUp(position.seqFloor, hello, fork.fork);
    if (plan.rollbackAfter !== undefined) this.diverged(hello, fork, plan.rollbackAfter);
    // Recorded before the welcome that arms the follower's watch (lease.ts).
    this.options.lease.join(hello.node, hello.silenceMs);
    this.silenceMs = hello.silenceMs;
    // Keep what the follower still needs from trims before telling it where it starts.
    this.hold = storage.holdChanges(plan.catchUp === 'log' ? plan.after : position.lastSeq);
    const { tag } = hello;
    const tagTaken = tag === storage.termTag() || this.leader.tagsBut(this).has(tag);
    await this.peer.send({
      t: 'welcome',
      node: nodeName,
      term: position.term,
      lastSeq: position.lastSeq,
      catchUp: plan.catchUp,
      ...proof,
      ...(this.options.httpUrl && { httpUrl: this.options.httpUrl }),
      ...(plan.rollbackAfter !== undefined && { rollbackAfter: plan.rollbackAfter }),
      ...(tagTaken && { tagTaken }),
    });
    this.link.state = plan.catchUp === 'snapshot' ? 'snapshot' : 'streaming';
    this.startAfter = plan.catchUp === 'log' ? plan.after : 0;
    this.link.acknowledgedSeq = this.startAfter;
    this.link.sentSeq = this.startAfter;
    this.options.log.info(
      `replication: follower ${this.describe()} joined at seq ${hello.seq}; catching up from ${
        plan.catchUp === 'log' ? `the log after ${plan.after}` : 'a snapshot'
      }${plan.rollbackAfter === undefined ? '' : `; it rolls back its entries after ${plan.rollbackAfter}`}`,
    );
    return plan.after;
  }

  /**
   * Finds where the follower's history parts from this one: from both term histories, and
   * by the hash chain, asking the follower for its links at a few seqs when they must decide.
   */
  private async findFork(
    hello: MessageOf<'hello'>,
  ): Promise<Exclude<ForkStep, { probe: number[] }>> {
    const { storage } = this.options;
    const { lastSeq, seqFloor } = storage.nodeState();
    const search = new ForkSearch(
      { lastSeq, seqFloor, runs: storage.termRuns(), chainAt: (seq) => storage.chainAt(seq) },
      { lastSeq: hello.seq, runs: hello.runs, lastChain: hello.lastChain },
    );
    for (let round = 0; round < FORK_ROUNDS_MAX; round++) {
      const step = search.next();
      if (!('probe' in step)) return step;
      await this.peer.send({ t: 'probe', seqs: step.probe });
      const answer = (await this.peer.receive(
        ['chains'],
        HANDSHAKE_TIMEOUT_MS,
      )) as MessageOf<'chains'>;
      search.take(answer.samples);
    }
    throw dbError('ERR_REPLICATION_PROTOCOL', 'forkSearchTooLong', { limit: FORK_ROUNDS_MAX });
  }

  /** A follower's history parted from this leader's: never silent (log, status, metrics). */
  private diverged(
    hello: MessageOf<'hello'>,
    fork: Exclude<ForkStep, { probe: number[] }>,
    after: number,
  ): void {
    const { counters, log } = this.options;
    counters.divergences++;
    const where =
      fork.fork === undefined
        ? `at a point that cannot be placed (${fork.why})`
        : `after seq ${fork.fork} (found by ${fork.by === 'terms' ? 'the term histories' : 'the hash chain'})`;
    log.warn(
      `replication: the history of follower ${this.describe()} (last seq ${hello.seq}) parted from this leader's ${where}: it rolls back its ${hello.seq - after} entries after seq ${after} into rollback files and loads a snapshot`,
    );
  }

  /**
   * A promoted node's notice: the older of the two terms stops taking writes. Answers with
   * this node's term and proof; when this node is the older, it is fenced once the answer is
   * on its way (fencing may close this very listener to follow the sender).
   */
  private async takeNotice(
    hello: MessageOf<'hello'>,
    proof: { proof?: Uint8Array },
  ): Promise<undefined> {
    const { term } = this.options.storage.nodeState();
    const notice = hello.notice as NonNullable<MessageOf<'hello'>['notice']>;
    const fenced = hello.term > term;
    await this.peer.finish({ t: 'noticed', term, fenced, ...proof });
    if (fenced) {
      const host = (this.peer.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
      this.options.onHigherTerm(hello.term, `${hello.node} (its notice)`, {
        address: notice.address ?? `${host.includes(':') ? `[${host}]` : host}:${notice.port}`,
        httpUrl: notice.httpUrl,
        silenceMs: notice.silenceMs,
      });
    }
    return undefined;
  }

  /** Sends every collection, its indexes and documents at one seq; answers that seq. */
  private async sendSnapshot(): Promise<number> {
    const { storage, counters } = this.options;
    const snapshot = storage.openFileSnapshot();
    try {
      this.hold?.release();
      this.hold = storage.holdChanges(snapshot.seq);
      counters.snapshotsSent++;
      await this.peer.send({
        t: 'snapshot',
        seq: snapshot.seq,
        term: snapshot.term,
        lastTerm: snapshot.lastTerm,
        ...(snapshot.lastChain !== undefined && { lastChain: snapshot.lastChain }),
        runs: [...snapshot.runs],
        collections: snapshot.collections.map((c) => ({ name: c.name, indexes: c.indexes })),
      });
      this.beat();
      for (const { name } of snapshot.collections) {
        let batch: Array<{ id: string; doc: unknown }> = [];
        for (const document of snapshot.documents(name)) {
          batch.push(document);
          if (batch.length >= REPLICATION_SNAPSHOT_BATCH_DOCS) {
            await this.peer.send({ t: 'documents', collection: name, documents: batch });
            batch = [];
          }
        }
        if (batch.length > 0) {
          await this.peer.send({ t: 'documents', collection: name, documents: batch });
        }
      }
      await this.peer.send({ t: 'snapshotEnd', seq: snapshot.seq });
      this.link.sentSeq = snapshot.seq;
      return snapshot.seq;
    } finally {
      snapshot.release();
    }
  }

  /**
   * Pushes entries after `after` as they commit, until the connection ends: the bytes the log
   * stores, each frame after the shared structures its documents need (protocol 3).
   */
  private async stream(after: number): Promise<void> {
    const { storage, counters } = this.options;
    let next = after;
    let told: readonly Structure[] = [];
    while (this.peer.open) {
      if (this.restartAfter !== undefined) {
        next = this.restartAfter;
        this.restartAfter = undefined;
      }
      const { seqFloor } = storage.nodeState();
      if (next < seqFloor) {
        throw dbError('ERR_CHANGES_TRIMMED', 'followerBehindFloor', { next, seqFloor });
      }
      const batch: Uint8Array[] = [];
      let bytes = 0;
      for (const entry of storage.storedChangesAfter(next)) {
        batch.push(entry.bytes);
        bytes += entry.bytes.length;
        next = entry.seq;
        if (bytes >= REPLICATION_BATCH_BYTES) break;
      }
      if (batch.length > 0) {
        // Read in the same turn as the entries: every structure they use is among these.
        const structures = storage.sharedStructures();
        const from = structures === told ? structures.length : firstChange(told, structures);
        if (from < structures.length) {
          await this.peer.send({ t: 'structures', from, structures: structures.slice(from) });
        }
        told = structures;
        await this.peer.send({ t: 'entries', entries: batch });
        this.link.sentSeq = next;
        counters.entriesSent += batch.length;
        counters.bytesSent += bytes;
        continue;
      }
      await storage.whenCommittedAfter(next, this.wake.signal);
      if (this.wake.signal.aborted && this.peer.open) this.wake = new AbortController();
    }
  }

  private heartbeat(): void {
    const { lastSeq, term } = this.options.storage.nodeState();
    const stampMs = Math.floor(performance.now());
    const held = this.options.lease.holds(this.link.name);
    this.peer
      .send({ t: 'heartbeat', seq: lastSeq, term, atMs: Date.now(), stampMs, held })
      .catch(() => {});
  }

  /** Takes acknowledgements and requests to resend, until the connection ends. */
  private async receiveLoop(): Promise<void> {
    while (this.peer.open) {
      let message: MessageOf<'ack'> | MessageOf<'resend'>;
      try {
        message = (await this.peer.receive(['ack', 'resend'])) as typeof message;
      } catch (error) {
        if (this.peer.open) this.stop(error as Error);
        return;
      }
      if (message.t === 'ack') {
        this.takeAck(message);
      } else {
        this.link.gaps++;
        this.options.counters.gaps++;
        this.restartAfter = message.after;
        this.wake.abort();
      }
    }
  }

  private takeAck(ack: MessageOf<'ack'>): void {
    if (ack.seq > this.link.acknowledgedSeq) {
      this.link.acknowledgedSeq = ack.seq;
      this.hold?.move(ack.seq);
    }
    if (ack.seq > this.startAfter && ack.seq > this.confirmed) {
      this.confirmed = ack.seq;
      this.leader.acked();
    }
    this.options.lease.renew(this.link.name, ack.silenceMs, ack.echoMs);
    if (ack.silenceMs !== this.silenceMs) {
      this.silenceMs = ack.silenceMs;
      this.beat();
    }
  }
}

/**
 * The first id at which `now` differs from the structures a follower was told: they only
 * grow, but a list read again after a failed commit is checked rather than trusted.
 */
function firstChange(told: readonly Structure[], now: readonly Structure[]): number {
  const common = Math.min(told.length, now.length);
  for (let id = 0; id < common; id++) {
    const a = told[id] as Structure;
    const b = now[id] as Structure;
    if (a.length !== b.length || a.some((key, k) => key !== b[k])) return id;
  }
  return common;
}

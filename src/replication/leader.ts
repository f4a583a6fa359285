/**
 * The leader's side: a TCP (or TLS) listener on the replication port and one session per
 * follower. A session checks the hello, proves and checks the shared secret, decides where
 * the follower catches up (catch-up.ts), sends a snapshot when it must, then pushes entries
 * as they commit (no polling), a heartbeat every second, and takes acknowledgements: they
 * move the follower's retention hold and release writes waiting for `syncFollowers`. It
 * never writes data; a follower with a higher term makes it call `onHigherTerm`.
 */

import * as net from 'node:net';
import * as tls from 'node:tls';
import { type Database, encodeEntry } from '../engine/index.js';
import { DbError } from '../errors/index.js';
import type { FollowerLink } from '../types/index.js';
import {
  REPLICATION_BATCH_BYTES,
  REPLICATION_FOLLOWERS_MAX,
  REPLICATION_SNAPSHOT_BATCH_DOCS,
} from '../util/index.js';
import { planCatchUp } from './catch-up.js';
import { checkProof, newNonce, proofOf } from './handshake.js';
import type { ReplicationCounters, ReplicationLog } from './log.js';
import { Peer } from './peer.js';
import { type MessageOf, PROTOCOL_VERSION } from './protocol.js';
import { HANDSHAKE_TIMEOUT_MS, HEARTBEAT_MS } from './timing.js';

export interface LeaderOptions {
  db: Database;
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
  /** A follower showed a newer term than this node's: this leader is stale. */
  onHigherTerm(term: number, follower: string): void;
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
          new DbError(
            'ERR_BAD_ARGUMENT',
            error.code === 'EADDRINUSE'
              ? `replication port ${options.port} is already in use; pick another`
              : `cannot listen on replication port ${options.port} (${error.code ?? error.message})`,
          ),
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

  /** How many connected followers have acknowledged `seq`. */
  ackedBy(seq: number): number {
    let count = 0;
    for (const session of this.sessions) if (session.link.acknowledgedSeq >= seq) count++;
    return count;
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
    for (const session of this.sessions) session.stop('the leader stopped replicating');
    await closed;
  }
}

class LeaderSession {
  readonly link: FollowerLink;
  private readonly stopper = new AbortController();
  private hold: ReturnType<Database['holdChanges']> | undefined;
  /** Set when the follower asked again from a seq (a gap): the stream restarts there. */
  private restartAfter: number | undefined;
  private wake = new AbortController();

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

  stop(reason: string): void {
    this.peer.close(new DbError('ERR_REPLICATION_CONNECTION', reason));
  }

  async run(): Promise<void> {
    const { log } = this.options;
    let heartbeat: NodeJS.Timeout | undefined;
    try {
      const start = await this.handshake();
      if (start === undefined) return;
      let after = start;
      heartbeat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
      void this.receiveLoop();
      if (this.link.state === 'snapshot') after = await this.sendSnapshot();
      this.link.state = 'streaming';
      await this.stream(after);
    } catch (error) {
      if (this.peer.open) {
        log.warn(`replication: follower ${this.describe()}: ${(error as Error).message}`);
        this.stop((error as Error).message);
      }
    } finally {
      if (heartbeat) clearInterval(heartbeat);
      this.hold?.release();
      if (this.link.name !== '') {
        const why = this.peer.endReason?.message ?? 'the session ended';
        log.info(`replication: follower ${this.describe()} disconnected (${why})`);
      }
    }
  }

  private describe(): string {
    return this.link.name === '' ? this.link.address : `${this.link.name} (${this.link.address})`;
  }

  private async refuse(code: string, reason: string): Promise<undefined> {
    this.options.log.warn(`replication: refused follower ${this.describe()}: ${reason}`);
    await this.peer.finish({ t: 'refused', code, reason });
    return undefined;
  }

  /** The handshake; answers the seq the stream starts after (or undefined when refused). */
  private async handshake(): Promise<number | undefined> {
    const { db, secret, nodeName } = this.options;
    const hello = (await this.peer.receive(['hello'], HANDSHAKE_TIMEOUT_MS)) as MessageOf<'hello'>;
    this.link.name = hello.node;
    if (hello.protocol !== PROTOCOL_VERSION) {
      return this.refuse(
        'ERR_REPLICATION_PROTOCOL',
        `this leader speaks replication protocol ${PROTOCOL_VERSION}; the follower speaks ${hello.protocol}`,
      );
    }
    const { term } = db.nodeState();
    if (hello.term > term) {
      this.options.onHigherTerm(hello.term, this.describe());
      return this.refuse(
        'ERR_REPLICATION_STALE_LEADER',
        `this leader's term ${term} is older than the follower's term ${hello.term}: another node was promoted since; this node has turned read-only`,
      );
    }
    const nonce = newNonce();
    await this.peer.send({
      t: 'challenge',
      protocol: PROTOCOL_VERSION,
      node: nodeName,
      term,
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
    const plan = planCatchUp(db, hello);
    const position = db.nodeState();
    // Keep what the follower still needs from trims before telling it where it starts.
    this.hold = db.holdChanges(plan.catchUp === 'log' ? plan.after : position.lastSeq);
    await this.peer.send({
      t: 'welcome',
      node: nodeName,
      term: position.term,
      lastSeq: position.lastSeq,
      catchUp: plan.catchUp,
      ...(secret !== undefined && { proof: proofOf(secret, 'leader', hello.nonce, binding) }),
      ...(this.options.httpUrl && { httpUrl: this.options.httpUrl }),
      ...(plan.rollbackAfter !== undefined && { rollbackAfter: plan.rollbackAfter }),
    });
    this.link.state = plan.catchUp === 'snapshot' ? 'snapshot' : 'streaming';
    this.link.acknowledgedSeq = plan.catchUp === 'log' ? plan.after : 0;
    this.link.sentSeq = this.link.acknowledgedSeq;
    this.options.log.info(
      `replication: follower ${this.describe()} joined at seq ${hello.seq}; catching up from ${
        plan.catchUp === 'log' ? `the log after ${plan.after}` : 'a snapshot'
      }${plan.rollbackAfter === undefined ? '' : `; it rolls back its entries after ${plan.rollbackAfter}`}`,
    );
    return plan.after;
  }

  /** Sends every collection, its indexes and documents at one seq; answers that seq. */
  private async sendSnapshot(): Promise<number> {
    const { db, counters } = this.options;
    const snapshot = db.openFileSnapshot();
    try {
      this.hold?.release();
      this.hold = db.holdChanges(snapshot.seq);
      counters.snapshotsSent++;
      await this.peer.send({
        t: 'snapshot',
        seq: snapshot.seq,
        term: snapshot.term,
        lastTerm: snapshot.lastTerm,
        collections: snapshot.collections.map((c) => ({ name: c.name, indexes: c.indexes })),
      });
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

  /** Pushes entries after `after` as they commit, until the connection ends. */
  private async stream(after: number): Promise<void> {
    const { db, counters } = this.options;
    let next = after;
    while (this.peer.open) {
      if (this.restartAfter !== undefined) {
        next = this.restartAfter;
        this.restartAfter = undefined;
      }
      const { seqFloor } = db.nodeState();
      if (next < seqFloor) {
        throw new DbError(
          'ERR_CHANGES_TRIMMED',
          `the follower needs the entries after ${next} but the log starts after ${seqFloor}; it catches up from a snapshot when it reconnects`,
        );
      }
      const batch: Uint8Array[] = [];
      let bytes = 0;
      for (const entry of db.changesSince(next)) {
        const encoded = encodeEntry(entry);
        batch.push(encoded);
        bytes += encoded.length;
        next = entry.seq;
        if (bytes >= REPLICATION_BATCH_BYTES) break;
      }
      if (batch.length > 0) {
        await this.peer.send({ t: 'entries', entries: batch });
        this.link.sentSeq = next;
        counters.entriesSent += batch.length;
        counters.bytesSent += bytes;
        continue;
      }
      await db.whenCommittedAfter(next, this.wake.signal);
      if (this.wake.signal.aborted && this.peer.open) this.wake = new AbortController();
    }
  }

  private heartbeat(): void {
    const { lastSeq, term } = this.options.db.nodeState();
    this.peer.send({ t: 'heartbeat', seq: lastSeq, term, atMs: Date.now() }).catch(() => {});
  }

  /** Takes acknowledgements and requests to resend, until the connection ends. */
  private async receiveLoop(): Promise<void> {
    while (this.peer.open) {
      let message: MessageOf<'ack'> | MessageOf<'resend'>;
      try {
        message = (await this.peer.receive(['ack', 'resend'])) as typeof message;
      } catch (error) {
        if (this.peer.open) this.stop((error as Error).message);
        return;
      }
      if (message.t === 'ack') {
        if (message.seq > this.link.acknowledgedSeq) {
          this.link.acknowledgedSeq = message.seq;
          this.hold?.move(message.seq);
          this.leader.acked();
        }
      } else {
        this.link.gaps++;
        this.options.counters.gaps++;
        this.restartAfter = message.after;
        this.wake.abort();
      }
    }
  }
}

/**
 * The follower's side: connects to the leader (TLS when the node has TLS), says hello with
 * its last seq, hash-chain link, term history, term tag and auto-failover silence, proves
 * and checks the shared secret, refuses a leader of an older term, answers the leader's
 * probes for its links (where their histories part), rolls back what the leader says it
 * never had, loads a snapshot when told, then applies pushed entries in seq order through
 * the write gate's replication bypass and acknowledges them (the bytes of the leader's log,
 * read with the shared structures it tells; entries that arrive while a run waits for its
 * write join it), and answers every heartbeat
 * with an ack that echoes its stamp (the leader's lease, lease.ts). A seq that is not the
 * next one is a gap: counted, never applied, asked for again. Any failure ends the
 * connection; it reconnects with backoff and jitter.
 */

import * as path from 'node:path';
import { assert, type DbError, dbError } from '../errors/index.js';
import type { Document, FollowerView } from '../types/index.js';
import { checkProof, introduce, refusedBy } from './handshake.js';
import type { ReplicationCounters, ReplicationLog } from './log.js';
import { connectPeer, type Peer } from './peer.js';
import type { LeaderStructures, PeerEntry, ReplicationStorage } from './port.js';
import type { MessageOf } from './protocol.js';
import { writeRollbackFile } from './rollback.js';
import { describeTerm, drawTag } from './terms.js';
import {
  CONNECT_TIMEOUT_MS,
  HANDSHAKE_TIMEOUT_MS,
  LEADER_SILENCE_RECONNECT_MS,
  reconnectCapMs,
  reconnectDelayMs,
  sleep,
} from './timing.js';

export interface FollowerOptions {
  storage: ReplicationStorage;
  nodeName: string;
  host: string;
  port: number;
  /** When set, the leader must prove it knows it, and this follower proves it too. */
  secret?: string | undefined;
  /** Connect with TLS (the node has TLS configured, so its leader has too). */
  tls?: boolean;
  log: ReplicationLog;
  counters: ReplicationCounters;
  /** The leader told where clients send writes (its HTTP address). */
  onLeaderUrl(url: string): void;
  /** This node's auto-failover silence in ms, 0 while it does not watch (told to the leader). */
  silenceMs(): number;
}

export type { FollowerView } from '../types/index.js';

/** A snapshot load logs its progress every this many documents. */
const SNAPSHOT_PROGRESS_DOCS = 100_000;

/**
 * Runs of entries a follower has queued or applying before it reads more (bounds memory); a
 * run holds what arrived before its write ran, about one turn of the event loop.
 */
const APPLIES_IN_FLIGHT_MAX = 16;

export class ReplicationFollower {
  private readonly stopper = new AbortController();
  private peer: Peer | undefined;
  private running: Promise<void> | undefined;
  private attempt = 0;
  private view: FollowerView;
  /** performance.now() of the last message from the leader (or of the start). */
  lastContactMs = performance.now();
  /**
   * True while the leader's last heartbeat said it holds this follower's lease (written where
   * a restart of the leader finds it): only then may auto-failover promote this node. A
   * follower that never reached its leader, or whose silence the leader has not recorded yet,
   * stays unarmed: the leader may still be acknowledging writes.
   */
  armed = false;
  /** The stamp of the last heartbeat received, echoed in acks (the leader's lease). */
  private lastStampMs: number | undefined;
  /** The next seq this follower expects. */
  private expected = 1;
  /** The last gap asked for again, so one gap is asked once. */
  private askedAfter = -1;
  /** The entries of a write of several received so far (its `endSeq` not yet reached). */
  private group: PeerEntry[] = [];
  /** The run of complete writes whose apply is queued and not yet running: new ones join it. */
  private run: PeerEntry[] | undefined;
  /** The leader's shared structures, as this session told them. */
  private structures: LeaderStructures;
  private applying: Promise<void> = Promise.resolve();
  private appliesInFlight = 0;
  /** Set when this node's data cannot continue from its log: the next hello asks for a snapshot. */
  private needSnapshot: boolean;

  constructor(private readonly options: FollowerOptions) {
    this.structures = options.storage.newLeaderStructures();
    this.view = {
      leader: `${options.host}:${options.port}`,
      leaderName: null,
      connected: false,
      state: 'connecting',
      leaderTerm: null,
      leaderSeq: null,
      appliedSeq: options.storage.nodeState().lastSeq,
      lagEntries: null,
      lastLeaderContactAt: null,
      gaps: 0,
      reconnects: 0,
      lastError: null,
      rollbacks: [],
      snapshot: null,
    };
    this.needSnapshot = options.storage.snapshotLoadPending() !== undefined;
  }

  /** The leader it follows: where, and its name once a handshake told it. */
  target(): { host: string; port: number; name: string | null } {
    return { host: this.options.host, port: this.options.port, name: this.view.leaderName };
  }

  /** The follower's state, as a copy. */
  status(): FollowerView {
    const { leaderSeq, appliedSeq } = this.view;
    return {
      ...this.view,
      lagEntries: leaderSeq === null ? null : Math.max(0, leaderSeq - appliedSeq),
      rollbacks: [...this.view.rollbacks],
      snapshot: this.view.snapshot && { ...this.view.snapshot },
    };
  }

  /**
   * Whether this follows the leader at host:port, and if so whether with `secret` (undefined:
   * none): a node told the secret its leader asks for reconnects with it (replication.ts).
   */
  follows(host: string, port: number, secret: string | undefined): 'no' | 'otherSecret' | 'same' {
    const { options } = this;
    if (options.host !== host || options.port !== port) return 'no';
    return options.secret === secret ? 'same' : 'otherSecret';
  }

  /** Starts following; reconnects until stopped. */
  start(): void {
    this.running ??= this.loop();
  }

  /**
   * Stops following and waits until every entry received is applied (or failed). With
   * `release`, it first tells the leader it no longer watches it, so the leader's lease no
   * longer waits for it (a node shutting down; never a promotion, which must let it lapse).
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.stopper.abort();
    const peer = this.peer;
    if (options.release && peer?.open && this.view.state === 'streaming') {
      await peer.finish(this.ack(this.view.appliedSeq, 0)).catch(() => {});
    }
    peer?.close(dbError('ERR_REPLICATION_CONNECTION', 'followerStopped'));
    await this.running;
    await this.applying.catch(() => {});
    this.view.state = 'stopped';
    this.view.connected = false;
  }

  private get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private async loop(): Promise<void> {
    const { log } = this.options;
    let sessions = 0;
    while (!this.stopped) {
      if (sessions++ > 0) {
        this.options.counters.reconnects++;
        this.view.reconnects++;
      }
      try {
        const peer = await this.connect();
        this.peer = peer;
        await this.session(peer);
      } catch (error) {
        if (!this.stopped) {
          const message = (error as Error).message;
          if (message !== this.view.lastError) log.warn(`replication: ${message}`);
          this.view.lastError = message;
        }
      }
      this.peer?.close();
      await this.applying.catch(() => {});
      this.view.connected = false;
      this.view.snapshot = null;
      if (this.stopped) break;
      this.view.state = 'connecting';
      const capMs = reconnectCapMs(this.options.silenceMs());
      await sleep(reconnectDelayMs(this.attempt++, Math.random, capMs), this.stopper.signal);
    }
  }

  private connect(): Promise<Peer> {
    const { host, port } = this.options;
    return connectPeer(host, port, {
      tls: this.options.tls === true,
      timeoutMs: CONNECT_TIMEOUT_MS,
      what: 'the leader',
    });
  }

  /**
   * This node started or stopped watching its leader: tells the leader at once, so it holds
   * (and arms this follower) or releases the lease without waiting for the next heartbeat.
   */
  silenceChanged(): void {
    const peer = this.peer;
    if (!peer?.open || !this.view.connected) return;
    const seq = this.view.state === 'streaming' ? this.view.appliedSeq : 0;
    peer.send(this.ack(seq)).catch(() => {});
  }

  /** An ack of `seq`, with this node's silence and the last heartbeat's stamp. */
  private ack(seq: number, silenceMs = this.options.silenceMs()): MessageOf<'ack'> {
    const echo = this.lastStampMs;
    return { t: 'ack', seq, silenceMs, ...(echo !== undefined && { echoMs: echo }) };
  }

  /** One connection's life: the handshake, a catch-up, then entries until it ends. */
  private async session(peer: Peer): Promise<void> {
    const welcome = await this.handshake(peer);
    this.attempt = 0;
    this.view.connected = true;
    this.view.lastError = null;
    this.lastStampMs = undefined;
    this.touch();
    const { storage, log } = this.options;
    this.view.leaderName = welcome.node;
    this.view.leaderTerm = welcome.term;
    this.view.leaderSeq = welcome.lastSeq;
    if (welcome.httpUrl) this.options.onLeaderUrl(welcome.httpUrl);
    if (welcome.term > storage.nodeState().term) await storage.setTerm(welcome.term);
    if (welcome.tagTaken) await this.drawTag();
    log.info(
      `replication: following ${welcome.node} at ${this.view.leader} (${describeTerm(welcome.term)}, seq ${welcome.lastSeq}); catching up from ${welcome.catchUp === 'log' ? 'the log' : 'a snapshot'}`,
    );
    if (welcome.rollbackAfter !== undefined) this.rollBack(welcome.rollbackAfter, welcome);
    if (welcome.catchUp === 'snapshot') await this.loadSnapshot(peer);
    this.view.state = 'streaming';
    this.expected = storage.nodeState().lastSeq + 1;
    this.view.appliedSeq = this.expected - 1;
    this.askedAfter = -1;
    this.group = [];
    this.run = undefined;
    this.structures = this.options.storage.newLeaderStructures();
    await peer.send(this.ack(this.view.appliedSeq));
    while (peer.open && !this.stopped) {
      const message = (await peer.receive(
        ['entries', 'structures', 'heartbeat'],
        LEADER_SILENCE_RECONNECT_MS,
      )) as MessageOf<'entries'> | MessageOf<'structures'> | MessageOf<'heartbeat'>;
      this.touch();
      if (message.t === 'heartbeat') {
        this.answerHeartbeat(peer, message, this.view.appliedSeq);
        continue;
      }
      if (message.t === 'structures') {
        this.structures.take(message.from, message.structures);
        continue;
      }
      this.takeEntries(peer, message.entries);
      if (this.appliesInFlight >= APPLIES_IN_FLIGHT_MAX) await this.applying;
    }
  }

  /** Takes a heartbeat and answers it with an ack of `seq` echoing its stamp (the lease). */
  private answerHeartbeat(peer: Peer, heartbeat: MessageOf<'heartbeat'>, seq: number): void {
    this.view.leaderSeq = heartbeat.seq;
    this.lastStampMs = heartbeat.stampMs;
    this.armed = heartbeat.held;
    peer.send(this.ack(seq)).catch(() => {});
  }

  private touch(): void {
    this.lastContactMs = performance.now();
    this.view.lastLeaderContactAt = new Date().toISOString();
  }

  /** This node's term tag clashed with another node's: it draws a new one. */
  private async drawTag(): Promise<void> {
    const { storage, log } = this.options;
    const tag = drawTag(new Set([storage.termTag() ?? 0]));
    await storage.setTermTag(tag);
    log.info(`replication: this node's term tag was another node's; it drew a new one (${tag})`);
  }

  private async handshake(peer: Peer): Promise<MessageOf<'welcome'>> {
    const { storage, secret, nodeName } = this.options;
    const position = storage.nodeState();
    const { challenge, nonce } = await introduce(
      peer,
      {
        node: nodeName,
        seq: position.lastSeq,
        ...(position.lastChain !== undefined && { lastChain: position.lastChain }),
        runs: [...storage.termRuns()],
        term: position.term,
        tag: storage.termTag() ?? 0,
        silenceMs: this.options.silenceMs(),
        ...(this.needSnapshot && { resync: true }),
      },
      { secret, timeoutMs: HANDSHAKE_TIMEOUT_MS },
    );
    // Proved to it all the same: a stale leader learns of the newer term and turns read-only.
    if (challenge.term < position.term) {
      throw dbError('ERR_REPLICATION_STALE_LEADER', 'olderTerm', {
        leader: this.view.leader,
        node: challenge.node,
        term: describeTerm(challenge.term),
        ourTerm: describeTerm(position.term),
      });
    }
    const binding = peer.binding;
    let welcome = await peer.receive(['probe', 'welcome', 'refused'], HANDSHAKE_TIMEOUT_MS);
    // The leader asks for this node's links where their histories may part (fork.ts).
    while (welcome.t === 'probe') {
      const samples = welcome.seqs.map((seq) => {
        const chain = storage.chainAt(seq);
        return chain === undefined ? { seq } : { seq, chain };
      });
      await peer.send({ t: 'chains', samples });
      welcome = await peer.receive(['probe', 'welcome', 'refused'], HANDSHAKE_TIMEOUT_MS);
    }
    if (welcome.t === 'refused') throw refusedBy(this.view.leader, welcome);
    assert(welcome.t === 'welcome', `a proof was answered with ${welcome.t}`);
    if (secret !== undefined && !checkProof(secret, 'leader', nonce, welcome.proof, binding)) {
      throw dbError('ERR_REPLICATION_AUTH', 'leaderProof', {
        leader: this.view.leader,
        enforced: welcome.proof ? '' : ' (it enforces none)',
      });
    }
    return welcome;
  }

  /**
   * Writes this node's entries after `after` to a rollback file (the snapshot then undoes
   * them). Refuses when its log no longer holds all of them: the rest would be lost unseen.
   */
  private rollBack(after: number, welcome: MessageOf<'welcome'>): void {
    const { storage, log, nodeName, counters } = this.options;
    const { seqFloor } = storage.nodeState();
    // Never silent: counted and logged whether it rolls back or refuses.
    counters.divergences++;
    if (after < seqFloor) {
      throw dbError(
        'ERR_REPLICATION_DIVERGED',
        'unrecoverable',
        { node: welcome.node, firstSeq: seqFloor + 1 },
        { rollbackAfter: after, seqFloor },
      );
    }
    const entries = [...storage.changesAfter(after)];
    if (entries.length === 0) return;
    const record = writeRollbackFile(
      path.dirname(storage.file),
      {
        node: nodeName,
        after,
        leader: `${welcome.node} (${this.view.leader})`,
        leaderTerm: welcome.term,
      },
      entries,
    );
    this.view.rollbacks.push(record);
    log.warn(
      `replication: rolling back ${record.entries} entries (seqs ${after + 1}-${record.through}) that the leader ${welcome.node} never had; they are written to ${record.file}`,
    );
  }

  /** Replaces this node's data with the leader's snapshot. */
  private async loadSnapshot(peer: Peer): Promise<void> {
    const { storage, log } = this.options;
    this.view.state = 'snapshot';
    const header = (await peer.receive(
      ['snapshot'],
      LEADER_SILENCE_RECONNECT_MS,
    )) as MessageOf<'snapshot'>;
    this.touch();
    log.info(
      `replication: loading a snapshot of ${header.collections.length} collections at seq ${header.seq}`,
    );
    this.needSnapshot = true;
    const { seq, term, lastTerm, lastChain, runs } = header;
    const progress = { seq, documents: 0 };
    this.view.snapshot = progress;
    const load = await storage.startSnapshotLoad({ seq, term, lastTerm, lastChain, runs });
    for (const collection of header.collections) {
      await load.addCollection(collection.name, collection.indexes);
    }
    for (;;) {
      const message = await peer.receive(
        ['documents', 'snapshotEnd', 'heartbeat'],
        LEADER_SILENCE_RECONNECT_MS,
      );
      this.touch();
      if (message.t === 'heartbeat') {
        // A long load must not let the leader's lease lapse; its ack claims no seq (0): the
        // data is partial until the load finishes.
        this.answerHeartbeat(peer, message, 0);
      } else if (message.t === 'documents') {
        await load.insert(
          message.collection,
          message.documents as Array<{ id: string; doc: Document }>,
        );
        const before = progress.documents;
        progress.documents += message.documents.length;
        const step = SNAPSHOT_PROGRESS_DOCS;
        if (Math.floor(progress.documents / step) > Math.floor(before / step)) {
          log.info(`replication: snapshot at seq ${seq}: ${progress.documents} documents loaded`);
        }
      } else if (message.t === 'snapshotEnd') {
        break;
      }
    }
    await load.finish();
    this.needSnapshot = false;
    this.view.snapshot = null;
    log.info(`replication: snapshot loaded at seq ${seq}: ${progress.documents} documents`);
  }

  /** Takes one frame of entries: in order, each once, complete writes applied together. */
  private takeEntries(peer: Peer, frames: Uint8Array[]): void {
    const ready: PeerEntry[] = [];
    for (const bytes of frames) {
      this.options.counters.bytesReceived += bytes.length;
      const received = this.options.storage.readPeerEntry(bytes);
      const { seq, endSeq } = received.entry;
      // Already received: a resend overlaps what came before. Applying it twice is refused by
      // the log, so it is dropped here.
      if (seq < this.expected) continue;
      if (seq > this.expected) {
        this.gap(peer);
        break;
      }
      this.group.push(received);
      this.expected++;
      if (endSeq === undefined || seq >= endSeq) {
        // Loops, not spreads: one UPDATE of 150k documents is a group of 150k entries, past
        // the stack's room for arguments.
        for (const entry of this.group) ready.push(entry);
        this.group = [];
      }
    }
    if (ready.length > 0) this.apply(peer, ready);
  }

  private gap(peer: Peer): void {
    const after = this.expected - 1 - this.group.length;
    if (after === this.askedAfter) return;
    this.askedAfter = after;
    this.view.gaps++;
    this.options.counters.gaps++;
    this.options.log.warn(
      `replication: a gap after seq ${after}; asking the leader for the entries after it again`,
    );
    this.expected = after + 1;
    this.group = [];
    peer.send({ t: 'resend', after }).catch(() => {});
  }

  /**
   * Applies complete writes in seq order. Those that arrive before the queued apply's write
   * runs join its run: one commit and one durability wait for all (group apply), acknowledged
   * together once durable.
   */
  private apply(peer: Peer, entries: PeerEntry[]): void {
    if (this.run) {
      for (const entry of entries) this.run.push(entry);
      return;
    }
    const { storage, counters } = this.options;
    const run = entries;
    this.run = run;
    const take = () => {
      if (this.run === run) this.run = undefined;
      return run;
    };
    this.appliesInFlight++;
    const applied = storage.applyPeerEntries(take, this.structures).then(
      () => {
        this.appliesInFlight--;
        const last = (run.at(-1) as PeerEntry).entry.seq;
        this.view.appliedSeq = last;
        counters.entriesApplied += run.length;
        peer.send(this.ack(last)).catch(() => {});
      },
      (error: unknown) => {
        this.appliesInFlight--;
        take();
        const last = (run.at(-1) as PeerEntry).entry.seq;
        // Data that no longer matches the leader's cannot continue from the log.
        if ((error as DbError).code === 'ERR_CHANGE_INVALID') this.needSnapshot = true;
        peer.close(
          dbError('ERR_REPLICATION_APPLY', 'failed', {
            last,
            cause: (error as Error).message,
          }),
        );
      },
    );
    this.applying = this.applying.then(() => applied);
  }
}

/**
 * The cluster of the set part: two shards, each a replica set of three real `docdb serve`
 * members, behind a `docdb router` process, optionally with an etcd coordinator. Every
 * member's replication listener (and, with etcd, its link to etcd) sits behind a NetProxy
 * the part controls, so it can partition or slow a member. Without a coordinator the part is
 * the operator: it fences the old leader, promotes the most caught-up follower and restarts
 * the others as its followers. It watches every member's status to learn which member led in
 * which term. It moves the cluster and reads it back; it never decides whether a run passed.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { connect } from '../../src/client/index.js';
import type { ClusterConfig } from '../../src/cluster/index.js';
import { BIN, cleanEnv, START_TIMEOUT_MS, waitFor } from '../e2e/support.js';
import { DocdbNode, ROLLBACK_DIR, type ReplicationStatus } from '../failover/cluster.js';
import { startEtcd, type TestEtcd } from '../support/etcd.js';
import { NetProxy } from '../support/net-proxy.js';
import { SET_COLLECTION, SET_KEY_PATH } from './set-load.js';

/** How a set run's cluster decides who leads, and whether a write waits for a follower. */
export interface SetMode {
  name: 'operator' | 'etcd' | 'async';
  /** Followers that apply a write before it is acknowledged (--sync-followers). */
  sync: 0 | 1;
  /** Leadership by an etcd lease (issue 24) instead of the operator. */
  coordinator: boolean;
}

export const SET_MODES: readonly SetMode[] = [
  { name: 'operator', sync: 1, coordinator: false },
  { name: 'etcd', sync: 1, coordinator: true },
  { name: 'async', sync: 0, coordinator: false },
];

/** The coordinator's leader lease TTL in the etcd mode (the shortest a test etcd allows is 2 s). */
export const LEASE_SECONDS = 3;
/** A durable write waits this long for its follower before it answers 503. */
const SYNC_TIMEOUT_SECONDS = 2;
const MEMBERS_PER_SHARD = 3;
export const SHARD_NAMES = ['s1', 's2'] as const;
/** How often every member's status is read, to learn who leads in which term. */
const WATCH_INTERVAL_MS = 100;
/** From the etcd mode's fault until a new leader must be seen. */
const ELECTION_TIMEOUT_MS = LEASE_SECONDS * 1000 + 15_000;
/** From the heal until every shard has one leader and caught-up followers. */
const CONVERGE_TIMEOUT_MS = 40_000;
/** A router that does not exit within this after SIGKILL is reported. */
const ROUTER_EXIT_TIMEOUT_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * The ports this part hands out: above the e2e tests' blocks (12000–31999, where vitest
 * workers and other runs on the machine pick theirs) and below the kernel's ephemeral range
 * (32768 and up). A member's replication port is free while it follows and must still be free
 * when it is promoted minutes later; in the shared blocks another run took one (a promotion
 * refused with "port … is already in use").
 */
const OWN_PORTS = { first: 32_000, last: 32_767 };
const handedOut = new Set<number>();
let nextOwnPort = OWN_PORTS.first + Math.floor(Math.random() * (OWN_PORTS.last - OWN_PORTS.first));

/** A port of OWN_PORTS free now that this process has not handed out before. */
export async function ownPort(): Promise<number> {
  const count = OWN_PORTS.last - OWN_PORTS.first + 1;
  for (let tries = 0; tries < count; tries++) {
    const port = OWN_PORTS.first + ((nextOwnPort++ - OWN_PORTS.first) % count);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free port left from ${OWN_PORTS.first} to ${OWN_PORTS.last}`);
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** One member: its node, the proxy in front of its replication port, and its link to etcd. */
export class Member {
  constructor(
    readonly shard: string,
    readonly node: DocdbNode,
    readonly proxy: NetProxy,
    readonly etcdProxy: NetProxy | undefined,
  ) {}

  get name(): string {
    return this.node.name;
  }

  /** Cuts (`blackhole`) or slows this member's links, or heals them (`up`). */
  link(mode: 'blackhole' | 'slow' | 'up'): void {
    this.proxy.set(mode);
    if (mode !== 'slow') this.etcdProxy?.set(mode);
  }
}

/** A member's rolled-back insert: the document's `_id` and key, and the entry's stamp. */
export interface RolledBack {
  id: string;
  key: string;
  term: number;
  atMs: number;
}

/** Which member led each shard in each term, as the watch and the operator saw it. */
export class TermBook {
  private readonly leaders = new Map<string, Map<number, string>>();

  note(shard: string, term: number, member: string): void {
    const terms = this.leaders.get(shard) ?? new Map<number, string>();
    terms.set(term, member);
    this.leaders.set(shard, terms);
  }

  /** The member that led `shard` in `term`; `term N` when none was seen leading in it. */
  memberOf(shard: string, term: number): string {
    return this.leaders.get(shard)?.get(term) ?? `term ${term}`;
  }
}

/** `docdb router` as a process on a port of its own, which a restart keeps. */
class RouterProcess {
  private child: ChildProcess | undefined;
  private output = '';
  private starts = 0;

  constructor(
    readonly configFile: string,
    readonly port: number,
    /** Where each start's output is kept: `<logPrefix>-<start>.log`. */
    private readonly logPrefix: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.output = '';
    this.starts++;
    const child = spawn(BIN, ['router', '-c', this.configFile, '--port', String(this.port)], {
      cwd: path.dirname(this.configFile),
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        this.output += chunk;
      });
    }
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`the router exited:\n${this.output}`);
        return this.output.includes('docdb router listening on') ? true : undefined;
      },
      START_TIMEOUT_MS,
      () => `the router did not start:\n${this.output}`,
    );
  }

  /** SIGKILL, as a crashed router machine: requests in flight are cut. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGKILL');
      await Promise.race([exited, sleep(ROUTER_EXIT_TIMEOUT_MS)]);
    }
    fs.writeFileSync(`${this.logPrefix}-${this.starts}.log`, this.output);
  }
}

/** A replica set: its members and the one the operator (or the last look) takes as leader. */
export class ReplicaSet {
  leader: Member;

  constructor(
    readonly name: string,
    readonly members: readonly Member[],
  ) {
    this.leader = members[0] as Member;
  }

  followers(): Member[] {
    return this.members.filter((m) => m !== this.leader);
  }
}

/** What the operator did in a failover, for the figures. */
export interface Failover {
  /** When the fault began (wall clock). */
  faultAt: number;
  /** When the promoted member answered its promotion (or was first seen leading), wall clock. */
  promotedAt: number;
  /** When the other follower was back, following the promoted member (wall clock). */
  doneAt: number;
  promoted: string;
  /** The old leader's last seq when it was fenced, when it could be read. */
  oldSeq: number | undefined;
  promotedSeq: number | undefined;
}

export class SetCluster {
  readonly book = new TermBook();
  /** Each member's last status the watch read, by member name. */
  readonly lastStatus = new Map<string, ReplicationStatus>();
  private watching = true;
  private watch: Promise<void> = Promise.resolve();

  private constructor(
    readonly mode: SetMode,
    readonly sets: readonly ReplicaSet[],
    readonly router: RouterProcess,
    readonly config: ClusterConfig,
    private readonly etcd: TestEtcd | undefined,
  ) {}

  /** Starts etcd (etcd mode), six members, the router, and the watch. */
  static async open(dir: string, mode: SetMode): Promise<SetCluster> {
    const etcd = mode.coordinator ? await startEtcd({ electionTimeoutMs: 1000 }) : undefined;
    const sets: ReplicaSet[] = [];
    for (const shard of SHARD_NAMES) {
      const members: Member[] = [];
      for (let i = 0; i < MEMBERS_PER_SHARD; i++) {
        const node = await DocdbNode.create(dir, `${mode.name}-${shard}-${'abc'[i]}`, ownPort);
        const proxy = new NetProxy(node.replicationPort);
        await proxy.listen();
        let etcdProxy: NetProxy | undefined;
        if (etcd) {
          etcdProxy = new NetProxy(etcd.clientPort);
          await etcdProxy.listen();
        }
        members.push(new Member(shard, node, proxy, etcdProxy));
      }
      sets.push(new ReplicaSet(shard, members));
    }
    const config: ClusterConfig = {
      version: 1,
      router: { port: await ownPort() },
      shards: sets.map((set) => ({ name: set.name, members: set.members.map((m) => m.node.url) })),
      collections: { [SET_COLLECTION]: { strategy: 'hash', path: SET_KEY_PATH } },
    };
    const configFile = path.join(dir, `${mode.name}-cluster.json`);
    fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
    const router = new RouterProcess(
      configFile,
      config.router.port,
      path.join(dir, `${mode.name}-router`),
    );
    const cluster = new SetCluster(mode, sets, router, config, etcd);
    try {
      await Promise.all(sets.map((set) => cluster.startSet(set)));
      await router.start();
    } catch (error) {
      await cluster.close();
      throw error;
    }
    cluster.watch = cluster.watchLoop();
    return cluster;
  }

  get members(): Member[] {
    return this.sets.flatMap((set) => set.members);
  }

  setOf(shard: string): ReplicaSet {
    return this.sets.find((s) => s.name === shard) as ReplicaSet;
  }

  /** The flags of every start: where others reach the member, durable writes, etcd. */
  private flags(member: Member): string[] {
    const flags = ['--replication-advertise-address', `127.0.0.1:${member.proxy.port}`];
    if (this.mode.sync === 1) {
      flags.push('--sync-followers', '1', '--sync-timeout-seconds', String(SYNC_TIMEOUT_SECONDS));
    }
    if (member.etcdProxy) {
      flags.push(
        '--coordinator',
        `etcd://127.0.0.1:${member.etcdProxy.port}`,
        '--replica-set',
        member.shard,
        '--coordinator-lease-seconds',
        String(LEASE_SECONDS),
      );
    }
    return flags;
  }

  private async startSet(set: ReplicaSet): Promise<void> {
    if (this.mode.coordinator) {
      await Promise.all(set.members.map((m) => this.startMember(m)));
      set.leader = await this.electedLeader(set, undefined);
      return;
    }
    await set.leader.node.start({ role: 'leader', extra: this.flags(set.leader) });
    this.book.note(set.name, (await set.leader.node.status()).term, set.leader.name);
    await Promise.all(set.followers().map((m) => this.startMember(m)));
  }

  /** Starts `member` as what it is now: a coordinated member, or a follower of the leader. */
  async startMember(member: Member): Promise<void> {
    if (this.mode.coordinator) {
      await member.node.start({ role: 'coordinated', extra: this.flags(member) });
      return;
    }
    const leader = this.setOf(member.shard).leader;
    await member.node.start({
      role: 'follower',
      // DocdbNode takes the leader's replication port from this: its proxy's.
      leader: { replicationPort: leader.proxy.port } as DocdbNode,
      extra: this.flags(member),
    });
  }

  /** Stops a healthy member (SIGTERM, SIGKILL when that fails) and starts it again. */
  async restart(member: Member): Promise<void> {
    await member.node.stop().catch(() => member.node.kill());
    await this.startMember(member);
  }

  /**
   * The operator's failover of `set` away from `old`: fences it when it still runs (read-only
   * over HTTP, which a replication partition leaves reachable), promotes the follower with the
   * highest last seq (ties by name), and restarts the other follower as a follower of it.
   * `old` itself is left to the caller (killed, or isolated until the heal).
   */
  async operatorFailover(set: ReplicaSet, old: Member, faultAt: number): Promise<Failover> {
    let oldSeq: number | undefined;
    if (old.node.running) {
      const fenced = await old.node.transition('read-only').catch(async () => {
        await old.node.kill();
        return undefined;
      });
      oldSeq = fenced?.lastSeq;
    }
    const candidates = set.members.filter((m) => m !== old);
    const seqs = await Promise.all(candidates.map(async (m) => (await m.node.status()).lastSeq));
    const order = candidates
      .map((member, i) => ({ member, seq: seqs[i] as number }))
      .sort((a, b) => b.seq - a.seq || a.member.name.localeCompare(b.member.name));
    const best = order[0] as { member: Member; seq: number };
    const promoted = await best.member.node.transition('promote', {
      port: best.member.node.replicationPort,
    });
    const promotedAt = Date.now();
    this.book.note(set.name, promoted.term, best.member.name);
    set.leader = best.member;
    const others = candidates.filter((m) => m !== best.member);
    await Promise.all(others.map((m) => this.restart(m)));
    return {
      faultAt,
      promotedAt,
      doneAt: Date.now(),
      promoted: best.member.name,
      oldSeq,
      promotedSeq: best.seq,
    };
  }

  /** Rejoins an old leader (killed or isolated) as a follower of the set's leader: a restart. */
  async rejoinOld(old: Member): Promise<void> {
    await old.node.kill();
    await this.startMember(old);
  }

  /**
   * Etcd mode: waits until a member other than `old` leads `set` (writable), and answers it
   * with when it was seen. `old` undefined: any member.
   */
  async electedLeader(set: ReplicaSet, old: Member | undefined): Promise<Member> {
    const found = await this.waitForLeader(set, old, ELECTION_TIMEOUT_MS);
    set.leader = found.member;
    return found.member;
  }

  async waitForLeader(
    set: ReplicaSet,
    old: Member | undefined,
    timeoutMs: number,
  ): Promise<{ member: Member; at: number }> {
    return waitFor(
      async () => {
        for (const member of set.members) {
          if (member === old || !member.node.running) continue;
          const status = await member.node.status().catch(() => undefined);
          if (status && leads(status)) {
            this.book.note(set.name, status.term, member.name);
            return { member, at: Date.now() };
          }
        }
        return undefined;
      },
      timeoutMs,
      () =>
        `no member of ${set.name} other than ${old?.name ?? '-'} led within ${timeoutMs / 1000} s`,
    );
  }

  /**
   * With the clients paused: waits until every shard has exactly one writable leader and its
   * two followers stream from it and applied its last seq. Answers each set's leader's last
   * seq; throws naming the shard and each member's state when time runs out.
   */
  async converged(): Promise<Map<string, number>> {
    const seqs = new Map<string, number>();
    for (const set of this.sets) {
      let last = '';
      const seq = await waitFor(
        async () => {
          const statuses = await Promise.all(
            set.members.map((m) => m.node.status().catch(() => undefined)),
          );
          last = set.members.map((m, i) => `${m.name}: ${describe(statuses[i])}`).join('; ');
          const leading = set.members.filter((_, i) => leads(statuses[i]));
          if (leading.length !== 1) return undefined;
          const leader = leading[0] as Member;
          const { lastSeq, term } = statuses[set.members.indexOf(leader)] as ReplicationStatus;
          const caughtUp = statuses.every(
            (s, i) =>
              set.members[i] === leader ||
              (s?.role === 'follower' &&
                s.leader?.state === 'streaming' &&
                s.leader.appliedSeq >= lastSeq),
          );
          if (!caughtUp) return undefined;
          set.leader = leader;
          this.book.note(set.name, term, leader.name);
          return lastSeq;
        },
        CONVERGE_TIMEOUT_MS,
        () =>
          `shard ${set.name} did not settle on one leader with caught-up followers within ${CONVERGE_TIMEOUT_MS / 1000} s: ${last}`,
      );
      seqs.set(set.name, seq);
    }
    return seqs;
  }

  /** The `_id` → term and commit time of `set` leader's entries after `sinceSeq`, to `toSeq`. */
  async stamps(
    set: ReplicaSet,
    sinceSeq: number,
    toSeq: number,
  ): Promise<Map<string, { term: number; atMs: number }>> {
    const stamps = new Map<string, { term: number; atMs: number }>();
    if (toSeq <= sinceSeq) return stamps;
    const client = connect(set.leader.node.url, { timeoutMs: 60_000 });
    const stop = new AbortController();
    try {
      for await (const entry of client.changes({ since: String(sinceSeq), signal: stop.signal })) {
        if (entry.op === 'insert' && entry.collection === SET_COLLECTION) {
          for (const { id } of entry.documents) {
            stamps.set(id, { term: entry.term, atMs: entry.atMs });
          }
        }
        if (entry.seq >= toSeq) break;
      }
    } finally {
      stop.abort();
      await client.close();
    }
    return stamps;
  }

  /**
   * Every insert of SET_COLLECTION in `member`'s rollback files, and each file's entry count
   * (what the old leader held beyond the leader it rejoined: its lag at the failover), by file.
   */
  rolledBack(member: Member): { inserts: RolledBack[]; files: Map<string, number> } {
    const dir = path.join(member.node.dataDir, ROLLBACK_DIR);
    const inserts: RolledBack[] = [];
    const files = new Map<string, number>();
    if (!fs.existsSync(dir)) return { inserts, files };
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.ndjson'))) {
      const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
      const header = JSON.parse(lines[0] ?? '{}') as { rollback?: { entries?: number } };
      files.set(path.join(dir, file), header.rollback?.entries ?? 0);
      // Line 1 describes the rollback; each further line is one change-log entry.
      for (const line of lines.slice(1)) {
        if (line === '') continue;
        const entry = JSON.parse(line) as {
          op?: string;
          collection?: string;
          term: number;
          atMs: number;
          documents?: Array<{ id: string; doc: Record<string, unknown> }>;
        };
        if (entry.op !== 'insert' || entry.collection !== SET_COLLECTION) continue;
        for (const { id, doc } of entry.documents ?? []) {
          const key = doc[SET_KEY_PATH];
          if (typeof key === 'string')
            inserts.push({ id, key, term: entry.term, atMs: entry.atMs });
        }
      }
    }
    return { inserts, files };
  }

  /** Reads every member's status until close, noting who leads in which term. */
  private async watchLoop(): Promise<void> {
    while (this.watching) {
      await Promise.all(
        this.members.map(async (member) => {
          if (!member.node.running) return;
          const status = await member.node.status().catch(() => undefined);
          if (!status) return;
          this.lastStatus.set(member.name, status);
          if (status.role === 'leader') this.book.note(member.shard, status.term, member.name);
        }),
      );
      await sleep(WATCH_INTERVAL_MS);
    }
  }

  async close(): Promise<void> {
    this.watching = false;
    await this.watch;
    await this.router.kill();
    await Promise.all(
      this.members.map((m) => m.node.stop().catch(() => m.node.kill().catch(() => {}))),
    );
    for (const member of this.members) {
      await member.proxy.close();
      await member.etcdProxy?.close();
    }
    await this.etcd?.stop();
  }
}

/** True for a member that leads and takes writes. */
export function leads(status: ReplicationStatus | undefined): boolean {
  return status?.role === 'leader' && !status.readOnly && status.fenced === null;
}

function describe(status: ReplicationStatus | undefined): string {
  if (!status) return 'no answer';
  const following = status.leader
    ? ` ${status.leader.state} applied ${status.leader.appliedSeq}`
    : '';
  return `${status.role}${status.readOnly ? ' read-only' : ''} term ${status.term} seq ${status.lastSeq}${following}`;
}

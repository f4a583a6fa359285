/**
 * The torture suite's partition part (issue 21): two real nodes, a leader and a follower with
 * auto-failover, each behind a proxy on its replication port that the part controls, under
 * clients that stick to one node and clients that follow the leader. Each cycle cuts both
 * proxies at once (reset, blackhole or freeze) for a blip, a short or a long while, heals,
 * and rejoins the old leader (by REST, by a restart after the heal, by a restart before it, or
 * by itself); then, with the clients paused, it checks that the nodes agree, what acknowledged
 * writes were lost (and whether a rollback file holds them), and how long two nodes
 * acknowledged writes at once. It only measures and counts; it never tunes a node to pass.
 */

import { execFile } from 'node:child_process';
import { BIN, cleanEnv } from '../e2e/support.js';
import { sameDocuments } from '../failover/checks.js';
import { DocdbNode, FailoverCheckError, type ReplicationStatus } from '../failover/cluster.js';
import { LOAD_COLLECTION } from '../failover/load.js';
import { seededRandom } from '../../src/util/index.js';
import { ackWindows } from './ack-windows.js';
import { NetProxy } from '../support/net-proxy.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';
import { type ClientRole, PartitionLoad } from './partition-load.js';

export type Cut = 'reset' | 'blackhole' | 'freeze';
export type Length = 'blip' | 'short' | 'long';
export type Rejoin = 'rest' | 'restart' | 'restart-before-heal' | 'auto';
export type SyncFollowers = 0 | 1;

/** One cycle's mode combination; a blip has no rejoin (no failover is expected). */
export interface Mode {
  sync: SyncFollowers;
  cut: Cut;
  length: Length;
  rejoin: Rejoin | undefined;
}

export const CUTS: readonly Cut[] = ['reset', 'blackhole', 'freeze'];
export const REJOINS: readonly Rejoin[] = ['rest', 'restart', 'restart-before-heal', 'auto'];

/** Cycles per sync setting in the long mode (issue 21 asks for 50). */
export const LONG_CYCLES_DEFAULT = 50;

/** How long each partition lasts (ms); a blip is shorter than the follower's silence. */
const PARTITION_MS: Record<Length, { quick: number; full: number }> = {
  blip: { quick: 500, full: 500 },
  short: { quick: 3_000, full: 3_000 },
  long: { quick: 5_000, full: 10_000 },
};
/** The follower's silence before it promotes itself (--auto-failover-seconds). */
const SILENCE_SECONDS = 1;
/** How long a durable write waits for its follower before it answers 503 (sync=1). */
const SYNC_TIMEOUT_SECONDS = 2;
/** The clients: one sticks to each node, two follow the leader. */
const FOLLOWING_CLIENTS = 2;
/** Writes acknowledged before each cut, so the old leader has history to lose. */
const WARMUP_ACKS = 50;
const WARMUP_TIMEOUT_MS = 30_000;
/**
 * After the rejoin (or a blip's heal), writes the cluster must acknowledge again before the
 * clients pause: the new leader takes writes, and with syncFollowers 1 its rejoined follower
 * applies them.
 */
const AFTER_ACKS = 20;
const AFTER_TIMEOUT_MS = 15_000;
/** A promotion may come this long after the partition's planned end and still count. */
const PROMOTE_GRACE_MS = 1_500;
/** Before-heal restart: from the cut to the follower's promotion. */
const PROMOTE_TIMEOUT_MS = 10_000;
/**
 * Before-heal restart: the partition holds at least this long after the old leader is back
 * (as a follower that cannot reach its leader), longer than its silence, so that a node that
 * would promote itself without having reached its leader gets the time to do it.
 */
const RESTARTED_PARTITION_MS = 2_500;
/** From the heal until the old leader shows `fenced` (REST rejoin). */
const FENCE_TIMEOUT_MS = 15_000;
/** From the rejoin (or the heal) until the old leader streams from the new one. */
const REJOIN_TIMEOUT_MS = 15_000;
/** No failover: from the heal until the follower applied what the leader held after it. */
const RESUME_TIMEOUT_MS = 15_000;
/** Waits that end the cycle's pair when they run out (the node is stuck). */
const READY_TIMEOUT_MS = 30_000;
const CATCH_UP_TIMEOUT_MS = 30_000;
const VERIFY_TIMEOUT_MS = 60_000;
const STATUS_POLL_MS = 100;
/** Ids named in one message; the rest are counted. */
const IDS_SHOWN_MAX = 5;

export function modeName(mode: Mode): string {
  const rejoin = mode.rejoin === undefined ? '' : `/${mode.rejoin}`;
  return `sync=${mode.sync} ${mode.cut}/${mode.length}${rejoin}`;
}

/**
 * The quick run (CI): every cut, every rejoin, blip, short and long, sync 0 and 1, in eight
 * cycles on four pairs of nodes (a pair with --auto-rejoin for each sync setting).
 */
export const QUICK_PLAN: readonly Mode[] = [
  { sync: 0, cut: 'reset', length: 'short', rejoin: 'rest' },
  { sync: 0, cut: 'blackhole', length: 'blip', rejoin: undefined },
  { sync: 0, cut: 'freeze', length: 'long', rejoin: 'restart-before-heal' },
  { sync: 0, cut: 'blackhole', length: 'short', rejoin: 'restart' },
  { sync: 0, cut: 'freeze', length: 'short', rejoin: 'auto' },
  { sync: 1, cut: 'blackhole', length: 'short', rejoin: 'rest' },
  { sync: 1, cut: 'reset', length: 'long', rejoin: 'restart-before-heal' },
  { sync: 1, cut: 'reset', length: 'short', rejoin: 'auto' },
];

/** Every combination of one sync setting: each cut as a blip, and each cut, length and rejoin. */
function combinations(sync: SyncFollowers): Mode[] {
  const modes: Mode[] = CUTS.map((cut) => ({ sync, cut, length: 'blip', rejoin: undefined }));
  for (const cut of CUTS) {
    for (const length of ['short', 'long'] as const) {
      for (const rejoin of REJOINS) modes.push({ sync, cut, length, rejoin });
    }
  }
  return modes;
}

/**
 * The long run: `cycles` per sync setting, going through every combination in a seeded order,
 * pass after pass, so 50 cycles take each of the 27 once and 23 of them twice.
 */
export function longPlan(cycles: number, seed: number): Mode[] {
  const plan: Mode[] = [];
  for (const sync of [0, 1] as const) {
    const next = seededRandom(seed * 2 + sync);
    let pass: Mode[] = [];
    for (let i = 0; i < cycles; i++) {
      if (pass.length === 0) {
        pass = combinations(sync);
        for (let j = pass.length - 1; j > 0; j--) {
          const k = Math.floor(next() * (j + 1));
          [pass[j], pass[k]] = [pass[k] as Mode, pass[j] as Mode];
        }
      }
      plan.push(pass.shift() as Mode);
    }
  }
  return plan;
}

/** What one sync setting's cycles added up to: the summary line of a run. */
export interface SyncSummary {
  sync: SyncFollowers;
  cycles: number;
  failedCycles: number;
  acknowledged: number;
  lost: number;
  lostOutsideRollback: number;
  diverged: number;
  twoLeaderMaxMs: number;
  interleaved: number;
  unexpected: number;
}

export function summaryLine(s: SyncSummary): string {
  return `partition sync=${s.sync} cycles ${s.cycles}, acknowledged ${s.acknowledged}, lost ${s.lost}, lost outside rollback files ${s.lostOutsideRollback}, diverged ${s.diverged}, two-leader window max ${Math.round(s.twoLeaderMaxMs)} ms (interleaved acks ${s.interleaved})`;
}

/** What one cycle measured. */
interface CycleFigures {
  acknowledged: number;
  acknowledgedBy: Record<string, number>;
  refused: Record<string, number>;
  failedConnections: number;
  unexpected: string[];
  lost: string[];
  lostOutsideRollback: string[];
  lostBy: Record<string, number>;
  diverged: string | undefined;
  verify: string;
  twoLeaderMs: number;
  interleaved: number;
  failover: boolean;
  /** Moments from the cut, in ms, for the log line. */
  promotedMs: number | undefined;
  healedMs: number;
  fencedMs: number | undefined;
  rejoinedMs: number | undefined;
  /** Each node's role, term and divergences seen, at the end. */
  nodes: string;
  /** The roles did not hold at the end: the next cycle needs a fresh pair. */
  pairBroken: boolean;
  /** Bounded waits that ran out and other things the cycle saw go wrong. */
  problems: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Polls `node`'s status until `check` holds; undefined (never a throw) when time runs out. */
async function observe(
  node: DocdbNode,
  check: (status: ReplicationStatus) => boolean,
  timeoutMs: number,
): Promise<{ status: ReplicationStatus; atMs: number } | undefined> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const status = await node.status();
      if (check(status)) return { status, atMs: performance.now() };
    } catch {
      // Down or restarting: look again until the deadline.
    }
    if (performance.now() > deadline) return undefined;
    await sleep(STATUS_POLL_MS);
  }
}

/** The status as one short phrase for a message; never throws. */
async function describeStatus(node: DocdbNode): Promise<string> {
  try {
    const s = await node.status();
    const fenced = s.fenced ? `, fenced by term ${s.fenced.term}` : '';
    const following = s.leader ? `, ${s.leader.state} from ${s.leader.leader ?? '?'}` : '';
    return `${node.name}: role ${s.role}, term ${s.term}, seq ${s.lastSeq}${s.readOnly ? ', read-only' : ''}${fenced}${following}`;
  } catch (error) {
    return `${node.name}: no status (${(error as Error).message.split('\n')[0]})`;
  }
}

/** Two nodes, their proxies and their clients, for the cycles of one sync setting. */
class Pair {
  readonly proxies = new Map<DocdbNode, NetProxy>();
  readonly lost = new Set<string>();
  leader!: DocdbNode;
  follower!: DocdbNode;
  load!: PartitionLoad;

  private constructor(
    readonly nodes: [DocdbNode, DocdbNode],
    readonly sync: SyncFollowers,
    readonly autoRejoin: boolean,
  ) {}

  static async open(
    dir: string,
    name: string,
    sync: SyncFollowers,
    autoRejoin: boolean,
  ): Promise<Pair> {
    const a = await DocdbNode.create(dir, `${name}-a`);
    const b = await DocdbNode.create(dir, `${name}-b`);
    const pair = new Pair([a, b], sync, autoRejoin);
    for (const node of pair.nodes) {
      const proxy = new NetProxy(node.replicationPort);
      await proxy.listen();
      pair.proxies.set(node, proxy);
    }
    pair.leader = a;
    pair.follower = b;
    await a.start({ role: 'leader', extra: pair.commonFlags(a) });
    await pair.startFollower(b, a);
    const roles: ClientRole[] = [
      { kind: 'sticky', node: a },
      { kind: 'sticky', node: b },
      ...Array.from({ length: FOLLOWING_CLIENTS }, () => ({ kind: 'follower' as const })),
    ];
    pair.load = new PartitionLoad(pair.nodes, roles, a, name);
    pair.load.start();
    return pair;
  }

  proxyOf(node: DocdbNode): NetProxy {
    return this.proxies.get(node) as NetProxy;
  }

  /** Flags of either role: where others reach this node, durable writes, auto-rejoin. */
  private commonFlags(node: DocdbNode): string[] {
    const flags = ['--replication-advertise-address', `127.0.0.1:${this.proxyOf(node).port}`];
    if (this.sync === 1) {
      flags.push('--sync-followers', '1', '--sync-timeout-seconds', String(SYNC_TIMEOUT_SECONDS));
    }
    if (this.autoRejoin) flags.push('--auto-rejoin');
    return flags;
  }

  /** Starts `node` as a follower of `leader`, through the leader's proxy, watching it. */
  async startFollower(node: DocdbNode, leader: DocdbNode): Promise<void> {
    await node.start({
      role: 'follower',
      // DocdbNode takes the leader's replication port from this: the proxy's.
      leader: { replicationPort: this.proxyOf(leader).port } as DocdbNode,
      extra: [
        '--auto-failover-seconds',
        String(SILENCE_SECONDS),
        '--auto-failover-new-port',
        String(node.replicationPort),
        ...this.commonFlags(node),
      ],
    });
  }

  cut(mode: Cut): void {
    for (const proxy of this.proxies.values()) proxy.set(mode);
  }

  heal(): void {
    for (const proxy of this.proxies.values()) proxy.up();
  }

  async close(): Promise<void> {
    await this.load?.stop().catch(() => {});
    for (const node of this.nodes) await node.stop().catch(() => node.kill().catch(() => {}));
    for (const proxy of this.proxies.values()) await proxy.close();
  }
}

/** Waits until the follower streams from the leader and may promote itself. */
function ready(status: ReplicationStatus): boolean {
  return (
    status.role === 'follower' &&
    status.leader !== null &&
    status.leader.connected &&
    status.leader.state === 'streaming' &&
    status.autoFailover.state === 'watching' &&
    status.autoFailover.armed
  );
}

/** True when `status` is a follower streaming from `leader`'s proxy. */
function followsThrough(status: ReplicationStatus, proxy: NetProxy): boolean {
  const address = status.leader?.leader;
  return (
    status.role === 'follower' &&
    status.leader?.state === 'streaming' &&
    (address === undefined || address.endsWith(`:${proxy.port}`))
  );
}

/**
 * Makes `old` follow `leader` over REST: start-follower through the leader's proxy. A node
 * still taking writes must first be made read-only, which is an operator's act, not docdb's:
 * the caller has already counted the missing fence as a problem.
 */
async function followByRest(pair: Pair, old: DocdbNode, leader: DocdbNode): Promise<void> {
  const status = await old.status();
  if (status.role === 'follower') return;
  if (status.role === 'leader' && !status.readOnly) await old.transition('read-only');
  await old.transition('start-follower', {
    host: '127.0.0.1',
    port: pair.proxyOf(leader).port,
  });
}

/** A node made a follower over REST watches its new leader too, as one started so does. */
async function keepWatching(node: DocdbNode): Promise<void> {
  const status = await node.status();
  if (status.role !== 'follower' || status.autoFailover.enabled) return;
  await node.transition('auto-failover/enable', {
    silenceSeconds: SILENCE_SECONDS,
    newLeaderPort: node.replicationPort,
  });
}

/** `docdb verify <a> --peer <b> --json`: whether the two change logs agree. */
async function verifyPeer(a: DocdbNode, b: DocdbNode): Promise<{ ok: boolean; text: string }> {
  const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        BIN,
        ['verify', a.dataDir, '--peer', b.dataDir, '--json'],
        { env: cleanEnv(), timeout: VERIFY_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    },
  );
  if (result.code === 0) return { ok: true, text: 'agree' };
  let text = `exit ${result.code}: ${result.stderr.slice(0, 300)}${result.stdout.slice(0, 300)}`;
  try {
    const report = JSON.parse(result.stdout) as {
      peer?: { verdict: string; message: string };
      problemCount?: number;
    };
    if (report.peer) text = `${report.peer.verdict}: ${report.peer.message}`;
    if (report.problemCount) text += `; ${report.problemCount} problems in ${a.name}'s file`;
  } catch {
    // Not JSON: keep the raw output.
  }
  return { ok: false, text };
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function subtract(now: Record<string, number>, before: Record<string, number>) {
  const delta: Record<string, number> = {};
  for (const [key, n] of Object.entries(now)) {
    if (n - (before[key] ?? 0) > 0) delta[key] = n - (before[key] ?? 0);
  }
  return delta;
}

function ids(list: readonly string[]): string {
  const shown = list.slice(0, IDS_SHOWN_MAX).join(', ');
  return list.length > IDS_SHOWN_MAX ? `${shown} and ${list.length - IDS_SHOWN_MAX} more` : shown;
}

/** The partition and the heal; answers when (from the cut) the follower promoted, if it did. */
async function cutAndHeal(
  pair: Pair,
  mode: Mode,
  durationMs: number,
  figures: CycleFigures,
): Promise<{ cutAt: number; healAt: number; promotedAt: number | undefined; restarted: boolean }> {
  const old = pair.leader;
  const candidate = pair.follower;
  const cutAt = performance.now();
  pair.cut(mode.cut);
  let restarted = false;
  let promotedAt: number | undefined;
  if (mode.rejoin === 'restart-before-heal') {
    const promoted = await observe(candidate, (s) => s.role === 'leader', PROMOTE_TIMEOUT_MS);
    promotedAt = promoted?.atMs;
    let restartedAt = cutAt;
    if (promoted) {
      await old.kill();
      await pair.startFollower(old, candidate);
      restarted = true;
      restartedAt = performance.now();
    } else {
      figures.problems.push(
        `${candidate.name} did not promote itself within ${PROMOTE_TIMEOUT_MS / 1000} s of the cut`,
      );
    }
    await sleep(
      Math.max(cutAt + durationMs, restartedAt + RESTARTED_PARTITION_MS) - performance.now(),
    );
    pair.heal();
    return { cutAt, healAt: performance.now(), promotedAt, restarted };
  }
  const promotion = observe(candidate, (s) => s.role === 'leader', durationMs + PROMOTE_GRACE_MS);
  await sleep(durationMs);
  pair.heal();
  const healAt = performance.now();
  promotedAt = (await promotion)?.atMs;
  return { cutAt, healAt, promotedAt, restarted };
}

/** After a heal with no promotion seen: the follower resumes, or it promoted late. */
async function resumeOrPromote(pair: Pair): Promise<number | undefined> {
  const { lastSeq } = await pair.leader.status();
  const seen = await observe(
    pair.follower,
    (s) =>
      s.role === 'leader' ||
      (s.role === 'follower' && s.leader?.state === 'streaming' && s.leader.appliedSeq >= lastSeq),
    RESUME_TIMEOUT_MS,
  );
  if (!seen) {
    throw new FailoverCheckError(
      `${pair.follower.name} neither resumed nor promoted itself within ${RESUME_TIMEOUT_MS / 1000} s of the heal; ${await describeStatus(pair.follower)}\n${pair.follower.outputTail()}`,
    );
  }
  return seen.status.role === 'leader' ? seen.atMs : undefined;
}

/** Rejoins the old leader to the promoted node as `kind` says; counts what ran out. */
async function rejoin(
  pair: Pair,
  kind: Rejoin,
  restarted: boolean,
  healAt: number,
  figures: CycleFigures,
): Promise<number | undefined> {
  const old = pair.leader;
  const leader = pair.follower;
  const proxy = pair.proxyOf(leader);
  if (kind === 'rest') {
    const fenced = await observe(old, (s) => s.fenced !== null, FENCE_TIMEOUT_MS);
    if (fenced) figures.fencedMs = fenced.atMs - healAt;
    else {
      figures.problems.push(
        `${old.name} was not fenced within ${FENCE_TIMEOUT_MS / 1000} s of the heal (${await describeStatus(old)}); made read-only by hand to rejoin it`,
      );
    }
    await followByRest(pair, old, leader);
  } else if (kind === 'restart' || (kind === 'restart-before-heal' && !restarted)) {
    await old.kill();
    await pair.startFollower(old, leader);
  }
  const joined = await observe(old, (s) => followsThrough(s, proxy), REJOIN_TIMEOUT_MS);
  if (!joined) {
    figures.problems.push(
      `${old.name} did not follow ${leader.name} within ${REJOIN_TIMEOUT_MS / 1000} s (${kind}): ${await describeStatus(old)}; rejoined by REST instead`,
    );
    await followByRest(pair, old, leader);
  }
  await keepWatching(old);
  return joined ? joined.atMs : undefined;
}

/** With the clients paused: the nodes agree, what was lost, and where it went. */
async function settle(pair: Pair, ackStart: number, figures: CycleFigures): Promise<void> {
  const { leader, follower, load } = pair;
  const { lastSeq } = await leader.status();
  await follower.waitForApplied(lastSeq, CATCH_UP_TIMEOUT_MS);
  try {
    await sameDocuments(leader, follower);
  } catch (error) {
    if (!(error instanceof FailoverCheckError)) throw error;
    figures.diverged = error.message.split('\n').slice(0, 3).join(' / ');
  }
  const verify = await verifyPeer(leader, follower);
  figures.verify = verify.text;
  if (!verify.ok && figures.diverged === undefined) figures.diverged = `verify: ${verify.text}`;
  const documents = await leader.documents(LOAD_COLLECTION);
  const rolledBack = new Set([
    ...pair.nodes[0].rolledBackIds().ids,
    ...pair.nodes[1].rolledBackIds().ids,
  ]);
  const lost = load.acks.filter((a) => !documents.has(a.id) && !pair.lost.has(a.id));
  for (const ack of lost) pair.lost.add(ack.id);
  figures.lost = lost.map((a) => a.id);
  figures.lostBy = countBy(lost, (a) => a.node);
  figures.lostOutsideRollback = figures.lost.filter((id) => !rolledBack.has(id));
  const acks = load.acks.slice(ackStart);
  figures.acknowledged = acks.length;
  figures.acknowledgedBy = countBy(acks, (a) => a.node);
  const windows = ackWindows(acks);
  figures.twoLeaderMs = windows.twoLeaderMs;
  figures.interleaved = windows.interleaved;
  const statuses = await Promise.all(pair.nodes.map(async (node) => await node.status()));
  figures.nodes = statuses
    .map((status, i) => {
      return `${pair.nodes[i]?.name} ${status.role}${status.readOnly ? ' read-only' : ''} term ${status.term} divergences ${status.divergences}`;
    })
    .join(', ');
  // The checks above passed with the follower streaming; the roles must still hold after them.
  const leaderNow = statuses[pair.nodes.indexOf(leader)] as ReplicationStatus;
  const followerNow = statuses[pair.nodes.indexOf(follower)] as ReplicationStatus;
  if (leaderNow.role !== 'leader' || leaderNow.readOnly || followerNow.role !== 'follower') {
    figures.problems.push(
      `the cycle ended with ${leader.name} ${leaderNow.role}${leaderNow.readOnly ? ' (read-only)' : ''} and ${follower.name} ${followerNow.role}, not a writable leader and its follower; a fresh pair takes the next cycle`,
    );
    figures.pairBroken = true;
  }
}

function emptyFigures(): CycleFigures {
  return {
    acknowledged: 0,
    acknowledgedBy: {},
    refused: {},
    failedConnections: 0,
    unexpected: [],
    lost: [],
    lostOutsideRollback: [],
    lostBy: {},
    diverged: undefined,
    verify: 'not run',
    twoLeaderMs: 0,
    interleaved: 0,
    failover: false,
    promotedMs: undefined,
    healedMs: 0,
    fencedMs: undefined,
    rejoinedMs: undefined,
    nodes: '',
    pairBroken: false,
    problems: [],
  };
}

/** One cycle: ready, cut, heal, rejoin, settle. Throws only when a node is stuck. */
async function cycle(pair: Pair, mode: Mode, quick: boolean): Promise<CycleFigures> {
  const figures = emptyFigures();
  const { load } = pair;
  await pair.follower.waitForStatus('streaming and armed', (s) => ready(s), READY_TIMEOUT_MS);
  const ackStart = load.acks.length;
  const refusedBefore = { ...load.counters.refused };
  const failedBefore = load.counters.failedConnections;
  const unexpectedBefore = load.unexpectedAnswers.length;
  await load.waitForMore(WARMUP_ACKS, WARMUP_TIMEOUT_MS);
  const durationMs = PARTITION_MS[mode.length][quick ? 'quick' : 'full'];
  const cut = await cutAndHeal(pair, mode, durationMs, figures);
  figures.healedMs = cut.healAt - cut.cutAt;
  let promotedAt = cut.promotedAt;
  if (promotedAt === undefined && !cut.restarted) promotedAt = await resumeOrPromote(pair);
  if (promotedAt !== undefined) {
    figures.failover = true;
    figures.promotedMs = promotedAt - cut.cutAt;
    // A blip that failed over anyway rejoins as the pair's nodes can.
    const kind = mode.rejoin ?? (pair.autoRejoin ? 'auto' : 'rest');
    const joinedAt = await rejoin(pair, kind, cut.restarted, cut.healAt, figures);
    if (joinedAt !== undefined) figures.rejoinedMs = joinedAt - cut.cutAt;
    [pair.leader, pair.follower] = [pair.follower, pair.leader];
  } else if (mode.rejoin !== undefined) {
    figures.problems.push(`no failover: ${pair.follower.name} did not promote itself`);
  }
  try {
    await load.waitForMore(AFTER_ACKS, AFTER_TIMEOUT_MS);
  } catch (error) {
    figures.problems.push(
      `after the ${figures.failover ? 'rejoin' : 'heal'}: ${(error as Error).message}`,
    );
  }
  await load.pause();
  try {
    await settle(pair, ackStart, figures);
  } finally {
    figures.refused = subtract(load.counters.refused, refusedBefore);
    figures.failedConnections = load.counters.failedConnections - failedBefore;
    figures.unexpected = load.unexpectedAnswers.slice(unexpectedBefore);
    load.resume();
  }
  return figures;
}

/** What failed in a cycle, against issue 21's requirements; empty when it passed. */
function requirementsFailed(mode: Mode, f: CycleFigures): string[] {
  const failed: string[] = [];
  if (f.lostOutsideRollback.length > 0) {
    failed.push(
      `${f.lostOutsideRollback.length} acknowledged writes lost outside rollback files (${ids(f.lostOutsideRollback)})`,
    );
  }
  if (mode.sync === 1 && f.lost.length > 0) {
    failed.push(`${f.lost.length} acknowledged writes lost with syncFollowers 1`);
  }
  if (f.diverged !== undefined) failed.push(`diverged: ${f.diverged}`);
  if (f.twoLeaderMs > 0 || f.interleaved > 0) {
    failed.push(
      `two nodes acknowledged writes for ${Math.round(f.twoLeaderMs)} ms (${f.interleaved} interleaved acks)`,
    );
  }
  if (f.unexpected.length > 0) failed.push(`unexpected answers: ${f.unexpected.join('; ')}`);
  failed.push(...f.problems);
  return failed;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

function counts(record: Record<string, number>): string {
  const entries = Object.entries(record);
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k} ${n}`).join(', ');
}

function cycleLine(mode: Mode, n: number, total: number, f: CycleFigures, ms: number): string {
  const events = f.failover
    ? `promoted ${seconds(f.promotedMs)}, healed ${seconds(f.healedMs)}, fenced ${f.fencedMs === undefined ? '-' : `${seconds(f.fencedMs)} after the heal`}, rejoined ${seconds(f.rejoinedMs)} after the cut`
    : `no failover, healed ${seconds(f.healedMs)}`;
  return (
    `partition ${n}/${total} ${modeName(mode)}: ${events}; ${f.nodes}; ` +
    `acknowledged ${f.acknowledged} (${counts(f.acknowledgedBy)}), refused ${counts(f.refused)}, failed connections ${f.failedConnections}, unexpected ${f.unexpected.length}; ` +
    `lost ${f.lost.length} (${counts(f.lostBy)}), outside rollback files ${f.lostOutsideRollback.length}; ` +
    `diverged ${f.diverged === undefined ? 'no' : 'YES'}, verify --peer ${f.verify}; ` +
    `two-leader window ${Math.round(f.twoLeaderMs)} ms, interleaved ${f.interleaved}; cycle ${seconds(ms)}`
  );
}

export interface PartitionRun {
  checks: CheckResult[];
  summaries: SyncSummary[];
}

/**
 * The pairs a plan needs, in the order they run: per sync setting, one without --auto-rejoin
 * and one with it for the auto cycles only (a node with it would rejoin by itself before a
 * REST cycle's start-follower, and that cycle would no longer test the REST rejoin).
 */
function groups(
  plan: readonly Mode[],
): Array<{ sync: SyncFollowers; auto: boolean; modes: Mode[] }> {
  const result: Array<{ sync: SyncFollowers; auto: boolean; modes: Mode[] }> = [];
  for (const sync of [0, 1] as const) {
    for (const auto of [false, true]) {
      const modes = plan.filter((m) => m.sync === sync && (m.rejoin === 'auto') === auto);
      if (modes.length > 0) result.push({ sync, auto, modes });
    }
  }
  return result;
}

function emptySummary(sync: SyncFollowers): SyncSummary {
  return {
    sync,
    cycles: 0,
    failedCycles: 0,
    acknowledged: 0,
    lost: 0,
    lostOutsideRollback: 0,
    diverged: 0,
    twoLeaderMaxMs: 0,
    interleaved: 0,
    unexpected: 0,
  };
}

/** The checks (one per mode) and the summaries (one per sync setting) as cycles report in. */
class Tally {
  private readonly checks = new Map<string, Check>();
  private readonly figures = new Map<string, CycleFigures[]>();
  private readonly ms = new Map<string, number>();
  private readonly summaries = new Map<SyncFollowers, SyncSummary>();

  /** A cycle that ran to its end, counted against issue 21's requirements. */
  measured(mode: Mode, n: number, f: CycleFigures, ms: number): void {
    const name = modeName(mode);
    this.figures.set(name, [...(this.figures.get(name) ?? []), f]);
    const summary = this.summary(mode.sync);
    summary.cycles++;
    summary.acknowledged += f.acknowledged;
    summary.lost += f.lost.length;
    summary.lostOutsideRollback += f.lostOutsideRollback.length;
    summary.diverged += f.diverged === undefined ? 0 : 1;
    summary.twoLeaderMaxMs = Math.max(summary.twoLeaderMaxMs, f.twoLeaderMs);
    summary.interleaved += f.interleaved;
    summary.unexpected += f.unexpected.length;
    const failed = requirementsFailed(mode, f);
    if (failed.length > 0) summary.failedCycles++;
    // A blip is not meant to fail over; when one did anyway, the table says so.
    const clean = mode.length === 'blip' && f.failover ? 'clean, failed over' : 'clean';
    this.count(
      mode,
      ms,
      failed.length === 0 ? clean : 'failed',
      failed.length === 0 ? undefined : `cycle ${n}: ${failed.join('; ')}`,
    );
  }

  /** A cycle a stuck node ended: it fails, and its figures are unknown. */
  stuck(mode: Mode, n: number, message: string, ms: number): void {
    const summary = this.summary(mode.sync);
    summary.cycles++;
    summary.failedCycles++;
    this.count(mode, ms, 'stuck', `cycle ${n}: ${message.slice(0, 2_000)}`);
  }

  results(): PartitionRun {
    const checks = [...this.checks.values()].map((check) => {
      const result = check.done();
      const all = this.figures.get(result.name) ?? [];
      const sum = (pick: (f: CycleFigures) => number) => all.reduce((s, f) => s + pick(f), 0);
      result.ms = Math.round(this.ms.get(result.name) ?? 0);
      result.outcomes = {
        ...result.outcomes,
        acknowledged: sum((f) => f.acknowledged),
        lost: sum((f) => f.lost.length),
        'lost outside rollback': sum((f) => f.lostOutsideRollback.length),
        diverged: sum((f) => (f.diverged === undefined ? 0 : 1)),
        'two-leader max ms': Math.round(Math.max(0, ...all.map((f) => f.twoLeaderMs))),
        interleaved: sum((f) => f.interleaved),
      };
      return result;
    });
    return { checks, summaries: [...this.summaries.values()] };
  }

  private summary(sync: SyncFollowers): SyncSummary {
    const summary = this.summaries.get(sync) ?? emptySummary(sync);
    this.summaries.set(sync, summary);
    return summary;
  }

  private count(mode: Mode, ms: number, outcome: string, failure: string | undefined): void {
    const name = modeName(mode);
    const check = this.checks.get(name) ?? new Check(name);
    this.checks.set(name, check);
    this.ms.set(name, (this.ms.get(name) ?? 0) + ms);
    check.count(outcome, failure);
  }
}

/** Runs `plan`, logging a line per cycle and a summary line per sync setting. */
export async function runPartition(options: {
  dir: string;
  plan: readonly Mode[];
  quick: boolean;
  log: (line: string) => void;
}): Promise<PartitionRun> {
  const { dir, plan, quick, log } = options;
  const tally = new Tally();
  let n = 0;
  for (const group of groups(plan)) {
    let opened = 0;
    const base = `s${group.sync}${group.auto ? '-auto' : ''}`;
    let pair: Pair | undefined;
    try {
      for (const mode of group.modes) {
        n++;
        const started = performance.now();
        try {
          pair ??= await Pair.open(
            dir,
            opened++ === 0 ? base : `${base}-${opened}`,
            group.sync,
            group.auto,
          );
          const figures = await cycle(pair, mode, quick);
          const ms = performance.now() - started;
          log(cycleLine(mode, n, plan.length, figures, ms));
          tally.measured(mode, n, figures, ms);
          if (figures.pairBroken) {
            await pair.close();
            pair = undefined;
          }
        } catch (error) {
          // A stuck node: the cycle fails with what it said, and a fresh pair takes over.
          const message = (error as Error).message;
          const ms = performance.now() - started;
          log(
            `partition ${n}/${plan.length} ${modeName(mode)}: STUCK after ${seconds(ms)}: ${message}`,
          );
          tally.stuck(mode, n, message, ms);
          await pair?.close();
          pair = undefined;
        }
      }
    } finally {
      await pair?.close();
    }
  }
  const run = tally.results();
  for (const summary of run.summaries) log(summaryLine(summary));
  return run;
}

export const partition: TorturePart = {
  name: 'partition',
  description:
    'leader and follower cut apart by reset, blackhole or freeze, healed and rejoined under load: no write lost outside rollback files, no divergence, never two acknowledging leaders',
  async run(context: PartContext): Promise<CheckResult[]> {
    const plan = context.quick ? QUICK_PLAN : longPlan(LONG_CYCLES_DEFAULT, context.seed);
    const run = await runPartition({
      dir: context.dir,
      plan,
      quick: context.quick,
      log: context.log,
    });
    return run.checks;
  },
};

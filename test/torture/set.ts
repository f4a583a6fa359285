/**
 * The torture suite's set part (issue 24, Jepsen's set workload): concurrent clients insert
 * unique keys through a `docdb router` process into two shards, each a replica set of three
 * `docdb serve` members, while each cycle kills one shard's leader (kill -9), partitions the
 * other's leader from its followers (and from etcd), slows both leaders' links and restarts
 * the router. Then it heals, waits for one leader per shard with caught-up followers, and
 * reads everything back through the router and from every member. Three modes: the operator
 * fails over with syncFollowers 1 (nothing acknowledged may be lost), etcd leads with
 * syncFollowers 1 (nothing lost, never two acknowledging leaders; skipped, loudly, on a build
 * without --coordinator), and neither (losses allowed only into rollback files). It only
 * measures and counts; it never tunes a node to pass.
 */

import { spawnSync } from 'node:child_process';
import { shardFor } from '../../src/cluster/index.js';
import { BIN, cleanEnv, request } from '../e2e/support.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';
import {
  type Failover,
  LEASE_SECONDS,
  type Member,
  type ReplicaSet,
  type RolledBack,
  SET_MODES,
  SetCluster,
  type SetMode,
  SHARD_NAMES,
} from './set-cluster.js';
import {
  judge,
  noLeaderWindows,
  resumedAfter,
  type StoredKey,
  twoLeaderWindow,
} from './set-figures.js';
import { type Attempt, SET_COLLECTION, SetLoad } from './set-load.js';

/** Cycles per mode: the quick run (CI), the suite's long run; `npm run test:set` takes --cycles. */
export const QUICK_CYCLES = 1;
export const FULL_CYCLES = 10;
/** Concurrent clients writing through the router. */
const CLIENTS = 4;
/** The operator acts this long after a fault (its monitoring's reaction time). */
const OPERATOR_DELAY_MS = 1_000;
/** How long a leader stays partitioned from its followers without a coordinator. */
const PARTITION_MS = 3_000;
/** With etcd: longer than the lease, so the set elects another leader meanwhile. */
const ETCD_PARTITION_MS = LEASE_SECONDS * 1000 + 2_000;
/** Both leaders' links stay slow this long; the router restarts half-way. */
const SLOW_MS = 2_000;
/** Writes acknowledged before the cycle's faults, and after each step of them. */
const WARMUP_ACKS = 40;
const AFTER_ACKS = 20;
const ACKS_TIMEOUT_MS = 30_000;
/** With etcd: how long to look for the member that leads before a fault. */
const LEADER_LOOK_MS = 10_000;
/** Writes through the router must resume this soon after the new leader (issue 24). */
const RESUME_GRACE_MS = 2_000;
/** Keys named in one message; the rest are counted. */
const KEYS_SHOWN_MAX = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** A leader killed in a cycle: when, and from when writes must resume within what. */
interface Kill {
  shard: string;
  /** The member killed: a write it committed does not count as writes resuming. */
  old: string;
  /** The time writes must resume after: the promotion (operator) or the kill (etcd). */
  fromMs: number;
  limitMs: number;
  /** How long after `fromMs` the shard's next write was acknowledged. */
  resumedMs?: number;
}

/** What one cycle measured. */
interface CycleFigures {
  acknowledged: number;
  refused: number;
  unknown: number;
  unknownStored: number;
  lost: string[];
  lostOutsideRollback: string[];
  duplicated: string[];
  refusedStored: string[];
  /** Keys a rollback file holds and no shard stores, new in this cycle (any outcome). */
  rollbackOnly: number;
  /**
   * Entries the old leaders held beyond the leaders they rejoined (the new rollback files'
   * entries): the replication lag at the cycle's failovers, as docdb reports it.
   */
  lagEntries: number;
  noLeaderMs: number;
  noLeaderShard: string;
  twoLeaderMs: number;
  twoLeaderBetween: string;
  diverged: string[];
  kills: Kill[];
  events: string[];
  problems: string[];
}

function emptyFigures(): CycleFigures {
  return {
    acknowledged: 0,
    refused: 0,
    unknown: 0,
    unknownStored: 0,
    lost: [],
    lostOutsideRollback: [],
    duplicated: [],
    refusedStored: [],
    rollbackOnly: 0,
    lagEntries: 0,
    noLeaderMs: 0,
    noLeaderShard: '-',
    twoLeaderMs: 0,
    twoLeaderBetween: 'none',
    diverged: [],
    kills: [],
    events: [],
    problems: [],
  };
}

/** True when this build's `docdb serve` takes a coordinator (the coordinated branch). */
export function hasCoordinator(): boolean {
  const help = spawnSync(BIN, ['serve', '--help'], { env: cleanEnv(), encoding: 'utf8' });
  return `${help.stdout}${help.stderr}`.includes('--coordinator');
}

/** The run of one mode: its cluster and clients, and what the earlier cycles saw. */
class ModeRun {
  readonly load: SetLoad;
  /** Each shard's leader seq at the last settle: the next cycle's entries come after it. */
  private readonly settledSeq = new Map<string, number>();
  private readonly reportedLost = new Set<string>();
  private readonly reportedDuplicates = new Set<string>();
  private readonly reportedRollbackOnly = new Set<string>();
  /** Rollback files already counted. */
  private readonly rollbackFiles = new Set<string>();
  private attemptsSeen = 0;
  private spanStart = Date.now();

  constructor(
    readonly cluster: SetCluster,
    readonly mode: SetMode,
  ) {
    this.load = new SetLoad(cluster.router.url, CLIENTS, mode.name);
  }

  private shardOf(key: string): string {
    return shardFor(key, this.cluster.config.shards).name;
  }

  /** One cycle: warm up, kill one leader and partition the other, slow links, router restart. */
  async cycle(n: number): Promise<CycleFigures> {
    const figures = emptyFigures();
    const { sets } = this.cluster;
    const [killed, cut] = (n % 2 === 0 ? [sets[0], sets[1]] : [sets[1], sets[0]]) as [
      ReplicaSet,
      ReplicaSet,
    ];
    await this.acks(WARMUP_ACKS, 'before the faults', figures);
    const [kill] = await Promise.all([
      this.killLeader(killed, figures),
      this.partitionLeader(cut, figures),
    ]);
    figures.kills.push(kill);
    await this.acks(AFTER_ACKS, 'after the kill and the partition', figures);
    const leaders = sets.map((set) => set.leader);
    for (const leader of leaders) leader.link('slow');
    await sleep(SLOW_MS / 2);
    await this.cluster.router.kill();
    await this.cluster.router.start();
    figures.events.push('router restarted');
    await sleep(SLOW_MS / 2);
    for (const leader of leaders) leader.link('up');
    await this.acks(AFTER_ACKS, 'after the slow links and the router restart', figures);
    await this.settle(figures);
    return figures;
  }

  private async acks(count: number, when: string, figures: CycleFigures): Promise<void> {
    if (!(await this.load.waitForMore(count, ACKS_TIMEOUT_MS))) {
      figures.problems.push(
        `${when}: the clients did not get ${count} more writes acknowledged within ${ACKS_TIMEOUT_MS / 1000} s`,
      );
    }
  }

  /** kill -9 of `set`'s leader; the operator (or etcd) fails over; the old leader rejoins. */
  private async killLeader(set: ReplicaSet, figures: CycleFigures): Promise<Kill> {
    const old = await this.currentLeader(set);
    const killAt = Date.now();
    await old.node.kill();
    if (this.mode.coordinator) {
      const elected = await this.cluster.waitForLeader(set, old, LEASE_SECONDS * 1000 + 15_000);
      set.leader = elected.member;
      figures.events.push(
        `${old.name} killed, ${elected.member.name} elected after ${seconds(elected.at - killAt)}`,
      );
      await this.cluster.startMember(old);
      return {
        shard: set.name,
        old: old.name,
        fromMs: killAt,
        limitMs: LEASE_SECONDS * 1000 + RESUME_GRACE_MS,
      };
    }
    await sleep(OPERATOR_DELAY_MS);
    const failover = await this.cluster.operatorFailover(set, old, killAt);
    this.noteFailover(old, failover, figures, 'killed');
    await this.cluster.rejoinOld(old);
    // Without a coordinator a follower is re-pointed only by a restart, and with
    // syncFollowers 1 the new leader acknowledges nothing until one follows it: the
    // operator's promotion ends once the other follower is back. With 0, at the promotion.
    const fromMs = this.mode.sync === 1 ? failover.doneAt : failover.promotedAt;
    return { shard: set.name, old: old.name, fromMs, limitMs: RESUME_GRACE_MS };
  }

  /**
   * The member that leads `set` now. The operator's leader is the one it made; with etcd the
   * lease may have moved since the last settle (a long run once killed a member that had
   * just lost it), so the members are asked.
   */
  private async currentLeader(set: ReplicaSet): Promise<Member> {
    if (!this.mode.coordinator) return set.leader;
    set.leader = (await this.cluster.waitForLeader(set, undefined, LEADER_LOOK_MS)).member;
    return set.leader;
  }

  /** `set`'s leader cut from its followers (and etcd); failover; heal; the old leader rejoins. */
  private async partitionLeader(set: ReplicaSet, figures: CycleFigures): Promise<void> {
    const old = await this.currentLeader(set);
    const cutAt = Date.now();
    old.link('blackhole');
    if (this.mode.coordinator) {
      const elected = await this.cluster.waitForLeader(set, old, LEASE_SECONDS * 1000 + 15_000);
      set.leader = elected.member;
      figures.events.push(
        `${old.name} partitioned, ${elected.member.name} elected after ${seconds(elected.at - cutAt)}`,
      );
      await sleep(cutAt + ETCD_PARTITION_MS - Date.now());
      old.link('up');
      return;
    }
    await sleep(OPERATOR_DELAY_MS);
    const failover = await this.cluster.operatorFailover(set, old, cutAt);
    this.noteFailover(old, failover, figures, 'partitioned');
    await sleep(cutAt + PARTITION_MS - Date.now());
    old.link('up');
    await this.cluster.rejoinOld(old);
  }

  private noteFailover(old: Member, f: Failover, figures: CycleFigures, what: string): void {
    // A killed leader's last seq cannot be read; a fenced one's is where it stopped.
    const fenced = f.oldSeq === undefined ? '' : ` (${old.name} fenced at seq ${f.oldSeq})`;
    figures.events.push(
      `${old.name} ${what}, ${f.promoted} promoted at seq ${f.promotedSeq}${fenced} after ${seconds(f.promotedAt - f.faultAt)}, the other follower back after ${seconds(f.doneAt - f.faultAt)}`,
    );
  }

  /** With the clients paused: converge, read back, judge; then the clients go on. */
  private async settle(figures: CycleFigures): Promise<void> {
    await this.load.pause();
    const span = { startMs: this.spanStart, endMs: Date.now() };
    try {
      const seqs = await this.cluster.converged();
      await this.measure(figures, seqs, span);
    } finally {
      this.spanStart = Date.now();
      this.load.resume();
    }
  }

  private async measure(
    figures: CycleFigures,
    seqs: Map<string, number>,
    span: { startMs: number; endMs: number },
  ): Promise<void> {
    const { cluster } = this;
    const stored: StoredKey[] = [];
    for (const set of cluster.sets) {
      const onLeader = await set.leader.node.documents(SET_COLLECTION).catch(() => new Map());
      for (const [id, json] of onLeader) {
        const key = (JSON.parse(json) as { key?: unknown }).key;
        if (typeof key === 'string') stored.push({ id, key, shard: set.name });
      }
      figures.diverged.push(...(await membersDiffer(set, onLeader)));
    }
    figures.diverged.push(...(await routerDiffers(cluster.router.url, stored)));
    const rollbacks = cluster.members.map((m) => cluster.rolledBack(m));
    const rolledBack = rollbacks.flatMap((r) => r.inserts);
    for (const [file, entries] of rollbacks.flatMap((r) => [...r.files])) {
      if (this.rollbackFiles.has(file)) continue;
      this.rollbackFiles.add(file);
      figures.lagEntries += entries;
    }
    const verdict = judge(this.load.attempts, stored, new Set(rolledBack.map((r) => r.key)));
    const attempts = this.load.attempts.slice(this.attemptsSeen);
    this.attemptsSeen = this.load.attempts.length;
    for (const a of attempts) {
      if (a.outcome === 'acknowledged') figures.acknowledged++;
      else if (a.outcome === 'refused') figures.refused++;
      else figures.unknown++;
    }
    const keys = new Set(attempts.map((a) => a.key));
    const storedKeys = new Set(stored.map((s) => s.key));
    figures.unknownStored = attempts.filter(
      (a) => a.outcome === 'unknown' && storedKeys.has(a.key),
    ).length;
    figures.lost = verdict.lost.filter((k) => !this.reportedLost.has(k));
    for (const key of figures.lost) this.reportedLost.add(key);
    const inRollback = new Set(verdict.lostInRollback);
    figures.lostOutsideRollback = figures.lost.filter((k) => !inRollback.has(k));
    figures.duplicated = verdict.duplicated.filter((k) => !this.reportedDuplicates.has(k));
    for (const key of figures.duplicated) this.reportedDuplicates.add(key);
    figures.refusedStored = verdict.refusedStored.filter((k) => keys.has(k));
    const rollbackOnly = verdict.rollbackOnly.filter((k) => !this.reportedRollbackOnly.has(k));
    for (const key of rollbackOnly) this.reportedRollbackOnly.add(key);
    figures.rollbackOnly = rollbackOnly.length;
    const acked = attempts.filter((a) => a.outcome === 'acknowledged');
    const shardAcks = acked.map((a) => ({ shard: this.shardOf(a.key), receivedMs: a.receivedMs }));
    const gaps = noLeaderWindows(shardAcks, SHARD_NAMES, [span]);
    for (const [shard, ms] of gaps) {
      if (ms > figures.noLeaderMs) [figures.noLeaderMs, figures.noLeaderShard] = [ms, shard];
    }
    await this.placeAndTime(figures, acked, seqs, rolledBack);
  }

  /** Where this cycle's writes were committed: the two-leader window and the kills' resumes. */
  private async placeAndTime(
    figures: CycleFigures,
    acked: readonly Attempt[],
    seqs: Map<string, number>,
    rolledBack: readonly RolledBack[],
  ): Promise<void> {
    const placed = await this.place(figures, acked, seqs, rolledBack);
    for (const kill of figures.kills) {
      const byOthers = placed.filter((p) => p.member !== kill.old);
      kill.resumedMs = resumedAfter(byOthers, kill.shard, kill.fromMs);
    }
    for (const set of this.cluster.sets) {
      const window = twoLeaderWindow(placed.filter((p) => p.shard === set.name));
      if (window.ms > figures.twoLeaderMs) {
        figures.twoLeaderMs = window.ms;
        figures.twoLeaderBetween = `${set.name}: ${window.between}`;
      }
    }
  }

  /**
   * Places this cycle's acknowledged writes: each on the member that led its entry's term,
   * at its commit time, from the leaders' change logs since the last settle or the rollback
   * files. A write with neither is counted as a problem.
   */
  private async place(
    figures: CycleFigures,
    acked: readonly Attempt[],
    seqs: Map<string, number>,
    rolledBack: readonly RolledBack[],
  ): Promise<Placed[]> {
    const fromRollback = new Map(rolledBack.map((r) => [r.id, r]));
    const placed: Placed[] = [];
    for (const set of this.cluster.sets) {
      const toSeq = seqs.get(set.name) ?? 0;
      const stamps = await this.cluster.stamps(set, this.settledSeq.get(set.name) ?? 0, toSeq);
      this.settledSeq.set(set.name, toSeq);
      let unstamped = 0;
      for (const attempt of acked) {
        if (this.shardOf(attempt.key) !== set.name) continue;
        const stamp = stamps.get(attempt.id as string) ?? fromRollback.get(attempt.id as string);
        if (stamp === undefined) {
          unstamped++;
          continue;
        }
        const member = this.cluster.book.memberOf(set.name, stamp.term);
        placed.push({ shard: set.name, member, atMs: stamp.atMs, receivedMs: attempt.receivedMs });
      }
      if (unstamped > 0) {
        figures.problems.push(
          `${unstamped} acknowledged writes on ${set.name} have no change-log entry or rollback entry to place them`,
        );
      }
    }
    return placed;
  }
}

/** An acknowledged write placed on the member that committed it. */
interface Placed {
  shard: string;
  member: string;
  /** Its commit time on that member (the entry's stamp). */
  atMs: number;
  /** When its client received the acknowledgement. */
  receivedMs: number;
}

/** Each member of `set` must hold exactly the leader's documents. */
async function membersDiffer(set: ReplicaSet, onLeader: Map<string, string>): Promise<string[]> {
  const found: string[] = [];
  for (const member of set.members) {
    if (member === set.leader) continue;
    const docs = await member.node.documents(SET_COLLECTION).catch(() => undefined);
    if (docs === undefined) {
      found.push(`${member.name} could not be read`);
      continue;
    }
    let differ = 0;
    for (const [id, json] of onLeader) if (docs.get(id) !== json) differ++;
    for (const id of docs.keys()) if (!onLeader.has(id)) differ++;
    if (differ > 0)
      found.push(`${member.name} differs from ${set.leader.name} in ${differ} documents`);
  }
  return found;
}

/** The router's SELECT * must give exactly the documents the shards' leaders hold. */
async function routerDiffers(url: string, stored: readonly StoredKey[]): Promise<string[]> {
  const response = await request(`${url}/query`, {
    body: { sql: `SELECT _id FROM ${SET_COLLECTION}` },
    timeoutMs: 60_000,
  }).catch((error: Error) => ({ status: 0, text: error.message, json: undefined }));
  if (response.status !== 200) {
    return [`the router's read back answered ${response.status}: ${response.text.slice(0, 300)}`];
  }
  const { documents } = response.json as { documents: Array<{ _id: string }> };
  const ids = new Set(documents.map((d) => d._id));
  const expected = new Set(stored.map((s) => s.id));
  const missing = [...expected].filter((id) => !ids.has(id)).length;
  const extra = [...ids].filter((id) => !expected.has(id)).length;
  if (missing === 0 && extra === 0 && documents.length === ids.size) return [];
  return [
    `the router read ${documents.length} documents, the leaders hold ${expected.size} (${missing} missing, ${extra} extra)`,
  ];
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

function keysText(keys: readonly string[]): string {
  const shown = keys.slice(0, KEYS_SHOWN_MAX).join(', ');
  return keys.length > KEYS_SHOWN_MAX ? `${shown} and ${keys.length - KEYS_SHOWN_MAX} more` : shown;
}

/** What failed in a cycle against issue 24's requirements; empty when it passed. */
function requirementsFailed(mode: SetMode, f: CycleFigures): string[] {
  const failed: string[] = [];
  if (mode.sync === 1 && f.lost.length > 0) {
    failed.push(
      `${f.lost.length} acknowledged writes lost with syncFollowers 1 (${keysText(f.lost)})`,
    );
  } else if (f.lostOutsideRollback.length > 0) {
    failed.push(
      `${f.lostOutsideRollback.length} acknowledged writes lost outside rollback files (${keysText(f.lostOutsideRollback)})`,
    );
  } else if (f.lost.length > f.lagEntries) {
    failed.push(
      `${f.lost.length} acknowledged writes lost, more than the ${f.lagEntries} entries the failovers rolled back`,
    );
  }
  if (f.duplicated.length > 0) failed.push(`keys stored twice: ${keysText(f.duplicated)}`);
  if (f.refusedStored.length > 0) {
    failed.push(`writes never sent (connection refused) are stored: ${keysText(f.refusedStored)}`);
  }
  for (const d of f.diverged) failed.push(`diverged: ${d}`);
  if (f.twoLeaderMs > 0) {
    failed.push(
      `two members acknowledged writes at once for ${Math.round(f.twoLeaderMs)} ms (${f.twoLeaderBetween})`,
    );
  }
  failed.push(...f.problems);
  return failed;
}

function cycleLine(mode: SetMode, n: number, total: number, f: CycleFigures, ms: number): string {
  const resumed = f.kills
    .map((k) => `${k.shard} ${seconds(k.resumedMs)} (limit ${seconds(k.limitMs)})`)
    .join(', ');
  return (
    `set/${mode.name} ${n}/${total}: ${f.events.join('; ')}; ` +
    `acknowledged ${f.acknowledged}, unknown ${f.unknown} (stored ${f.unknownStored}), refused ${f.refused}; ` +
    `lost ${f.lost.length} (outside rollback files ${f.lostOutsideRollback.length}; rolled back at the failovers ${f.lagEntries} entries), duplicated ${f.duplicated.length}, rollback-file-only ${f.rollbackOnly}; ` +
    `no-leader window ${Math.round(f.noLeaderMs)} ms (${f.noLeaderShard}), two-leader window ${Math.round(f.twoLeaderMs)} ms; ` +
    `writes resumed after the kill: ${resumed}; cycle ${seconds(ms)}`
  );
}

/** One mode's totals: its summary line. */
export interface ModeSummary {
  mode: string;
  cycles: number;
  failedCycles: number;
  acknowledged: number;
  unknown: number;
  lost: number;
  lostOutsideRollback: number;
  duplicated: number;
  rollbackOnly: number;
  noLeaderMaxMs: number;
  twoLeaderMaxMs: number;
  resumeMaxMs: number;
}

export function summaryLine(s: ModeSummary): string {
  return `set/${s.mode}: cycles ${s.cycles} (failed ${s.failedCycles}), acknowledged ${s.acknowledged}, unknown ${s.unknown}, lost ${s.lost} (outside rollback files ${s.lostOutsideRollback}), duplicated ${s.duplicated}, rollback-file-only ${s.rollbackOnly}, longest no-leader window ${Math.round(s.noLeaderMaxMs)} ms, longest two-leader window ${Math.round(s.twoLeaderMaxMs)} ms, writes resumed after a kill within ${Math.round(s.resumeMaxMs)} ms at most`;
}

function emptySummary(mode: SetMode): ModeSummary {
  return {
    mode: mode.name,
    cycles: 0,
    failedCycles: 0,
    acknowledged: 0,
    unknown: 0,
    lost: 0,
    lostOutsideRollback: 0,
    duplicated: 0,
    rollbackOnly: 0,
    noLeaderMaxMs: 0,
    twoLeaderMaxMs: 0,
    resumeMaxMs: 0,
  };
}

function add(summary: ModeSummary, f: CycleFigures, failed: boolean): void {
  summary.cycles++;
  if (failed) summary.failedCycles++;
  summary.acknowledged += f.acknowledged;
  summary.unknown += f.unknown;
  summary.lost += f.lost.length;
  summary.lostOutsideRollback += f.lostOutsideRollback.length;
  summary.duplicated += f.duplicated.length;
  summary.rollbackOnly += f.rollbackOnly;
  summary.noLeaderMaxMs = Math.max(summary.noLeaderMaxMs, f.noLeaderMs);
  summary.twoLeaderMaxMs = Math.max(summary.twoLeaderMaxMs, f.twoLeaderMs);
  for (const kill of f.kills) {
    summary.resumeMaxMs = Math.max(summary.resumeMaxMs, kill.resumedMs ?? Number.POSITIVE_INFINITY);
  }
}

export interface SetRun {
  checks: CheckResult[];
  summaries: ModeSummary[];
}

/** Runs `cycles` cycles of each of `modes`, logging a line per cycle and per mode. */
export async function runSet(options: {
  dir: string;
  modes: readonly SetMode[];
  cycles: number;
  log: (line: string) => void;
}): Promise<SetRun> {
  const { dir, modes, cycles, log } = options;
  const checks: CheckResult[] = [];
  const summaries: ModeSummary[] = [];
  const coordinator = modes.some((m) => m.coordinator) ? hasCoordinator() : false;
  for (const mode of modes) {
    const cycleCheck = new Check(`set/${mode.name} sync=${mode.sync}: cycles`);
    const resumeCheck = new Check(`set/${mode.name}: writes resume after a leader is killed`);
    if (mode.coordinator && !coordinator) {
      const reason = 'this build has no --coordinator';
      log(`set/${mode.name}: skipped: ${reason}`);
      cycleCheck.skip(reason);
      resumeCheck.skip(reason);
      checks.push(cycleCheck.done(), resumeCheck.done());
      continue;
    }
    const summary = emptySummary(mode);
    await runMode({ dir, mode, cycles, log, cycleCheck, resumeCheck, summary });
    log(summaryLine(summary));
    summaries.push(summary);
    checks.push(cycleCheck.done(), resumeCheck.done());
  }
  return { checks, summaries };
}

async function runMode(options: {
  dir: string;
  mode: SetMode;
  cycles: number;
  log: (line: string) => void;
  cycleCheck: Check;
  resumeCheck: Check;
  summary: ModeSummary;
}): Promise<void> {
  const { dir, mode, cycles, log, cycleCheck, resumeCheck, summary } = options;
  let cluster: SetCluster | undefined;
  let run: ModeRun | undefined;
  try {
    try {
      cluster = await SetCluster.open(dir, mode);
    } catch (error) {
      // No cluster (etcd missing, a member that would not start): this mode fails, saying
      // why, and the next one runs.
      const message = (error as Error).message.slice(0, 2_000);
      log(`set/${mode.name}: the cluster did not start: ${message}`);
      cycleCheck.count('did not start', `the cluster did not start: ${message}`);
      return;
    }
    run = new ModeRun(cluster, mode);
    run.load.start();
    for (let n = 1; n <= cycles; n++) {
      const started = performance.now();
      let figures: CycleFigures;
      try {
        figures = await run.cycle(n);
      } catch (error) {
        // A stuck member or router: the cycle fails with what it said, and the mode ends.
        const message = (error as Error).message.slice(0, 2_000);
        log(
          `set/${mode.name} ${n}/${cycles}: STUCK after ${seconds(performance.now() - started)}: ${message}`,
        );
        cycleCheck.count('stuck', `cycle ${n}: ${message}`);
        summary.cycles++;
        summary.failedCycles++;
        return;
      }
      const ms = performance.now() - started;
      log(cycleLine(mode, n, cycles, figures, ms));
      const failed = requirementsFailed(mode, figures);
      add(summary, figures, failed.length > 0);
      cycleCheck.count(
        failed.length === 0 ? 'clean' : 'failed',
        failed.length === 0 ? undefined : `cycle ${n}: ${failed.join('; ')}`,
      );
      for (const kill of figures.kills) {
        const late = kill.resumedMs === undefined || kill.resumedMs > kill.limitMs;
        resumeCheck.count(
          late ? 'late' : 'in time',
          late
            ? `cycle ${n}: writes on ${kill.shard} resumed ${seconds(kill.resumedMs)} after ${mode.coordinator ? 'the kill' : "the operator's promotion"}, limit ${seconds(kill.limitMs)}`
            : undefined,
        );
      }
    }
  } finally {
    await run?.load.close().catch(() => {});
    await cluster?.close().catch(() => {});
  }
}

export const set: TorturePart = {
  name: 'set',
  description:
    "Jepsen's set workload through the router into 2 shards × 3 members under kill -9, partitions, slow links and router restarts: no acknowledged write lost (syncFollowers 1) or lost outside a rollback file, none stored twice, never two acknowledging leaders",
  async run(context: PartContext): Promise<CheckResult[]> {
    const run = await runSet({
      dir: context.dir,
      modes: SET_MODES,
      cycles: context.quick ? QUICK_CYCLES : FULL_CYCLES,
      log: context.log,
    });
    return run.checks;
  },
};

/**
 * Turns measurements into the report of a run: medians per workload and system, the ratio
 * docdb/peer per round and its median, the targets of issue 13 met or missed; then prints the
 * terminal table and writes `bench/results/*.json` (written to a .tmp file, then renamed).
 * docs/benchmarks.md is rendered from the JSON by docs.ts.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Measurement } from './embedded/phase.js';
import type { Machine } from './machine.js';
import { formatMs, formatRate, formatRatio, median } from './measure.js';
import type { ScaleReport } from './scale.js';
import {
  SCALE_TARGET,
  TARGETS,
  type TargetCheck,
  WORKLOADS,
  type WorkloadId,
  workloadInfo,
} from './workloads.js';

/** The systems in the order tables show them. */
export const SYSTEM_ORDER = [
  'docdb',
  'leader',
  'router',
  'cluster-client',
  'sqlite',
  'nedb',
  'postgres',
  'http-ceiling',
  'single-node',
  'node',
  'disk',
  'no-writers',
  'one-process',
] as const;
const SYSTEM_TITLES: Record<string, string> = {
  docdb: 'docdb',
  leader: 'docdb leader + 1 follower',
  router: 'docdb router, 3 shards',
  'cluster-client': 'docdb/client/cluster, 3 shards',
  sqlite: 'SQLite',
  nedb: 'NeDB',
  postgres: 'PostgreSQL',
  'http-ceiling': 'HTTP ceiling',
  'single-node': 'docdb single node',
  node: 'docdb node directly (all documents)',
  disk: "the disk's own limit",
  'no-writers': 'docdb, no writers running',
  'one-process': 'docdb, one process',
};

/**
 * A run that began above this 1-minute load average was not on a quiet machine (issue 13):
 * it says so, and its figures are not to be quoted.
 */
export const QUIET_LOAD_MAX = 0.5;

/** The width of the system column of the terminal table. */
const SYSTEM_TITLE_WIDTH = Math.max(...Object.values(SYSTEM_TITLES).map((t) => t.length)) + 1;

/** The title of a system in tables. */
export function systemTitle(name: string): string {
  return SYSTEM_TITLES[name] ?? name;
}

/** One line of results: medians over the rounds. */
export interface ResultRow {
  workload: WorkloadId;
  system: string;
  opsPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
  unit: string;
  /** opsPerSec of each round, in order. */
  perRound: number[];
  /** p99Ms of each round, in order, for a workload whose ratios compare p99 latencies. */
  p99PerRound?: number[];
}

export interface RatioRow {
  workload: WorkloadId;
  vs: string;
  /** Median of the per-round ratios docdb/peer. */
  median: number;
  perRound: number[];
}

/** One ratio a target checks, as measured (null when the run did not measure it). */
export type CheckRow = TargetCheck & { median: number | null };

/** A row of issue 13's targets table, judged from one run. */
export interface TargetRow {
  target: string;
  checks: CheckRow[];
  status: 'met' | 'missed' | 'not measured';
  /** What was measured, for the table. */
  measured: string;
}

/** The JSON of a run (`bench/results/latest.json`). */
export interface Report {
  machine: Machine;
  date: string;
  mode: 'full' | 'quick';
  docs: number;
  rounds: number;
  durationSeconds: number;
  results: ResultRow[];
  ratios: RatioRow[];
  targets: TargetRow[];
  notes: string[];
  postgresSkipped?: string;
  /** The 1, 5 and 15 minute load averages when the run began and ended: other work skews. */
  loadAverage: { atStart: number[]; atEnd: number[] };
}

function rowsOf(measurements: Measurement[]): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const { id, unit, compares } of WORKLOADS) {
    for (const system of SYSTEM_ORDER) {
      const ms = measurements
        .filter((m) => m.workload === id && m.system === system)
        .sort((a, b) => a.round - b.round);
      if (ms.length === 0) continue;
      const p50 = ms.map((m) => m.sample.p50Ms).filter((v): v is number => v !== null);
      const p99 = ms.map((m) => m.sample.p99Ms).filter((v): v is number => v !== null);
      rows.push({
        workload: id,
        system,
        opsPerSec: median(ms.map((m) => m.sample.opsPerSec)),
        p50Ms: p50.length > 0 ? median(p50) : null,
        p99Ms: p99.length > 0 ? median(p99) : null,
        unit,
        perRound: ms.map((m) => m.sample.opsPerSec),
        ...(compares === 'p99' && {
          p99PerRound: ms.map((m) => m.sample.p99Ms ?? Number.NaN),
        }),
      });
    }
  }
  return rows;
}

/** The figures of each round a workload's ratios divide: its rates, or its p99 latencies. */
function comparedPerRound(row: ResultRow): number[] {
  return workloadInfo(row.workload).compares === 'p99' ? (row.p99PerRound ?? []) : row.perRound;
}

/** What a ratio of `workload` divides, for its label: `p99 ` for a latency row, else nothing. */
export function ratioPrefix(workload: WorkloadId): string {
  return workloadInfo(workload).compares === 'p99' ? 'p99 ' : '';
}

function ratiosOf(rows: ResultRow[]): RatioRow[] {
  const ratios: RatioRow[] = [];
  for (const row of rows) {
    const subject = workloadInfo(row.workload).subject;
    if (row.system === subject) continue;
    const top = rows.find((r) => r.workload === row.workload && r.system === subject);
    if (!top) continue;
    const tops = comparedPerRound(top);
    const perRound = comparedPerRound(row).map((peer, i) => (tops[i] ?? Number.NaN) / peer);
    ratios.push({ workload: row.workload, vs: row.system, median: median(perRound), perRound });
  }
  return ratios;
}

/** Whether a measured ratio meets its check: at least its floor, or at most its ceiling. */
function meets(check: TargetCheck, ratio: number): boolean {
  return 'atLeast' in check ? ratio >= check.atLeast : ratio <= check.atMost;
}

/** A check's bound as the tables print it: `≥ 2.00×` or `≤ 2.00×`. */
function boundText(check: TargetCheck): string {
  return 'atLeast' in check ? `≥ ${formatRatio(check.atLeast)}` : `≤ ${formatRatio(check.atMost)}`;
}

function statusOf(checks: CheckRow[]): TargetRow['status'] {
  if (checks.some((c) => c.median !== null && !meets(c, c.median))) return 'missed';
  return checks.every((c) => c.median !== null) ? 'met' : 'not measured';
}

/**
 * The load rate of a scale run's last stretch over its first; older scale.json files do not
 * hold it, and it follows from their checkpoints.
 */
export function loadRatioOf(scale: ScaleReport): number {
  const first = scale.points[0];
  const last = scale.points.at(-1);
  return (
    scale.loadRatio ?? (first && last ? last.loadDocsPerSec / first.loadDocsPerSec : Number.NaN)
  );
}

function scaleRow(scale: ScaleReport | undefined): TargetRow {
  const base = { target: SCALE_TARGET.text, checks: [] };
  if (!scale) return { ...base, status: 'not measured', measured: 'no scale run' };
  const loadRatio = loadRatioOf(scale);
  const measured = `at ${scale.docs.toLocaleString('en-US')}: lookups ${formatRatio(scale.lookupRatio)}, load ${formatRatio(loadRatio)}, file ${(scale.fileBytesAt10M / 1e9).toFixed(2)} GB${scale.fileProjected ? ' (projected)' : ''}`;
  if (scale.docs < SCALE_TARGET.docs) return { ...base, status: 'not measured', measured };
  const met =
    scale.lookupRatio >= SCALE_TARGET.lookupRatioAtLeast &&
    loadRatio >= SCALE_TARGET.loadRatioAtLeast &&
    scale.fileBytesAt10M <= SCALE_TARGET.fileBytesAtMost;
  return { ...base, status: met ? 'met' : 'missed', measured };
}

/**
 * Judges issue 13's targets from the ratios of a run (and a scale run): a row is met when
 * every ratio it checks reaches its bar, missed when any measured one falls short, and not
 * measured otherwise. docs.ts calls it too, so a page rendered from an older run's JSON is
 * judged by today's targets.
 */
export function judgeTargets(ratios: RatioRow[], scale?: ScaleReport): TargetRow[] {
  const rows: TargetRow[] = TARGETS.map((t) => {
    const checks = t.checks.map((c) => ({
      ...c,
      median: ratios.find((r) => r.workload === c.workload && r.vs === c.vs)?.median ?? null,
    }));
    const measured = checks
      .map(
        (c) =>
          `${c.workload} vs ${systemTitle(c.vs)}: ${c.median === null ? 'n/a' : `${ratioPrefix(c.workload)}${formatRatio(c.median)}`} (${boundText(c)})`,
      )
      .join('; ');
    return { target: t.text, checks, status: statusOf(checks), measured };
  });
  rows.push(scaleRow(scale));
  return rows;
}

/** Builds the report of a run. */
export function buildReport(input: {
  machine: Machine;
  mode: 'full' | 'quick';
  docs: number;
  rounds: number;
  durationSeconds: number;
  measurements: Measurement[];
  notes: string[];
  postgresSkipped?: string;
  loadAverageAtStart: number[];
}): Report {
  const results = rowsOf(input.measurements);
  const ratios = ratiosOf(results);
  const { measurements: _, loadAverageAtStart, ...rest } = input;
  return {
    ...rest,
    loadAverage: { atStart: loadAverageAtStart, atEnd: os.loadavg() },
    date: new Date().toISOString(),
    results,
    ratios,
    targets: judgeTargets(ratios),
  };
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

function latency(row: ResultRow | undefined): string {
  if (!row || row.p50Ms === null) return '';
  return ` (p50 ${formatMs(row.p50Ms)} / p99 ${formatMs(row.p99Ms)} ms)`;
}

/** The terminal table: one block per workload, one line per system with its ratio. */
export function printReport(report: Report): void {
  const out: string[] = [];
  out.push('');
  out.push(
    `docdb benchmark — ${report.mode} run, ${report.docs.toLocaleString('en-US')} documents, ${report.rounds} round(s), ${report.machine.cores} cores, Node ${report.machine.node}`,
  );
  for (const { id, title } of WORKLOADS) {
    const rows = report.results.filter((r) => r.workload === id);
    if (rows.length === 0) continue;
    out.push('');
    out.push(`${title} [${workloadInfo(id).unit}]`);
    for (const row of rows) {
      const ratio = report.ratios.find((r) => r.workload === id && r.vs === row.system);
      const ratioText = ratio
        ? `${ratioPrefix(id)}${workloadInfo(id).subject}/${row.system} ${formatRatio(ratio.median)}${ratio.perRound.length > 1 ? ` (rounds ${ratio.perRound.map((r) => r.toFixed(2)).join(' ')})` : ''}`
        : '';
      out.push(
        `  ${pad(systemTitle(row.system), SYSTEM_TITLE_WIDTH)}${pad(formatRate(row.opsPerSec), 12, true)}${latency(row)}  ${ratioText}`,
      );
    }
  }
  out.push('');
  out.push('Targets of issue 13 (median ratio; scale mode is judged from scale.json):');
  for (const t of report.targets) {
    if (t.checks.length === 0) continue;
    const verdict = t.status === 'missed' ? 'MISSED' : t.status;
    out.push(`  ${pad(verdict, 13)} ${t.target}: ${t.measured}`);
  }
  if (report.mode === 'quick' || report.docs !== 250_000) {
    out.push('  (the targets are defined for a full run of 250,000 documents)');
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  const busy = busyNote(report);
  if (busy) out.push(`note: ${busy}`);
  console.log(out.join('\n'));
}

/**
 * The warning of a run that did not begin on a quiet machine (1-minute load average above
 * QUIET_LOAD_MAX), else undefined.
 */
export function busyNote(report: Pick<Report, 'loadAverage' | 'machine'>): string | undefined {
  const { atStart, atEnd } = report.loadAverage;
  const start = atStart[0] ?? 0;
  if (start <= QUIET_LOAD_MAX) return undefined;
  return `the run began on a busy machine (load average ${start.toFixed(2)} on ${report.machine.cores} cores, above ${QUIET_LOAD_MAX}; ${(atEnd[0] ?? 0).toFixed(2)} at the end): its figures are not to be quoted; repeat the run on a quiet machine.`;
}

/** Writes JSON atomically (a .tmp file renamed over the target). */
export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

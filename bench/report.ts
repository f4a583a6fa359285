/**
 * Turns measurements into the report of a run: medians per workload and system, the ratio
 * docdb/peer per round and its median, the targets of issue 5 met or missed; then prints the
 * terminal table and writes `bench/results/*.json` (written to a .tmp file, then renamed).
 * docs/benchmarks.md is rendered from the JSON by docs.ts.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Measurement } from './embedded/phase.js';
import type { Machine } from './machine.js';
import { formatMs, formatRate, formatRatio, median } from './measure.js';
import { TARGETS, WORKLOADS, type WorkloadId, workloadInfo } from './workloads.js';

/** The systems in the order tables show them. */
export const SYSTEM_ORDER = ['docdb', 'sqlite', 'nedb', 'postgres', 'http-ceiling'] as const;
const SYSTEM_TITLES: Record<string, string> = {
  docdb: 'docdb',
  sqlite: 'SQLite',
  nedb: 'NeDB',
  postgres: 'PostgreSQL',
  'http-ceiling': 'HTTP ceiling',
};

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
}

export interface RatioRow {
  workload: WorkloadId;
  vs: string;
  /** Median of the per-round ratios docdb/peer. */
  median: number;
  perRound: number[];
}

export interface TargetRow {
  target: string;
  vs: string;
  atLeast: number;
  /** The ratio of each workload the target covers (the smallest decides). */
  ratios: { workload: WorkloadId; median: number | null }[];
  met: boolean | null;
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
  for (const { id, unit } of WORKLOADS) {
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
      });
    }
  }
  return rows;
}

function ratiosOf(rows: ResultRow[]): RatioRow[] {
  const ratios: RatioRow[] = [];
  for (const row of rows) {
    if (row.system === 'docdb') continue;
    const docdb = rows.find((r) => r.workload === row.workload && r.system === 'docdb');
    if (!docdb) continue;
    const perRound = row.perRound.map((peer, i) => (docdb.perRound[i] ?? Number.NaN) / peer);
    ratios.push({ workload: row.workload, vs: row.system, median: median(perRound), perRound });
  }
  return ratios;
}

function targetsOf(ratios: RatioRow[]): TargetRow[] {
  return TARGETS.map((t) => {
    const found = t.workloads.map((workload) => ({
      workload,
      median: ratios.find((r) => r.workload === workload && r.vs === t.vs)?.median ?? null,
    }));
    const known = found.every((f) => f.median !== null);
    return {
      target: t.text,
      vs: t.vs,
      atLeast: t.atLeast,
      ratios: found,
      met: known ? found.every((f) => (f.median as number) >= t.atLeast) : null,
    };
  });
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
    targets: targetsOf(ratios),
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
        ? `docdb/${row.system} ${formatRatio(ratio.median)}${ratio.perRound.length > 1 ? ` (rounds ${ratio.perRound.map((r) => r.toFixed(2)).join(' ')})` : ''}`
        : '';
      out.push(
        `  ${pad(systemTitle(row.system), 13)}${pad(formatRate(row.opsPerSec), 12, true)}${latency(row)}  ${ratioText}`,
      );
    }
  }
  out.push('');
  out.push('Targets of issue 5 (median ratio docdb/peer):');
  for (const t of report.targets) {
    const ratios = t.ratios
      .map((r) => (r.median === null ? 'n/a' : formatRatio(r.median)))
      .join(', ');
    const verdict = t.met === null ? 'not measured' : t.met ? 'met' : 'MISSED';
    out.push(`  ${pad(verdict, 13)} ${t.target}: ${ratios}`);
  }
  if (report.mode === 'quick' || report.docs !== 250_000) {
    out.push('  (the targets are defined for a full run of 250,000 documents)');
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  const busy = busyNote(report);
  if (busy) out.push(`note: ${busy}`);
  console.log(out.join('\n'));
}

/** A warning when other work loaded the machine during the run, else undefined. */
export function busyNote(report: Report): string | undefined {
  const { atStart, atEnd } = report.loadAverage;
  const start = atStart[0] ?? 0;
  const threshold = report.machine.cores / 2;
  if (start <= threshold) return undefined;
  return `the machine was already busy when the run began (load average ${start.toFixed(2)} on ${report.machine.cores} cores; ${(atEnd[0] ?? 0).toFixed(2)} at the end): other work skews the figures.`;
}

/** Writes JSON atomically (a .tmp file renamed over the target). */
export function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

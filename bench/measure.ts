/**
 * Timing and statistics of the harness: time-boxed operation loops, medians and percentiles.
 * Pure helpers; they never touch a system under test.
 */

/** What one timed run of a workload on one system gave. */
export interface Sample {
  /** Operations (or documents, for loads and streams) per second. */
  opsPerSec: number;
  /** Median and 99th percentile latency of one operation, when measured. */
  p50Ms: number | null;
  p99Ms: number | null;
  /** Operations completed; a check that the run did real work. */
  ops: number;
}

/** The median of a non-empty list (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The nearest-rank percentile `p` (0–100) of a sorted list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/**
 * Runs `op` again and again until `durationMs` have passed and at least `minOps` ran, and
 * reports the rate with per-operation latencies. `op` returns how many units it did (1 for a
 * query; a load returns its batch size) and may be synchronous or asynchronous. `untimed`,
 * when given, runs before each `op` and its time counts neither in the rate nor in the time
 * box: the "after a write" reads put their write there.
 */
export async function timeBox(
  durationMs: number,
  minOps: number,
  op: (n: number) => number | Promise<number>,
  untimed?: (n: number) => unknown,
): Promise<Sample> {
  const latencies: number[] = [];
  let units = 0;
  let timedMs = 0;
  for (let n = 0; timedMs < durationMs || n < minOps; n++) {
    if (untimed) await untimed(n);
    const t = performance.now();
    const result = op(n);
    units += typeof result === 'number' ? result : await result;
    const spent = performance.now() - t;
    timedMs += spent;
    latencies.push(spent);
  }
  return summarise(units, timedMs, latencies);
}

/** Runs `op` exactly `count` times (writes that consume keys need a known count). */
export async function counted(
  count: number,
  op: (n: number) => number | Promise<number>,
): Promise<Sample> {
  const latencies: number[] = [];
  let units = 0;
  const started = performance.now();
  for (let n = 0; n < count; n++) {
    const t = performance.now();
    const result = op(n);
    units += typeof result === 'number' ? result : await result;
    latencies.push(performance.now() - t);
  }
  return summarise(units, performance.now() - started, latencies);
}

function summarise(units: number, elapsedMs: number, latencies: number[]): Sample {
  latencies.sort((a, b) => a - b);
  return {
    opsPerSec: (units / elapsedMs) * 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ops: latencies.length,
  };
}

/** `n` with thousands separators and no more than 3 significant decimals. */
export function formatRate(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n >= 100) return Math.round(n).toLocaleString('en-US');
  return n.toPrecision(3);
}

/** A ratio as `2.31×`. */
export function formatRatio(n: number): string {
  return Number.isFinite(n) ? `${n.toFixed(2)}×` : '—';
}

/** autocannon's latencies are whole milliseconds: 0 means under one. */
export function formatMs(ms: number | null): string {
  if (ms === null) return '';
  return ms < 1 ? '<1' : ms >= 10 ? String(Math.round(ms)) : ms.toFixed(1).replace(/\.0$/, '');
}

/**
 * The machine's own speed when a run begins: the same fixed work in every run, kept in its
 * results, so that two runs can be told apart by the machine as well as by the code.
 *
 * The load average only sees this machine's own queue. Both runs of 2026-11-28 began quiet
 * by it, and every system in them (SQLite, PostgreSQL, the HTTP ceiling) ran 20–50% slower
 * than in the page's run of the day before: the virtual machine had been moved to another
 * host, an Intel Xeon in place of an AMD EPYC (bench/misses.md, the 10M item). So a run
 * compares its CPU with the recorded run's, and times two things no code of docdb's touches:
 * - random reads over an array far larger than the CPU caches (what lookups in a large file
 *   pay: memory latency and TLB misses);
 * - a JSON round trip of one sample order (the CPU itself).
 *
 * A run on another CPU than the recorded run it would replace, or whose probe is slower than
 * that run's by more than PROBE_SLOWER_MAX on either count, is warned about, on the console
 * and (a full run) in its notes.
 */

import { orderAt } from './data.js';
import { median } from './measure.js';

/**
 * How much slower than the recorded run's probe a run may find the machine unwarned. The
 * probe itself spread by about 15% between runs a minute apart on a quiet 2-core machine.
 */
export const PROBE_SLOWER_MAX = 0.25;

/** 512 MiB of 4-byte slots: beyond any CPU cache, and a TLB miss per read. */
const MEMORY_SLOTS = 128 * 1024 * 1024;
const MEMORY_READS = 8_000_000;
const JSON_ROUND_TRIPS = 100_000;
const SAMPLES = 5;

export interface Probe {
  /** Random 4-byte reads a second over 512 MiB (median of five samples). */
  memoryReadsPerSec: number;
  /** `JSON.parse(JSON.stringify(order))` a second on one sample order (median of five). */
  jsonRoundTripsPerSec: number;
}

/** One sample of random reads: a xorshift walk, its sum kept so no read is optimised away. */
function memorySample(slots: Int32Array, seed: number): { rate: number; sum: number } {
  const mask = slots.length - 1;
  let x = seed | 1;
  let sum = 0;
  const started = performance.now();
  for (let i = 0; i < MEMORY_READS; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    sum = (sum + (slots[x & mask] as number)) | 0;
  }
  return { rate: MEMORY_READS / ((performance.now() - started) / 1000), sum };
}

function jsonSample(order: object): { rate: number; size: number } {
  let size = 0;
  const started = performance.now();
  for (let i = 0; i < JSON_ROUND_TRIPS; i++) {
    const text = JSON.stringify(order);
    size += (JSON.parse(text) as { pnr: string }).pnr.length;
  }
  return { rate: JSON_ROUND_TRIPS / ((performance.now() - started) / 1000), size };
}

/** Runs the probe (a few seconds) and answers its rates. */
export function runProbe(): Probe {
  const slots = new Int32Array(MEMORY_SLOTS);
  // Every page touched once, so the samples time reads, not the kernel's first faults.
  for (let i = 0; i < MEMORY_SLOTS; i += 1024) slots[i] = i;
  const memory: number[] = [];
  let sink = 0;
  for (let s = 0; s < SAMPLES; s++) {
    const sample = memorySample(slots, 0x9e3779b9 + s);
    memory.push(sample.rate);
    sink ^= sample.sum;
  }
  const order = orderAt(1);
  const json: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const sample = jsonSample(order);
    json.push(sample.rate);
    sink ^= sample.size;
  }
  if (sink === 0.5) console.log(sink); // never: keeps the sums alive
  return { memoryReadsPerSec: median(memory), jsonRoundTripsPerSec: median(json) };
}

/** What a run records of the machine it ran on, as far as the comparison needs. */
export interface ProbedMachine {
  cpu: string;
  probe?: Probe;
}

/**
 * The warning of a run that began on another CPU than `recorded` (the run of `date` it would
 * replace), or with a probe slower than that run's by more than PROBE_SLOWER_MAX on either
 * count; undefined when neither. A virtual machine can be moved to another host between two
 * runs: the runs of 2026-11-28 found an Intel Xeon where the page's run of 2026-11-27 had an
 * AMD EPYC, with every system of the run 20–50% slower.
 */
export function slowerMachineNote(
  now: ProbedMachine & { probe: Probe },
  recorded: { machine: ProbedMachine; date: string } | undefined,
): string | undefined {
  if (!recorded) return undefined;
  const day = recorded.date.slice(0, 10);
  if (now.cpu !== recorded.machine.cpu) {
    return `this run's CPU (${now.cpu}) is not the one of the recorded run of ${day} (${recorded.machine.cpu}): its figures and ratios are of another machine; compare them with that run's only as such.`;
  }
  const before = recorded.machine.probe;
  if (!before) return undefined;
  const memory = now.probe.memoryReadsPerSec / before.memoryReadsPerSec;
  const json = now.probe.jsonRoundTripsPerSec / before.jsonRoundTripsPerSec;
  if (memory >= 1 - PROBE_SLOWER_MAX && json >= 1 - PROBE_SLOWER_MAX) return undefined;
  return `the machine was slower when this run began than when the recorded run of ${day} did (the probe: random memory reads ${memory.toFixed(2)}×, JSON round trips ${json.toFixed(2)}× that run's; more than ${Math.round(PROBE_SLOWER_MAX * 100)}% slower on either): compare its figures with that run's only as ratios within each run, and repeat it before it replaces that run's page.`;
}

/** The probe's line of the machine section. */
export function probeLine(probe: Probe | undefined): string {
  if (!probe) return 'Probe: not recorded (a run before the probe).';
  return `Probe when the run began (bench/probe.ts, the same work every run): ${formatMillions(probe.memoryReadsPerSec)} random reads/s over 512 MiB, ${Math.round(probe.jsonRoundTripsPerSec).toLocaleString('en-US')} JSON round trips/s of one order.`;
}

function formatMillions(rate: number): string {
  return `${(rate / 1e6).toFixed(1)}M`;
}

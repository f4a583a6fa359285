/**
 * The crash-durability harness (issue 2): runs the writer (writer.ts) as a child process,
 * kills it with SIGKILL at a random moment, reopens the data directory and checks that every
 * acknowledged write is there, indexes agree with documents and the change log is whole.
 * Cycles share one directory, so each cycle also re-checks what earlier cycles left. Used by
 * crash.test.ts (20 cycles) and soak.ts (as many as asked); it never edits the file itself.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AckModel, addCounts, type CycleCounts, emptyCounts } from './ack-model.js';
import { checkReopened, describeProblems } from './check-reopened.js';
import { randomInt, seededRandom } from './protocol.js';
import type { ChangeLogState } from './store-checks.js';
import { startWriter, type WriterRun, writerSeedOf } from './writer-process.js';

/** Shortest and longest time the writer keeps writing after its first acknowledged write. */
export const KILL_AFTER_MS_MIN = 50;
export const KILL_AFTER_MS_MAX = 400;

/** Options of runCrashCycles. */
export interface CrashRunOptions {
  cycles: number;
  /** Seeds the kill delays and each writer's choices; printed with every failure. */
  seed: number;
  /** Receives one progress line per cycle. */
  log?: (line: string) => void;
  /** Data directory to use (kept); a fresh temp dir, removed after a success, when omitted. */
  dir?: string;
}

/** One cycle's facts. */
export interface CycleReport extends CycleCounts {
  cycle: number;
  writerSeed: number;
  killAfterMs: number;
  /** Documents in the file after the cycle, all verified. */
  documents: number;
  ms: number;
}

/** What a run did (`lost` stays 0: a cycle that loses a write fails the run). */
export interface CrashSummary extends CycleCounts {
  cycles: number;
  seed: number;
  documentsVerified: number;
  totalMs: number;
  msPerCycle: number;
}

/** A cycle found the file disagreeing with what was acknowledged, or the writer failed. */
export class CrashCheckError extends Error {
  constructor(
    message: string,
    readonly cycle: number,
    readonly dir: string,
  ) {
    super(message);
    this.name = 'CrashCheckError';
  }
}

/** Runs one writer until the kill, `killAfterMs` after its first acknowledged write. */
async function runWriter(
  dir: string,
  writerSeed: number,
  killAfterMs: number,
  model: AckModel,
): Promise<WriterRun> {
  let killTimer: NodeJS.Timeout | undefined;
  const writer = startWriter({
    dir,
    seed: writerSeed,
    model,
    onFirstAck: () => {
      killTimer = setTimeout(() => writer.kill(), killAfterMs);
    },
  });
  const run = await writer.done;
  clearTimeout(killTimer);
  return run;
}

function failure(
  cycle: number,
  cycles: number,
  seed: number,
  dir: string,
  problems: string[],
  stderr: string,
): CrashCheckError {
  return new CrashCheckError(
    `crash cycle ${cycle} of ${cycles} (seed ${seed}, writer seed ${writerSeedOf(seed, cycle)}, data dir ${dir}) ` +
      `found ${problems.length} problem(s):\n${describeProblems(problems, stderr)}`,
    cycle,
    dir,
  );
}

/** One cycle: write, kill, reopen, verify. Throws CrashCheckError on any problem. */
async function runCycle(
  cycle: number,
  options: CrashRunOptions,
  dir: string,
  state: { model: AckModel; changeLog: ChangeLogState; random: () => number },
): Promise<CycleReport> {
  const started = performance.now();
  const writerSeed = writerSeedOf(options.seed, cycle);
  const killAfterMs = randomInt(state.random, KILL_AFTER_MS_MIN, KILL_AFTER_MS_MAX);
  state.model.beginCycle(cycle);
  const run = await runWriter(dir, writerSeed, killAfterMs, state.model);
  const problems = [...run.problems];
  if (!run.killed || run.exit.signal !== 'SIGKILL') {
    problems.push(
      `the writer exited on its own (code ${run.exit.code}, signal ${run.exit.signal})`,
    );
  }
  // The file is checked even after the writer failed: what a failed write left matters too.
  let documents = 0;
  try {
    const verified = await checkReopened(dir, state.model, state.changeLog);
    problems.push(...verified.problems);
    documents = verified.documents;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push(`reopening and checking the file threw: ${reason}`);
  }
  if (problems.length > 0) {
    throw failure(cycle, options.cycles, options.seed, dir, problems, run.stderr);
  }
  return {
    cycle,
    writerSeed,
    killAfterMs,
    ...state.model.cycleCounts,
    documents,
    ms: performance.now() - started,
  };
}

function progressLine(report: CycleReport, cycles: number): string {
  return (
    `cycle ${report.cycle}/${cycles}: killed after ${report.killAfterMs} ms, ` +
    `${report.ackedWrites} writes acknowledged (${report.ackedChanges} document changes), ` +
    `${report.inFlight} in flight (${report.inFlightLanded} landed), ` +
    `${report.documents} documents verified, ${Math.round(report.ms)} ms`
  );
}

/**
 * Runs `cycles` crash cycles over one data directory and resolves with a summary; rejects
 * with a CrashCheckError naming the cycle, the seeds, the directory and every problem found.
 * A temp directory it created is removed after a success and kept after a failure.
 */
export async function runCrashCycles(options: CrashRunOptions): Promise<CrashSummary> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-crash-'));
  const state = {
    model: new AckModel(),
    changeLog: { verifiedSeq: 0, lastOp: new Map() } satisfies ChangeLogState,
    random: seededRandom(options.seed),
  };
  const summary: CrashSummary = {
    cycles: 0,
    seed: options.seed,
    ...emptyCounts(),
    documentsVerified: 0,
    totalMs: 0,
    msPerCycle: 0,
  };
  const started = performance.now();
  for (let cycle = 1; cycle <= options.cycles; cycle++) {
    const report = await runCycle(cycle, options, dir, state);
    summary.cycles += 1;
    addCounts(summary, report);
    summary.documentsVerified += report.documents;
    options.log?.(progressLine(report, options.cycles));
  }
  summary.totalMs = performance.now() - started;
  summary.msPerCycle = summary.totalMs / Math.max(1, summary.cycles);
  if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
  return summary;
}

/**
 * The crash-durability harness (issue 2): runs the writer (writer.ts) as a child process,
 * kills it with SIGKILL at a random moment, reopens the data directory and checks that every
 * acknowledged write is there, indexes agree with documents and the change log is whole.
 * Cycles share one directory, so each cycle also re-checks what earlier cycles left. Used by
 * crash.test.ts (20 cycles) and soak.ts (as many as asked); it never edits the file itself.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../../src/index.js';
import { AckModel, type CycleCounts } from './ack-model.js';
import {
  CRASH_COLLECTION,
  type CrashDoc,
  randomInt,
  seededRandom,
  type WriterLine,
} from './protocol.js';
import { type ChangeLogState, checkChangeLog, checkIndexes } from './store-checks.js';

/** The repository root: the writer runs from it so `--import tsx` finds node_modules/tsx. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WRITER = path.join(REPO_ROOT, 'test', 'crash', 'writer.ts');

/** Shortest and longest time the writer keeps writing after its first acknowledged write. */
export const KILL_AFTER_MS_MIN = 50;
export const KILL_AFTER_MS_MAX = 400;
/** How long a writer may take to start and acknowledge its first write before the cycle fails. */
export const FIRST_ACK_TIMEOUT_MS = 30_000;
/** Problems listed in one failure message; the rest are counted. */
const PROBLEMS_SHOWN_MAX = 12;

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

/** What a run did. */
export interface CrashSummary {
  cycles: number;
  seed: number;
  ackedWrites: number;
  ackedChanges: number;
  inFlight: number;
  inFlightLanded: number;
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

/** The seed of cycle `cycle`'s writer: distinct per cycle, so its pnr and `w` tags are too. */
function writerSeedOf(seed: number, cycle: number): number {
  return (seed + Math.imul(cycle, 0x9e3779b9)) >>> 0;
}

interface WriterRun {
  exit: { code: number | null; signal: NodeJS.Signals | null };
  killed: boolean;
  problems: string[];
  stderr: string;
}

/** Feeds complete stdout lines to `onLine`; a partial last line (cut by the kill) is dropped. */
function readLines(child: ChildProcess, onLine: (text: string) => void): void {
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    const parts = (pending + chunk).split('\n');
    pending = parts.pop() as string;
    for (const part of parts) onLine(part);
  });
}

/** Runs one writer until the kill; applies its lines to the model as they arrive. */
function runWriter(
  dir: string,
  writerSeed: number,
  killAfterMs: number,
  model: AckModel,
): Promise<WriterRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, String(writerSeed)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run: WriterRun = {
    exit: { code: null, signal: null },
    killed: false,
    problems: [],
    stderr: '',
  };
  const kill = () => {
    run.killed = true;
    child.kill('SIGKILL');
  };
  let killTimer: NodeJS.Timeout | undefined;
  const startTimer = setTimeout(() => {
    run.problems.push(`the writer acknowledged no write within ${FIRST_ACK_TIMEOUT_MS} ms`);
    kill();
  }, FIRST_ACK_TIMEOUT_MS);
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    run.stderr += chunk;
  });
  readLines(child, (text) => {
    if (run.problems.length > 0) return;
    try {
      const line = JSON.parse(text) as WriterLine;
      if ('fatal' in line) throw new Error(`the writer failed: ${line.fatal}`);
      model.apply(line);
      if ('ack' in line && !killTimer) {
        clearTimeout(startTimer);
        killTimer = setTimeout(kill, killAfterMs);
      }
    } catch (error) {
      run.problems.push(error instanceof Error ? error.message : String(error));
      kill();
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(startTimer);
      clearTimeout(killTimer);
      run.exit = { code, signal };
      resolve(run);
    });
  });
}

/** Reopens the directory and runs every check; returns the problems and the documents. */
async function verify(
  dir: string,
  model: AckModel,
  changeLog: ChangeLogState,
): Promise<{ problems: string[]; documents: number }> {
  const db = await open(dir);
  try {
    const found = new Map<string, CrashDoc>();
    for (const stored of db.collection(CRASH_COLLECTION).scan()) {
      const { _id, ...body } = stored;
      found.set(_id as string, body as CrashDoc);
    }
    const problems = model.reconcile(found);
    problems.push(...checkIndexes(db, found));
    const counts = model.cycleCounts;
    problems.push(
      ...checkChangeLog(db, changeLog, found, counts.ackedChanges + counts.inFlightLanded),
    );
    return { problems, documents: found.size };
  } finally {
    await db.close();
  }
}

function failure(
  cycle: number,
  cycles: number,
  seed: number,
  dir: string,
  problems: string[],
  stderr: string,
): CrashCheckError {
  const shown = problems.slice(0, PROBLEMS_SHOWN_MAX).map((p) => `  - ${p}`);
  if (problems.length > PROBLEMS_SHOWN_MAX)
    shown.push(`  … and ${problems.length - PROBLEMS_SHOWN_MAX} more`);
  const tail = stderr.trim() ? `\nwriter stderr:\n${stderr.trim().slice(-2000)}` : '';
  return new CrashCheckError(
    `crash cycle ${cycle} of ${cycles} (seed ${seed}, writer seed ${writerSeedOf(seed, cycle)}, data dir ${dir}) ` +
      `found ${problems.length} problem(s):\n${shown.join('\n')}${tail}`,
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
    const verified = await verify(dir, state.model, state.changeLog);
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
    ackedWrites: 0,
    ackedChanges: 0,
    inFlight: 0,
    inFlightLanded: 0,
    documentsVerified: 0,
    totalMs: 0,
    msPerCycle: 0,
  };
  const started = performance.now();
  for (let cycle = 1; cycle <= options.cycles; cycle++) {
    const report = await runCycle(cycle, options, dir, state);
    summary.cycles += 1;
    summary.ackedWrites += report.ackedWrites;
    summary.ackedChanges += report.ackedChanges;
    summary.inFlight += report.inFlight;
    summary.inFlightLanded += report.inFlightLanded;
    summary.documentsVerified += report.documents;
    options.log?.(progressLine(report, options.cycles));
  }
  summary.totalMs = performance.now() - started;
  summary.msPerCycle = summary.totalMs / Math.max(1, summary.cycles);
  if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
  return summary;
}

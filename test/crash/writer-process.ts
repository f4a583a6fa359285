/**
 * Runs the crash writer (writer.ts) as a child process for both crash harnesses (kill -9 in
 * crash-harness.ts, power cut in power-cut.ts): spawns it, feeds every complete stdout line to
 * the ack model and to its caller, and reports how it ended. When the writer dies is the
 * caller's choice; this module only kills it when it breaks the protocol or never acknowledges.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AckModel } from './ack-model.js';
import type { WriterFlag, WriterLine } from './protocol.js';

/** The repository root: the writer runs from it so `--import tsx` finds node_modules/tsx. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WRITER = path.join(REPO_ROOT, 'test', 'crash', 'writer.ts');

/** How long a writer may take to start and acknowledge its first write before the cycle fails. */
export const FIRST_ACK_TIMEOUT_MS = 30_000;

/** The seed of cycle `cycle`'s writer: distinct per cycle, so its pnr and `w` tags are too. */
export function writerSeedOf(seed: number, cycle: number): number {
  return (seed + Math.imul(cycle, 0x9e3779b9)) >>> 0;
}

/** How a writer process ended, and what went wrong on the way. */
export interface WriterRun {
  exit: { code: number | null; signal: NodeJS.Signals | null };
  killed: boolean;
  /** Protocol breaks, fatal lines and timeouts: each fails the cycle. */
  problems: string[];
  /** The writer's fatal line, when it printed one while its failure was expected. */
  expectedFatal?: string;
  stderr: string;
}

/** What to start and what to tell the caller. */
export interface WriterOptions {
  dir: string;
  seed: number;
  flags?: readonly WriterFlag[];
  /** Receives every line, after the model applied it. */
  model: AckModel;
  onLine?: (line: WriterLine) => void;
  /** Called once, when the first acknowledgement arrived. */
  onFirstAck?: () => void;
  /**
   * True once the writer is expected to fail (its disk was cut away): a fatal line is then
   * recorded, not a problem. By default the writer must never fail.
   */
  failureExpected?: () => boolean;
}

/** A running writer. */
export interface WriterProcess {
  readonly run: WriterRun;
  /** Resolves once the process has exited and its output is read. */
  readonly done: Promise<WriterRun>;
  /** SIGKILL, once; `run.killed` records it. */
  kill(): void;
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

/** Starts a writer on `options.dir`; it writes until it is killed. */
export function startWriter(options: WriterOptions): WriterProcess {
  const args = ['--import', 'tsx', WRITER, options.dir, String(options.seed)];
  const child = spawn(process.execPath, [...args, ...(options.flags ?? [])], {
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
    if (run.killed) return;
    run.killed = true;
    child.kill('SIGKILL');
  };
  let acknowledged = false;
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
      if ('fatal' in line) {
        if (!options.failureExpected?.()) throw new Error(`the writer failed: ${line.fatal}`);
        run.expectedFatal = line.fatal;
        return;
      }
      options.model.apply(line);
      options.onLine?.(line);
      if ('ack' in line && !acknowledged) {
        acknowledged = true;
        clearTimeout(startTimer);
        options.onFirstAck?.();
      }
    } catch (error) {
      run.problems.push(error instanceof Error ? error.message : String(error));
      kill();
    }
  });
  const done = new Promise<WriterRun>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(startTimer);
      run.exit = { code, signal };
      resolve(run);
    });
  });
  return { run, done, kill };
}

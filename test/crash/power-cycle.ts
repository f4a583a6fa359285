/**
 * One power-cut cycle (issue 22): mount holdfs over the backing directory, start the crash
 * writer in it, cut the power at the planned moment, kill the writer, unmount, then open the
 * backing directory as the power cut left it and check it. Planning the moments and counting
 * the outcomes is power-cut.ts's; this module runs one cycle and reports what it saw.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database } from '../../src/index.js';
import { DATA_FILE_NAME } from '../../src/storage/index.js';
import type { AckModel, CycleCounts } from './ack-model.js';
import { checkReopened } from './check-reopened.js';
import { type CutReport, HoldFs } from './holdfs.js';
import {
  BULK_ITEMS_MIN,
  type CrashDoc,
  type IntentLine,
  type WriterFlag,
  type WriterLine,
} from './protocol.js';
import type { ChangeLogState } from './store-checks.js';
import { startWriter, type WriterProcess, type WriterRun } from './writer-process.js';

/** When the power goes off, relative to what the writer does. */
export type Moment = 'timed' | 'sync' | 'checkpoint' | 'bulk' | 'new-directory';

/**
 * How a cut falls once its moment has come: after a delay, or at the Nth sync from then (with
 * `minPages`, counting only syncs of a file holding at least that many unsynced pages).
 */
export type CutAt = { delayMs: number } | { syncs: number; minPages?: number };

/** One cycle's cut. */
export interface CutPlan {
  moment: Moment;
  at: CutAt;
  /** Seeds a torn cut (a random half of the held pages written); a clean cut when absent. */
  tornSeed?: number;
}

/** How long to wait for a checkpoint or a bulk insert to begin before cutting anyway. */
const TRIGGER_WAIT_MS = 5_000;
/** An armed cut that has not fallen due after this long (the writer stopped syncing) is sent. */
const ARMED_WAIT_MS = 5_000;
/** Verify problems quoted in a failure; the count says how many there were. */
const VERIFY_PROBLEMS_SHOWN = 5;

/**
 * The pages held at the cut of files that keep the database's state: all but the lock files
 * (LMDB's reader table `<file>-lock`, rebuilt by every open, and the writer lock's owner
 * record `<file>-owner`, written without a sync and taken over when it does not read).
 */
export function heldStatePages(cut: CutReport | undefined): number {
  if (!cut) return 0;
  let pages = 0;
  for (const [name, count] of Object.entries(cut.heldByFile)) {
    if (!/-lock$|-owner/.test(path.basename(name))) pages += count;
  }
  return pages;
}

/** What the data file of a new directory was when the power went off. */
export type DataFileState = 'none' | 'empty' | 'written';

/** What one cycle saw. */
export interface PowerCycleReport extends CycleCounts {
  plan: CutPlan;
  /** The moment the cut fell at: the plan's, or 'timed' when its trigger never came. */
  moment: Moment;
  cut: CutReport | undefined;
  /** The data file as the cut left it (read before the reopen). */
  dataFile: DataFileState;
  /** The writer printed `ready` (its indexes exist) before the cut. */
  writerReady: boolean;
  /** The reopen and every check ran (a failed open leaves this false). */
  opened: boolean;
  documents: number;
  problems: string[];
  stderr: string;
  ms: number;
}

/** Where and what one cycle runs. */
export interface PowerCycleSetup {
  /** The disk: what holdfs mounts. */
  backing: string;
  /** The data directory's name under the backing directory (and the mountpoint). */
  dataDirName: string;
  /** Holds the mountpoint and holdfs's socket; never inside `backing`. */
  workDir: string;
  python: string;
  writerSeed: number;
  flags: readonly WriterFlag[];
  model: AckModel;
  changeLog: ChangeLogState;
  plan: CutPlan;
}

/** The insertMany intents not (yet) acknowledged, by op: each must land whole or not at all. */
type Batches = Map<number, Extract<IntentLine, { intent: 'insertMany' }>>;

/** Drives the cut of one cycle: arms or times it when its moment comes, once. */
class CutDriver {
  private started = false;
  private cutting: Promise<unknown> | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;
  moment: Moment;
  readonly errors: string[] = [];

  constructor(
    private readonly holdfs: HoldFs,
    private readonly plan: CutPlan,
  ) {
    this.moment = plan.moment;
  }

  /** True once a cut was asked for: from then on the writer may fail. */
  get begun(): boolean {
    return this.started;
  }

  /** The plan's cut, from now. */
  start(at: CutAt = this.plan.at, moment: Moment = this.plan.moment): void {
    if (this.started) return;
    this.started = true;
    this.moment = moment;
    if ('delayMs' in at) {
      this.later(at.delayMs, () => this.now());
      return;
    }
    const arming = { minPages: at.minPages, tornSeed: this.plan.tornSeed };
    this.holdfs.arm(at.syncs, arming).then(
      () => this.later(ARMED_WAIT_MS, () => this.fallBack()),
      (error: Error) => {
        this.errors.push(`arming the cut failed: ${error.message}`);
        this.now();
      },
    );
  }

  /** Runs `action` after `ms` unless the cycle is over by then. */
  later(ms: number, action: () => void): void {
    if (!this.stopped) this.timers.push(setTimeout(action, ms));
  }

  /** Clears what is still scheduled: the cycle is over. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearTimeout(timer);
  }

  /** The armed cut never fell due: cut now, and call it a timed one. */
  private fallBack(): void {
    if (!this.holdfs.cutDone) this.moment = 'timed';
    this.now();
  }

  /** Cuts now, unless the power is already off. */
  now(): Promise<unknown> {
    this.started = true;
    if (this.holdfs.cutDone) return Promise.resolve();
    this.cutting ??= this.holdfs.cut(this.plan.tornSeed).catch((error: Error) => {
      this.errors.push(`cutting the power failed: ${error.message}`);
    });
    return this.cutting;
  }
}

/** Whether the line starts a checkpoint. */
function beginsCheckpoint(line: WriterLine): boolean {
  return 'maintenance' in line && line.maintenance === 'checkpoint' && line.phase === 'begin';
}

/** Starts the writer with the cut's triggers wired to its lines. */
function startCutWriter(
  setup: PowerCycleSetup,
  dir: string,
  driver: CutDriver,
  batches: Batches,
  state: { ready: boolean },
): WriterProcess {
  const { plan } = setup;
  return startWriter({
    dir,
    seed: setup.writerSeed,
    flags: setup.flags,
    model: setup.model,
    failureExpected: () => driver.begun,
    onFirstAck: () => {
      if (plan.moment === 'timed' || plan.moment === 'sync') driver.start();
      if (plan.moment === 'checkpoint' || plan.moment === 'bulk') {
        driver.later(TRIGGER_WAIT_MS, () => driver.start({ delayMs: 0 }, 'timed'));
      }
    },
    onLine: (line) => {
      if ('ready' in line) state.ready = true;
      if ('ack' in line && line.ack === 'insertMany') batches.delete(line.op);
      if (plan.moment === 'checkpoint' && beginsCheckpoint(line)) driver.start();
      if (!('intent' in line) || line.intent !== 'insertMany') return;
      batches.set(line.op, line);
      if (plan.moment === 'bulk' && line.items.length >= BULK_ITEMS_MIN) driver.start();
    },
  });
}

/** Runs the writer until the power is off and it is dead; the problems of that part. */
async function runUntilCut(
  setup: PowerCycleSetup,
  holdfs: HoldFs,
  batches: Batches,
  state: { ready: boolean; cut?: CutReport; moment: Moment },
): Promise<{ run: WriterRun; problems: string[] }> {
  const driver = new CutDriver(holdfs, setup.plan);
  // A new directory's cut counts syncs from before the writer's first one.
  if (setup.plan.moment === 'new-directory') driver.start();
  const dir = path.join(holdfs.mountpoint, setup.dataDirName);
  const writer = startCutWriter(setup, dir, driver, batches, state);
  const problems: string[] = [];
  const exitedFirst = await Promise.race([
    holdfs.whenCut().then(() => false),
    writer.done.then(() => true),
  ]);
  driver.stop();
  if (exitedFirst) {
    // Asked after the writer died, holdfs says whether the power was off before it did (an
    // armed cut's report may still be on its way; no timer can cut any more).
    const { cut } = await holdfs.stats();
    if (!cut && writer.run.problems.length === 0) {
      const { code, signal } = writer.run.exit;
      const fatal = writer.run.expectedFatal ? `: ${writer.run.expectedFatal}` : '';
      problems.push(
        `the writer exited before the power cut (code ${code}, signal ${signal})${fatal}`,
      );
    }
    await driver.now();
  }
  writer.kill();
  const run = await writer.done;
  state.cut = holdfs.cutDone;
  state.moment = driver.moment;
  problems.push(...run.problems, ...driver.errors);
  return { run, problems };
}

function dataFileState(dir: string): DataFileState {
  try {
    return fs.statSync(path.join(dir, DATA_FILE_NAME)).size === 0 ? 'empty' : 'written';
  } catch {
    return 'none';
  }
}

/** Every insertMany not acknowledged must be stored whole or not at all. */
function bulkProblems(batches: Batches, found: Map<string, CrashDoc>): string[] {
  const stored = new Set<string>();
  for (const doc of found.values()) stored.add(doc.w);
  const problems: string[] = [];
  for (const batch of batches.values()) {
    const refusedWhole = batch.atomic && batch.items.some((item) => item.expect === 'reject');
    const meant = refusedWhole ? [] : batch.items.filter((item) => item.expect === 'ok');
    const landed = meant.filter((item) => stored.has(item.doc.w)).length;
    if (landed > 0 && landed < meant.length) {
      problems.push(
        `the insertMany of op ${batch.op} (${meant.length} documents, not acknowledged) is half there: ` +
          `${landed} of its documents are stored`,
      );
    }
  }
  return problems;
}

/** `docdb verify` of the reopened file, as its problems. */
async function verifyProblems(db: Database): Promise<string[]> {
  const report = await db.verify();
  if (report.ok) return [];
  const shown = report.problems
    .slice(0, VERIFY_PROBLEMS_SHOWN)
    .map((p) => `${p.kind}: ${p.message}`)
    .join('; ');
  return [`docdb verify found ${report.problemCount} problem(s): ${shown}`];
}

/** One cycle: mount, write, cut, kill, unmount, reopen the backing directory and check. */
export async function runPowerCycle(setup: PowerCycleSetup): Promise<PowerCycleReport> {
  const started = performance.now();
  const batches: Batches = new Map();
  const state: { ready: boolean; cut?: CutReport; moment: Moment } = {
    ready: false,
    moment: setup.plan.moment,
  };
  const problems: string[] = [];
  let stderr = '';
  const holdfs = await HoldFs.mount({
    backing: setup.backing,
    python: setup.python,
    workDir: setup.workDir,
  });
  try {
    const ran = await runUntilCut(setup, holdfs, batches, state);
    problems.push(...ran.problems);
    stderr = ran.run.stderr;
  } finally {
    await holdfs.unmount();
  }
  const dir = path.join(setup.backing, setup.dataDirName);
  const dataFile = dataFileState(dir);
  let opened = false;
  let documents = 0;
  try {
    const checked = await checkReopened(dir, setup.model, setup.changeLog, {
      // A writer cut off before `ready` may have made only some of its indexes.
      indexes: state.ready,
      extra: async (db, found) => [...bulkProblems(batches, found), ...(await verifyProblems(db))],
    });
    opened = true;
    documents = checked.documents;
    problems.push(...checked.problems);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    problems.push(`reopening and checking the directory threw: ${reason}`);
  }
  return {
    ...setup.model.cycleCounts,
    plan: setup.plan,
    moment: state.moment,
    cut: state.cut,
    dataFile,
    writerReady: state.ready,
    opened,
    documents,
    problems,
    stderr,
    ms: performance.now() - started,
  };
}

/**
 * The power-cut part of the crash suite (issue 22). kill -9 leaves the page cache to finish
 * every write; a power cut loses whatever was not fsynced. Each cycle runs the crash writer on
 * holdfs (a FUSE file system that holds writes until their file is fsynced), cuts the power at
 * a planned moment (at a random time, at a random sync, in the middle of a checkpoint or of a
 * bulk insert, or while a new data directory is being made; half the cycles torn), kills the
 * writer and checks the disk as the cut left it (power-cycle.ts). First, a self-test runs a
 * writer that acknowledges before its flush and must be caught losing acknowledged writes.
 * Used by soak.ts; it needs holdfs to run (probeHoldFs) and never edits the files it checks.
 */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AckModel, addCounts, type CycleCounts, emptyCounts } from './ack-model.js';
import { describeProblems } from './check-reopened.js';
import {
  type CutAt,
  type CutPlan,
  type DataFileState,
  heldStatePages,
  type Moment,
  type PowerCycleReport,
  runPowerCycle,
} from './power-cycle.js';
import { randomInt, seededRandom, type WriterFlag } from './protocol.js';
import type { ChangeLogState } from './store-checks.js';
import { writerSeedOf } from './writer-process.js';

/** The moments of the cut, taken in turn; every second round of them is torn. */
export const MOMENTS: readonly Moment[] = ['timed', 'sync', 'checkpoint', 'bulk', 'new-directory'];
/** A timed cut falls this long after the writer's first acknowledged write. */
const TIMED_CUT_MS_MIN = 50;
const TIMED_CUT_MS_MAX = 400;
/** A cut at a sync falls at one of this many syncs after the first acknowledged write. */
const SYNC_CUT_MAX = 60;
/** A mid-checkpoint cut falls at one of the next few syncs, or within a few ms. */
const CHECKPOINT_SYNCS_MAX = 3;
const CHECKPOINT_DELAY_MS_MAX = 15;
/**
 * A mid-bulk cut falls within a few dozen ms of the bulk insert's start, or at the sync of
 * the first file holding at least BULK_PAGES_MIN unsynced pages: an ordinary commit of the
 * writer dirties 15 to 35 pages, a bulk insert of 50 to 250 documents more, so that is the
 * sync of the bulk insert's commit with all its pages written and none synced.
 */
const BULK_DELAY_MS_MAX = 40;
const BULK_PAGES_MIN = 40;
/**
 * A new data directory's cut falls at its very first sync (before its first commit is durable)
 * in two rounds of four, and at one of its first syncs in the other two: the writer is ready
 * after about thirty (the file, its catalog, four indexes).
 */
const NEW_DIRECTORY_SYNCS_MAX = 30;
/**
 * The self-test's cut falls at one of the first syncs of a file holding at least two unsynced
 * pages after the lying writer's first ack: a commit's data sync (its meta page's sync holds
 * at most that page), so the commit's writes, all acknowledged already, are lost.
 */
const SELF_TEST_SYNCS_MAX = 12;
const SELF_TEST_PAGES_MIN = 2;
/** The self-test stops at the first cycle that catches a lost acknowledged write. */
export const SELF_TEST_CYCLES_MAX = 5;
/** After this many failed cycles the part stops: the rest would say the same. */
const FAILED_CYCLES_MAX = 10;

const MAIN_FLAGS: readonly WriterFlag[] = ['--checkpoints', '--bulk'];
const LYING_FLAGS: readonly WriterFlag[] = ['--lie'];
/** The data directory the ordinary cycles share, under the backing directory. */
const MAIN_DATA_DIR = 'data';

/** Options of runPowerCutCycles. */
export interface PowerCutOptions {
  cycles: number;
  /** Seeds the cut plans and each writer's choices; printed with every failure. */
  seed: number;
  /** The Python that runs holdfs (probeHoldFs found it). */
  python: string;
  /** Working directory (kept); a fresh temp dir, removed after a success, when omitted. */
  dir?: string;
  /** Receives one progress line per cycle. */
  log?: (line: string) => void;
}

/** How the cuts in new data directories ended, by what the cut left of the data file. */
export type NewDirectoryOutcomes = Record<DataFileState, { cycles: number; passed: number }>;

/** What the self-test of the lying writer found. */
export interface SelfTestReport {
  cycles: number;
  ackedWrites: number;
  lost: number;
  /** It lost acknowledged writes and the checks said so: the harness has teeth. */
  caught: boolean;
}

/** What a run did. */
export interface PowerCutSummary extends CycleCounts {
  seed: number;
  dir: string;
  cycles: number;
  failedCycles: number;
  documentsVerified: number;
  moments: Record<Moment, number>;
  torn: number;
  tornPagesWritten: number;
  /** Cuts that dropped (or tore) held pages of files that keep state, and those pages. */
  cutsWithStateHeld: number;
  statePagesHeld: number;
  newDirectories: NewDirectoryOutcomes;
  selfTest: SelfTestReport;
  /** One message per failed cycle (the first FAILED_CYCLES_MAX), and why the run stopped early. */
  failures: string[];
  stoppedEarly?: string;
  totalMs: number;
}

/** The cut of cycle `cycle`: the moment in turn, torn every second round, the rest random. */
export function planCut(cycle: number, random: () => number): CutPlan {
  const moment = MOMENTS[(cycle - 1) % MOMENTS.length] as Moment;
  const round = Math.floor((cycle - 1) / MOMENTS.length);
  const torn = round % 2 === 1;
  const tornSeed = randomInt(random, 0, 2 ** 31 - 1);
  let at: CutAt;
  switch (moment) {
    case 'timed':
      at = { delayMs: randomInt(random, TIMED_CUT_MS_MIN, TIMED_CUT_MS_MAX) };
      break;
    case 'sync':
      at = { syncs: randomInt(random, 1, SYNC_CUT_MAX) };
      break;
    case 'checkpoint':
      at =
        random() < 0.5
          ? { syncs: randomInt(random, 1, CHECKPOINT_SYNCS_MAX) }
          : { delayMs: randomInt(random, 0, CHECKPOINT_DELAY_MS_MAX) };
      break;
    case 'bulk':
      at =
        random() < 0.5
          ? { syncs: 1, minPages: BULK_PAGES_MIN }
          : { delayMs: randomInt(random, 0, BULK_DELAY_MS_MAX) };
      break;
    case 'new-directory': {
      const syncs = randomInt(random, 2, NEW_DIRECTORY_SYNCS_MAX);
      at = { syncs: round % 4 < 2 ? 1 : syncs };
      break;
    }
    default:
      moment satisfies never;
      throw new Error(`unknown moment ${moment}`);
  }
  return torn ? { moment, at, tornSeed } : { moment, at };
}

function emptyLog(): ChangeLogState {
  return { verifiedSeq: 0, lastOp: new Map() };
}

const DATA_FILE_STATES: readonly DataFileState[] = ['none', 'empty', 'written'];
/** What a cut left of a new directory's data file, in words. */
const DATA_FILE_TEXT: Record<DataFileState, string> = {
  none: 'no data file',
  empty: 'an empty data file',
  written: 'a data file with pages',
};

function describeAt(at: CutAt): string {
  if ('delayMs' in at) return `${at.delayMs} ms on`;
  return at.minPages ? `sync ${at.syncs} holding ${at.minPages}+ pages` : `sync ${at.syncs}`;
}

function progressLine(label: string, report: PowerCycleReport): string {
  const cut = report.cut;
  const statePages = heldStatePages(cut);
  const held = cut
    ? `held ${statePages} pages of state, ${cut.heldPages - statePages} of locks` +
      `${cut.torn ? ` (${cut.appliedPages} written)` : ''}`
    : 'no cut';
  const moment =
    report.moment === report.plan.moment ? report.moment : `${report.plan.moment} not seen, timed`;
  const fresh =
    report.plan.moment === 'new-directory'
      ? `, ${DATA_FILE_TEXT[report.dataFile]}, writer ${report.writerReady ? 'ready' : 'not ready'}`
      : '';
  const verdict = report.problems.length === 0 ? '' : `, ${report.problems.length} PROBLEM(S)`;
  return (
    `${label} (${moment}${report.plan.tornSeed === undefined ? '' : ', torn'}, at ${describeAt(report.plan.at)}): ` +
    `${held}; ${report.ackedWrites} writes acknowledged (${report.ackedChanges} changes), ` +
    `${report.inFlight} in flight (${report.inFlightLanded} landed), ${report.lost} lost, ` +
    `${report.documents} documents verified${fresh}${verdict}, ${Math.round(report.ms)} ms`
  );
}

/** A working directory's parts: the disk holdfs mounts, and where its mountpoint lives. */
interface Layout {
  root: string;
  backing: string;
  work: string;
}

function layoutOf(root: string, disk: string): Layout {
  const layout = { root, backing: path.join(root, disk), work: path.join(root, 'work') };
  fs.mkdirSync(layout.backing, { recursive: true });
  fs.mkdirSync(layout.work, { recursive: true });
  return layout;
}

/**
 * Runs the lying writer (--lie) until a cut catches it losing an acknowledged write, at most
 * SELF_TEST_CYCLES_MAX cycles, on a disk of its own.
 */
async function runSelfTest(options: PowerCutOptions, root: string): Promise<SelfTestReport> {
  const layout = layoutOf(root, 'lying-disk');
  const random = seededRandom(options.seed ^ 0x1f123bb5);
  const model = new AckModel();
  const changeLog = emptyLog();
  const report: SelfTestReport = { cycles: 0, ackedWrites: 0, lost: 0, caught: false };
  for (let cycle = 1; cycle <= SELF_TEST_CYCLES_MAX && !report.caught; cycle++) {
    model.beginCycle(cycle);
    const syncs = randomInt(random, 1, SELF_TEST_SYNCS_MAX);
    const plan: CutPlan = { moment: 'sync', at: { syncs, minPages: SELF_TEST_PAGES_MIN } };
    const ran = await runPowerCycle({
      backing: layout.backing,
      dataDirName: MAIN_DATA_DIR,
      workDir: layout.work,
      python: options.python,
      writerSeed: writerSeedOf(options.seed ^ 0x1f123bb5, cycle),
      flags: LYING_FLAGS,
      model,
      changeLog,
      plan,
    });
    report.cycles += 1;
    report.ackedWrites += ran.ackedWrites;
    report.lost += ran.lost;
    report.caught = ran.lost > 0;
    options.log?.(progressLine(`self-test cycle ${cycle} (a writer that acknowledges first)`, ran));
  }
  fs.rmSync(layout.backing, { recursive: true, force: true });
  return report;
}

function emptySummary(options: PowerCutOptions, dir: string): PowerCutSummary {
  const outcome = () => ({ cycles: 0, passed: 0 });
  return {
    seed: options.seed,
    dir,
    cycles: 0,
    failedCycles: 0,
    ...emptyCounts(),
    documentsVerified: 0,
    moments: { timed: 0, sync: 0, checkpoint: 0, bulk: 0, 'new-directory': 0 },
    torn: 0,
    tornPagesWritten: 0,
    cutsWithStateHeld: 0,
    statePagesHeld: 0,
    newDirectories: { none: outcome(), empty: outcome(), written: outcome() },
    selfTest: { cycles: 0, ackedWrites: 0, lost: 0, caught: false },
    failures: [],
    totalMs: 0,
  };
}

function tally(summary: PowerCutSummary, report: PowerCycleReport): void {
  summary.cycles += 1;
  addCounts(summary, report);
  summary.documentsVerified += report.documents;
  summary.moments[report.moment] += 1;
  const statePages = heldStatePages(report.cut);
  if (statePages > 0) summary.cutsWithStateHeld += 1;
  summary.statePagesHeld += statePages;
  if (report.cut?.torn) {
    summary.torn += 1;
    summary.tornPagesWritten += report.cut.appliedPages;
  }
  if (report.plan.moment === 'new-directory') {
    const outcome = summary.newDirectories[report.dataFile];
    outcome.cycles += 1;
    if (report.problems.length === 0) outcome.passed += 1;
  }
}

/**
 * Runs the self-test, then `cycles` power-cut cycles: the ordinary ones share one data
 * directory (each re-checks what the earlier ones left), each new-directory cycle makes its
 * own. A failed cycle is recorded and the run goes on, unless the shared directory no longer
 * opens or FAILED_CYCLES_MAX cycles failed; a directory that failed is kept.
 */
export async function runPowerCutCycles(options: PowerCutOptions): Promise<PowerCutSummary> {
  const root = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-power-'));
  const layout = layoutOf(root, 'disk');
  const summary = emptySummary(options, root);
  const started = performance.now();
  summary.selfTest = await runSelfTest(options, root);
  const random = seededRandom(options.seed);
  const shared = { model: new AckModel(), changeLog: emptyLog() };
  for (let cycle = 1; cycle <= options.cycles; cycle++) {
    const plan = planCut(cycle, random);
    const fresh = plan.moment === 'new-directory';
    const dataDirName = fresh ? `new-${cycle}` : MAIN_DATA_DIR;
    const { model, changeLog } = fresh ? { model: new AckModel(), changeLog: emptyLog() } : shared;
    model.beginCycle(cycle);
    const writerSeed = writerSeedOf(options.seed, cycle);
    const report = await runPowerCycle({
      backing: layout.backing,
      dataDirName,
      workDir: layout.work,
      python: options.python,
      writerSeed,
      flags: MAIN_FLAGS,
      model,
      changeLog,
      plan,
    });
    tally(summary, report);
    options.log?.(progressLine(`power cycle ${cycle}/${options.cycles}`, report));
    const dir = path.join(layout.backing, dataDirName);
    if (report.problems.length === 0) {
      if (fresh) fs.rmSync(dir, { recursive: true, force: true });
      continue;
    }
    summary.failedCycles += 1;
    summary.failures.push(
      `power cycle ${cycle} of ${options.cycles} (${report.moment}${plan.tornSeed === undefined ? '' : ', torn'}, ` +
        `seed ${options.seed}, writer seed ${writerSeed}, data dir ${dir}) found ${report.problems.length} problem(s):\n` +
        describeProblems(report.problems, report.stderr),
    );
    if (!fresh && !report.opened) {
      summary.stoppedEarly = `the shared data directory ${dir} no longer opens`;
      break;
    }
    if (summary.failedCycles >= FAILED_CYCLES_MAX) {
      summary.stoppedEarly = `${FAILED_CYCLES_MAX} cycles failed`;
      break;
    }
  }
  summary.totalMs = performance.now() - started;
  const passed = summary.failedCycles === 0 && summary.selfTest.caught;
  if (passed && !options.dir) fs.rmSync(root, { recursive: true, force: true });
  return summary;
}

/** The part's one summary line. */
export function summaryLine(summary: PowerCutSummary): string {
  const passed = summary.failedCycles === 0 && summary.selfTest.caught && !summary.stoppedEarly;
  const moments = MOMENTS.map((m) => `${m} ${summary.moments[m]}`).join(', ');
  const fresh = DATA_FILE_STATES.map((state) => {
    const outcome = summary.newDirectories[state];
    return `${outcome.cycles} left ${DATA_FILE_TEXT[state]} (${outcome.passed} passed)`;
  }).join(', ');
  const self = summary.selfTest;
  const selfText = self.caught
    ? `self-test caught the lying writer (${self.lost} acknowledged writes lost in ${self.cycles} cycle(s))`
    : `self-test FAILED: the lying writer lost no acknowledged write the checks saw in ${self.cycles} cycles`;
  return (
    `power-cut part ${passed ? 'passed' : 'FAILED'}: ${summary.cycles} cycles, ${summary.failedCycles} failed` +
    `${summary.stoppedEarly ? ` (stopped: ${summary.stoppedEarly})` : ''}, seed ${summary.seed}; ` +
    `${summary.ackedWrites} writes acknowledged (${summary.ackedChanges} document changes), ${summary.lost} lost; ` +
    `${summary.inFlight} in flight at the cuts, ${summary.inFlightLanded} of them landed; ` +
    `${summary.documentsVerified} document checks; cuts: ${moments}; ` +
    `${summary.cutsWithStateHeld} found unsynced pages of state (${summary.statePagesHeld} pages); ` +
    `torn ${summary.torn} (${summary.tornPagesWritten} held pages written); new directories: ${fresh}; ${selfText}; ` +
    `${(summary.totalMs / 1000).toFixed(1)} s`
  );
}

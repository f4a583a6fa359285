/**
 * The torture suite's damaged-files part: copies of a sound data file are cut at random
 * lengths and have bytes flipped at random offsets, and each copy is opened and read (open,
 * stats, a full scan, an index lookup, an aggregate, the change log, verify) in a child
 * process with a time limit, since a signal would kill the harness. Verify runs first and
 * must end with a report or a clear coded error, never a signal or a hang, and never call a
 * file sound that a read after it finds damaged; each read after it must give a clear coded
 * error or an answer, no signal, no hang, no raw engine or decoder text. The two are counted
 * apart: verify opens the file as `docdb verify` does (damaged collections let in, its own walk
 * keeping LMDB off them), the reads open it as every command does (a damaged tree refused by
 * the page check at open). A cut file must be refused at open with ERR_STORAGE_TRUNCATED
 * naming both sizes, by the embedded API and by `docdb verify`.
 */

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { open, seedOrders } from '../../src/engine/index.js';
import { Rng } from '../../src/util/index.js';
import { BIN } from '../e2e/support.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const WORKER = path.join(import.meta.dirname, 'damage-worker.mjs');
/** One attempt's bound: a child still running after it is a hang. */
const ATTEMPT_TIMEOUT_MS = 30_000;
/** Attempts running at once (the machine's cores are shared). */
const PARALLEL = 2;

const SIZES = {
  quick: { orders: 1000, truncations: 10, flips: 30 },
  full: { orders: 3000, truncations: 100, flips: 400 },
};

/** Text that only an engine or decoder writes: it must never reach the user. */
const RAW_TEXT = /MDB_|end of buffer|MessagePack|page \d+ not found|Unexpected|Invalid/;

/** One line a worker printed. */
interface StepLine {
  step: string;
  outcome: 'started' | 'ok' | 'error';
  answer?: string;
  code?: string;
  message?: string;
  ok?: boolean;
}

/** How a child ended. */
interface ChildRun {
  lines: StepLine[];
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function runChild(command: string, args: string[]): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, ATTEMPT_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as StepLine);
      resolve({ lines, code, signal: timedOut ? null : signal, timedOut, stdout, stderr });
    });
  });
}

/** Runs the worker on a data directory. */
function runWorker(dir: string): Promise<ChildRun> {
  return runChild(process.execPath, [WORKER, dir]);
}

/** The answers of a sound file, step by step. */
type Baseline = Map<string, string | undefined>;

async function makeBase(
  context: PartContext,
  orders: number,
): Promise<{ dir: string; baseline: Baseline }> {
  const dir = path.join(context.dir, 'base');
  const db = await open(dir);
  await seedOrders(db, { count: orders, seed: context.seed });
  // Some replaces and deletes, so the change log holds every kind of entry.
  const docs = db.collection('orders').list({ limit: 20 });
  for (const [i, { _id, ...body }] of docs.entries()) {
    const id = String(_id);
    if (i % 2 === 0) await db.collection('orders').delete(id);
    else await db.collection('orders').replace(id, { ...body, status: 'confirmed' });
  }
  await db.close();
  const run = await runWorker(dir);
  const baseline: Baseline = new Map();
  for (const line of run.lines) {
    if (line.outcome === 'error') {
      throw new Error(`the sound file fails ${line.step}: ${line.code} ${line.message}`);
    }
    if (line.outcome === 'ok') baseline.set(line.step, line.answer);
  }
  const verified = run.lines.find((l) => l.step === 'verify-result');
  if (!verified?.ok) throw new Error(`the sound file does not verify: ${run.stdout}${run.stderr}`);
  return { dir, baseline };
}

/** Attempt outcomes from worst to best; an attempt takes its worst step's. */
const SEVERITY = [
  'crash',
  'hang',
  'unclear error',
  'verify missed',
  'clear error',
  'damage reported',
  'changed answer',
  'correct',
  'not reached',
] as const;
type Outcome = (typeof SEVERITY)[number];
const FAILING = new Set<Outcome>(['crash', 'hang', 'unclear error', 'verify missed']);

function worse(a: Outcome, b: Outcome): Outcome {
  return SEVERITY.indexOf(a) <= SEVERITY.indexOf(b) ? a : b;
}

/** The steps of each check: verify (with the open before it) and the reads after it. */
const VERIFY_STEPS = new Set(['verify-open', 'verify', 'verify-result']);

interface Verdict {
  outcome: Outcome;
  why: string;
}

/**
 * Classifies one worker run against the sound file's answers: one verdict for verify, one
 * for the reads. A signal or hang counts against the step it happened in.
 */
function classify(run: ChildRun, baseline: Baseline): { verify: Verdict; reads: Verdict } {
  const last = run.lines.filter((l) => l.outcome === 'started').at(-1)?.step ?? 'open';
  const died: Verdict | undefined = run.timedOut
    ? { outcome: 'hang', why: `no end within ${ATTEMPT_TIMEOUT_MS} ms during ${last}` }
    : run.signal
      ? { outcome: 'crash', why: `${run.signal} during ${last}` }
      : run.code !== 0
        ? { outcome: 'crash', why: `exit ${run.code} during ${last}: ${run.stderr.slice(-300)}` }
        : undefined;
  const verify: Verdict = { outcome: 'correct', why: '' };
  const reads: Verdict = { outcome: 'not reached', why: '' };
  let damageSeen = false;
  for (const line of run.lines) {
    const verdict = VERIFY_STEPS.has(line.step) ? verify : reads;
    if (line.outcome === 'started' && verdict === reads && reads.outcome === 'not reached') {
      reads.outcome = 'correct';
    }
    if (line.outcome === 'error') {
      const raw = !line.code || line.code === 'ERR_INTERNAL' || RAW_TEXT.test(line.message ?? '');
      verdict.outcome = worse(verdict.outcome, raw ? 'unclear error' : 'clear error');
      if (raw) verdict.why = `${line.step}: ${line.code ?? 'no code'} ${line.message}`;
      if (line.code === 'ERR_STORAGE_CORRUPT' && verdict === reads) damageSeen = true;
    } else if (line.step === 'verify-result') {
      if (line.ok === false) verify.outcome = worse(verify.outcome, 'damage reported');
    } else if (line.outcome === 'ok' && baseline.get(line.step) !== line.answer) {
      verdict.outcome = worse(verdict.outcome, 'changed answer');
    }
  }
  if (died) Object.assign(VERIFY_STEPS.has(last) ? verify : reads, died);
  const verified = run.lines.find((l) => l.step === 'verify-result');
  if (damageSeen && verified?.ok === true) {
    verify.outcome = worse(verify.outcome, 'verify missed');
    verify.why = 'a read met ERR_STORAGE_CORRUPT but verify called the file sound';
  }
  return { verify, reads };
}

/** Runs `attempt(i)` for i in [0, count), PARALLEL at a time. */
async function inParallel(count: number, attempt: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await attempt(next++);
  };
  await Promise.all(Array.from({ length: PARALLEL }, lane));
}

/** Copies the base file into a fresh attempt directory; returns the copy's path. */
function copyBase(base: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'data.docdb');
  fs.copyFileSync(path.join(base, 'data.docdb'), file);
  return file;
}

async function truncations(
  context: PartContext,
  base: string,
  count: number,
): Promise<CheckResult> {
  const check = new Check('truncate at random lengths');
  const size = fs.statSync(path.join(base, 'data.docdb')).size;
  const rng = new Rng(context.seed);
  // The edges first (nothing, half a meta page, the metas alone, one page short), then random.
  const edges = [0, 100, 4096, 8192, size - 4096, size - 1];
  const lengths = Array.from(
    { length: count },
    (_, i) => edges[i] ?? Math.floor(rng.next() * size),
  );
  await inParallel(count, async (i) => {
    const dir = path.join(context.dir, `truncate-${i}`);
    const file = copyBase(base, dir);
    const length = lengths[i] as number;
    fs.truncateSync(file, length);
    const run = await runWorker(dir);
    const opened = run.lines.find((l) => l.step === 'open' && l.outcome !== 'started');
    const cli = await runChild(BIN, ['verify', dir]);
    // The size it should have is its last page in use, which a file written past a crash or
    // a checkpoint may hold fewer of than it has bytes: at most its size, past the cut.
    const should = Number(/should be at least (\d+) bytes/.exec(opened?.message ?? '')?.[1]);
    const named =
      opened?.code === 'ERR_STORAGE_TRUNCATED' &&
      opened.message?.includes(`${length} bytes`) === true &&
      (length === 0 || length < 160 || (should > length && should <= size));
    // A file verify cannot open exits with its error's class: storage (docs/errors.md).
    const cliNamed = cli.code === 6 && cli.stderr.includes('[ERR_STORAGE_TRUNCATED]');
    if (named && cliNamed && !run.signal && !cli.signal) {
      check.count('refused with both sizes');
      fs.rmSync(dir, { recursive: true, force: true });
      return;
    }
    check.count(
      'not refused clearly',
      `cut to ${length} of ${size} bytes (${dir}): open gave ${opened?.code ?? run.signal ?? 'nothing'} ${opened?.message ?? ''}; docdb verify exit ${cli.code ?? cli.signal}: ${cli.stderr.trim().slice(0, 200)}`,
    );
  });
  return check.done();
}

async function flips(
  context: PartContext,
  base: string,
  baseline: Baseline,
  count: number,
): Promise<CheckResult[]> {
  const verifyCheck = new Check('verify files with flipped bytes');
  const readsCheck = new Check('read files with flipped bytes');
  const size = fs.statSync(path.join(base, 'data.docdb')).size;
  const rng = new Rng(context.seed + 1);
  const plans = Array.from({ length: count }, () => {
    const n = 1 + Math.floor(rng.next() * 8);
    return Array.from({ length: n }, () => ({
      offset: Math.floor(rng.next() * size),
      mask: 1 << Math.floor(rng.next() * 8),
    }));
  });
  await inParallel(count, async (i) => {
    const dir = path.join(context.dir, `flip-${i}`);
    const file = copyBase(base, dir);
    const bytes = fs.readFileSync(file);
    const plan = plans[i] ?? [];
    for (const { offset, mask } of plan) bytes[offset] = (bytes[offset] as number) ^ mask;
    fs.writeFileSync(file, bytes);
    const run = await runWorker(dir);
    const verdicts = classify(run, baseline);
    const offsets = plan.map((f) => `${f.offset}^${f.mask}`).join(',');
    let keep = false;
    for (const [check, { outcome, why }] of [
      [verifyCheck, verdicts.verify],
      [readsCheck, verdicts.reads],
    ] as const) {
      if (!FAILING.has(outcome)) {
        check.count(outcome);
        continue;
      }
      keep = true;
      check.count(outcome, `${outcome}: ${why} (offsets^masks ${offsets}; file kept in ${dir})`);
    }
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  });
  return [verifyCheck.done(), readsCheck.done()];
}

export const damagedFiles: TorturePart = {
  name: 'damaged-files',
  description:
    'cut files and flipped bytes: every open, read and verify gives a clear error or an answer, no signal, no hang',
  async run(context) {
    const sizes = context.quick ? SIZES.quick : SIZES.full;
    const { dir, baseline } = await makeBase(context, sizes.orders);
    context.log(
      `damaged-files: base file of ${sizes.orders} orders, ${fs.statSync(path.join(dir, 'data.docdb')).size} bytes`,
    );
    const cut = await truncations(context, dir, sizes.truncations);
    context.log(`damaged-files: truncations ${cut.passed} passed, ${cut.failed} failed`);
    const [verified, read] = await flips(context, dir, baseline, sizes.flips);
    return [cut, verified as CheckResult, read as CheckResult];
  },
};

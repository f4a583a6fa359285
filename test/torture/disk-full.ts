/**
 * The torture suite's disk-full part. Two ways a write can find no room, each served (a
 * `docdb serve` child) and embedded (a child process on the built package,
 * disk-full-worker.mjs): the data dir on a small tmpfs the part mounts, with a ballast file put
 * there first (skipped, saying why, where mounting is not permitted), and the data file's size
 * cap (`--max-file-mib`, `maxFileBytes`) on any disk. Each cycle, concurrent writers fill it:
 * every write must be stored or refused with ERR_STORAGE_FULL (507 over REST) naming the
 * disk or the cap, never another error or a crash; reads (and `/health`) must go on while it
 * is full; once room is made (the ballast deleted; documents deleted under the cap) writes
 * must succeed again; after a kill -9 and a restart every acknowledged write must be there,
 * and nothing else.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { freePort, request, type ServeProcess, startServe } from '../e2e/support.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const MiB = 1024 * 1024;
/** Fill-and-free cycles of each way (quick runs kill and restart after every cycle). */
const CYCLES = { quick: 2, full: 20 };
/** A full run kills and restarts every this many cycles, and after the last. */
const RESTART_EVERY_FULL = 5;
/** The tmpfs the data dir sits on, and the ballast put on it before the node. */
const FS_BYTES = 24 * MiB;
const BALLAST_BYTES = 3 * MiB;
/** Less ballast than this back on the disk, and deleting it would not make room worth a fill. */
const BALLAST_MIN_BYTES = MiB / 2;
/** The change log's bound on the tmpfs: at its default (256 MiB) it alone would fill it. */
const DISK_LOG_MIB = 2;
/** The size cap of the cap runs, and how far past it the file may be (pages not yet reusable). */
const CAP_MIB = 4;
const CAP_FILE_SLACK = 1.1;
const WRITERS = 4;
const DOCS_PER_WRITE = 50;
const DOC_TEXT_BYTES = 1_000;
/** A writer stops after this many refusals in a row: the disk is full. */
const REFUSALS_IN_A_ROW = 3;
/** Writes a writer may make in one fill before the fill counts as never refused. */
const WRITES_PER_FILL_MAX = 2_000;
const WORKER = path.join(import.meta.dirname, 'disk-full-worker.mjs');
const WORKER_START_MS = 20_000;

/** A write refused with an error code (and an HTTP status when served). */
type Refused = { kind: 'refused'; code: string | undefined; status?: number; message: string };
/** A write with no answer, or an answer that is not an error of ours (a crash, a 200 with errors). */
type Failed = { kind: 'failed'; message: string };
/** What one insert came to. */
type WriteAnswer = { kind: 'stored'; ids: string[] } | Refused | Failed;
/** What one delete came to. */
type DeleteAnswer = { kind: 'deleted'; deleted: number } | Refused | Failed;

/** A served node or an embedded worker, as the cycles drive it. */
interface Target {
  insert(tag: string): Promise<WriteAnswer>;
  /** Reads while full; a failure's text, or undefined when every read answered right. */
  read(sampleId: string | undefined, expected: number): Promise<string | undefined>;
  /** Deletes the documents of one write (its tag) in one transaction. */
  deleteTag(tag: string): Promise<DeleteAnswer>;
  ids(): Promise<string[]>;
  /** kill -9, then start again on the same data (with another cap when given). */
  restart(capMiB?: number): Promise<void>;
  stop(): Promise<void>;
}

function docs(tag: string) {
  return Array.from({ length: DOCS_PER_WRITE }, (_, i) => ({
    tag,
    i,
    text: 'x'.repeat(DOC_TEXT_BYTES),
  }));
}

// ---- served -------------------------------------------------------------------------------

async function servedTarget(dataDir: string, cwd: string, capMiB?: number): Promise<Target> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = (cap?: number) => [
    '--port',
    String(port),
    '--data-dir',
    dataDir,
    '--change-log-retain-mib',
    String(DISK_LOG_MIB),
    ...(cap === undefined ? [] : ['--max-file-mib', String(cap)]),
  ];
  let node: ServeProcess = await startServe(args(capMiB), { cwd, port });
  const query = async (sql: string) => {
    const answer = await request(`${url}/query`, { method: 'POST', body: { sql } });
    if (answer.status !== 200) throw new Error(`${sql}: ${answer.status} ${answer.text}`);
    return (answer.json as { documents: Record<string, unknown>[] }).documents;
  };
  return {
    async insert(tag) {
      const answer = await request(`${url}/collections/filler/bulk`, {
        method: 'POST',
        body: docs(tag),
      }).catch((error: Error) => error);
      if (answer instanceof Error) return { kind: 'failed', message: answer.message };
      const json = answer.json as { ids?: string[]; errors?: unknown[]; code?: string };
      if (answer.status === 200 && json.errors?.length === 0) {
        return { kind: 'stored', ids: json.ids ?? [] };
      }
      if (answer.status === 200) return { kind: 'failed', message: `200 with ${answer.text}` };
      return { kind: 'refused', code: json?.code, status: answer.status, message: answer.text };
    },
    async read(sampleId, expected) {
      try {
        const health = await request(`${url}/health`);
        if (health.status !== 200) return `GET /health answered ${health.status}`;
        const [counted] = await query('SELECT COUNT(*) AS n FROM filler');
        if (counted?.n !== expected) return `COUNT(*) is ${counted?.n}, ${expected} acknowledged`;
        if (sampleId !== undefined) {
          const one = await request(`${url}/collections/filler/${sampleId}`);
          if (one.status !== 200) return `GET of an acknowledged document answered ${one.status}`;
        }
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
    async deleteTag(tag) {
      const answer = await request(`${url}/collections/filler/by/tag/${tag}`, {
        method: 'DELETE',
      }).catch((error: Error) => error);
      if (answer instanceof Error) return { kind: 'failed', message: answer.message };
      const json = answer.json as { deleted?: number; code?: string };
      if (answer.status === 200) return { kind: 'deleted', deleted: json.deleted ?? -1 };
      return { kind: 'refused', code: json?.code, status: answer.status, message: answer.text };
    },
    async ids() {
      return (await query('SELECT _id FROM filler')).map((doc) => String(doc._id));
    },
    async restart(cap = capMiB) {
      node.child.kill('SIGKILL');
      await node.waitForExit();
      node = await startServe(args(cap), { cwd, port });
    },
    async stop() {
      node.child.kill('SIGTERM');
      await node.waitForExit();
    },
  };
}

// ---- embedded -----------------------------------------------------------------------------

interface WorkerAnswer {
  ok: boolean;
  code?: string;
  message?: string;
  ids?: string[];
  count?: number;
  queried?: number;
  sampleFound?: boolean;
  deleted?: number;
}

/** A disk-full-worker.mjs child and its requests in flight. */
class Worker {
  private readonly pending = new Map<number, (answer: WorkerAnswer) => void>();
  private nextId = 0;
  private exitText: string | undefined;
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2_000);
    });
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exitText = `the worker exited (${signal ?? code}): ${stderr.trim()}`;
        for (const answer of this.pending.values()) answer({ ok: false, message: this.exitText });
        this.pending.clear();
        resolve();
      });
    });
  }

  static async start(dataDir: string, capMiB?: number): Promise<Worker> {
    const args = [WORKER, dataDir, String(DISK_LOG_MIB * MiB)];
    if (capMiB !== undefined) args.push(String(capMiB * MiB));
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const worker = new Worker(child);
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the worker did not start')),
        WORKER_START_MS,
      );
      worker.exited.then(() => reject(new Error(worker.exitText)));
      lines.on('line', (line) => {
        const message = JSON.parse(line) as WorkerAnswer & { id?: number; ready?: boolean };
        if (message.ready) {
          clearTimeout(timer);
          resolve();
          return;
        }
        const answer = worker.pending.get(message.id ?? -1);
        worker.pending.delete(message.id ?? -1);
        answer?.(message);
      });
    });
    await ready;
    return worker;
  }

  call(cmd: string, fields: Record<string, unknown> = {}): Promise<WorkerAnswer> {
    if (this.exitText) return Promise.resolve({ ok: false, message: this.exitText });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin?.write(`${JSON.stringify({ id, cmd, ...fields })}\n`);
    });
  }

  async kill(signal: NodeJS.Signals): Promise<void> {
    if (signal === 'SIGTERM') this.child.stdin?.end();
    else this.child.kill(signal);
    await this.exited;
  }
}

async function embeddedTarget(dataDir: string, capMiB?: number): Promise<Target> {
  let worker = await Worker.start(dataDir, capMiB);
  const must = async (cmd: string, fields: Record<string, unknown> = {}) => {
    const answer = await worker.call(cmd, fields);
    if (!answer.ok) throw new Error(`${cmd}: ${answer.code ?? ''} ${answer.message}`);
    return answer;
  };
  return {
    async insert(tag) {
      const answer = await worker.call('insert', {
        tag,
        count: DOCS_PER_WRITE,
        bytes: DOC_TEXT_BYTES,
      });
      if (answer.ok) return { kind: 'stored', ids: answer.ids ?? [] };
      if (answer.code) return { kind: 'refused', code: answer.code, message: answer.message ?? '' };
      return { kind: 'failed', message: answer.message ?? '' };
    },
    async read(sampleId, expected) {
      const answer = await worker.call('read', { sampleId });
      if (!answer.ok) return `${answer.code ?? ''} ${answer.message}`;
      if (answer.count !== expected || answer.queried !== expected) {
        return `count ${answer.count}, COUNT(*) ${answer.queried}, ${expected} acknowledged`;
      }
      if (sampleId !== undefined && !answer.sampleFound) return 'an acknowledged document is gone';
      return undefined;
    },
    async deleteTag(tag) {
      const answer = await worker.call('deleteTag', { tag });
      if (answer.ok) return { kind: 'deleted', deleted: answer.deleted ?? -1 };
      if (answer.code) return { kind: 'refused', code: answer.code, message: answer.message ?? '' };
      return { kind: 'failed', message: answer.message ?? '' };
    },
    async ids() {
      return (await must('ids')).ids ?? [];
    },
    async restart(cap = capMiB) {
      await worker.kill('SIGKILL');
      worker = await Worker.start(dataDir, cap);
    },
    async stop() {
      await worker.kill('SIGTERM');
    },
  };
}

// ---- the cycles ---------------------------------------------------------------------------

/** Acknowledged documents by tag (`c<cycle>w<writer>`), less those deleted. */
type Live = Map<string, string[]>;

/** One way of running out of room, as the cycles see it. */
interface Way {
  check: Check;
  target: Target;
  /** The message of the expected refusal. */
  refusal: RegExp;
  /** Before each fill (the ballast back on the disk). */
  beforeFill(): void;
  /** After each fill (the file's size against the cap). */
  afterFill(): void;
  /** Makes room the way a user would: deletes the ballast, or documents. */
  makeRoom(way: Way, cycle: number, live: Live): Promise<void>;
  /** After the write that proves the room (old documents deleted for the next fill). */
  afterWrite(way: Way, cycle: number, live: Live): Promise<void>;
}

function liveCount(live: Live): number {
  let n = 0;
  for (const ids of live.values()) n += ids.length;
  return n;
}

function isCodedRefusal(way: Way, answer: WriteAnswer): boolean {
  return (
    answer.kind === 'refused' &&
    answer.code === 'ERR_STORAGE_FULL' &&
    (answer.status ?? 507) === 507 &&
    way.refusal.test(answer.message)
  );
}

/** Concurrent writers insert until each is refused REFUSALS_IN_A_ROW times in a row. */
async function fill(way: Way, live: Live, cycle: number): Promise<void> {
  let refusals = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      let inARow = 0;
      for (let n = 0; inARow < REFUSALS_IN_A_ROW; n++) {
        const tag = `c${cycle}w${writer}n${n}`;
        if (n === WRITES_PER_FILL_MAX) {
          way.check.count('never refused', `${tag}: ${n} writes and no refusal`);
          return;
        }
        const answer = await way.target.insert(tag);
        if (answer.kind === 'stored') {
          live.set(tag, answer.ids);
          way.check.count('stored');
          inARow = 0;
        } else if (isCodedRefusal(way, answer)) {
          refusals++;
          inARow++;
          way.check.count('refused ERR_STORAGE_FULL');
        } else {
          const status = answer.kind === 'refused' ? ` ${answer.status ?? answer.code}` : '';
          way.check.count(
            answer.kind === 'failed' ? 'failed' : 'other refusal',
            `${tag}: ${answer.kind}${status} ${answer.message.slice(0, 300)}`,
          );
          if (answer.kind === 'failed') return;
        }
      }
    }),
  );
  if (refusals === 0) way.check.count('never full', `cycle ${cycle}: no write was refused`);
}

/** Tags to delete at the end of a cycle: every older one, and half of the first cycle's. */
function oldTags(live: Live, cycle: number): string[] {
  return [...live.keys()].filter(
    (tag) => !tag.startsWith(`c${cycle}w`) || (cycle === 0 && /^c0w[01]n/.test(tag)),
  );
}

/**
 * Deletes the old tags one write's documents at a time, as a user making room on a full disk
 * would (one large delete needs room of its own for the pages it copies). Each delete must
 * remove exactly the documents acknowledged under its tag, or be refused with a clear error.
 */
async function deleteOld(way: Way, live: Live, cycle: number): Promise<void> {
  for (const tag of oldTags(live, cycle)) {
    const expected = live.get(tag)?.length ?? 0;
    const answer = await way.target.deleteTag(tag);
    if (answer.kind === 'deleted' && answer.deleted === expected) {
      live.delete(tag);
      way.check.count('deleted');
    } else if (answer.kind === 'refused' && answer.code === 'ERR_STORAGE_FULL') {
      way.check.count('delete refused ERR_STORAGE_FULL');
    } else {
      const got = answer.kind === 'deleted' ? `${answer.deleted} deleted` : answer.message;
      way.check.count(
        'delete wrong',
        `deleting ${tag}: ${got.slice(0, 300)}, ${expected} acknowledged`,
      );
      // What is stored now is unknown: the restart's comparison will say.
      live.delete(tag);
    }
  }
}

/** kill -9 and restart; the documents must be exactly the acknowledged ones. */
async function restartAndCompare(way: Way, live: Live, capMiB?: number): Promise<void> {
  await way.target.restart(capMiB);
  const stored = new Set(await way.target.ids());
  const acknowledged = [...live.values()].flat();
  const missing = acknowledged.filter((id) => !stored.has(id));
  const extra = stored.size - (acknowledged.length - missing.length);
  if (missing.length === 0 && extra === 0) {
    way.check.count('all acknowledged there after kill -9');
  } else {
    way.check.count(
      'lost or extra after kill -9',
      `${missing.length} acknowledged missing (${missing.slice(0, 3).join(', ')}), ${extra} never acknowledged`,
    );
  }
}

/** The fill-and-free cycles of one way; returns the documents acknowledged and not deleted. */
async function cycles(way: Way, context: PartContext, name: string): Promise<Live> {
  const live: Live = new Map();
  const count = context.quick ? CYCLES.quick : CYCLES.full;
  for (let cycle = 0; cycle < count; cycle++) {
    way.beforeFill();
    await fill(way, live, cycle);
    way.afterFill();
    const sample = [...live.values()].flat()[0];
    const unread = await way.target.read(sample, liveCount(live));
    way.check.count(unread ? 'read failed while full' : 'reads while full', unread);
    await way.makeRoom(way, cycle, live);
    const after = await way.target.insert(`c${cycle}after`);
    if (after.kind === 'stored') {
      live.set(`c${cycle}after`, after.ids);
      way.check.count('written once room was made');
    } else {
      way.check.count('still refused once room was made', `cycle ${cycle}: ${after.message}`);
    }
    // Restarted while there is room: on a full disk a writer cannot take its lock (the
    // e2e disk-full test proves that start is refused with ERR_STORAGE_FULL).
    const last = cycle === count - 1;
    if (context.quick || last || (cycle + 1) % RESTART_EVERY_FULL === 0) {
      await restartAndCompare(way, live);
    }
    await way.afterWrite(way, cycle, live);
    context.log(`disk-full: ${name}: cycle ${cycle + 1} of ${count}, ${liveCount(live)} documents`);
  }
  return live;
}

// ---- the ways -----------------------------------------------------------------------------

/** Mounts a tmpfs of `bytes` at `dir`; the reason when it cannot. */
function mountTmpfs(dir: string, bytes: number): string | undefined {
  fs.mkdirSync(dir, { recursive: true });
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mount.status === 0) return undefined;
  const why = (mount.stderr || mount.error?.message || `exit ${mount.status}`).trim();
  return `cannot mount a tmpfs here (${why})`;
}

/** Writes up to `bytes` of ballast, as much as the disk takes; returns what it took. */
function putBallast(file: string, bytes: number): number {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  let written = 0;
  try {
    while (written < bytes) written += fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

/** A full disk: a tmpfs with ballast; room is made by deleting the ballast. */
async function runOutOfDisk(
  context: PartContext,
  name: string,
  start: (dataDir: string) => Promise<Target>,
): Promise<CheckResult> {
  const check = new Check(`${name}, the disk fills (${FS_BYTES / MiB} MiB tmpfs)`);
  const mountPoint = path.join(context.dir, `${name}-tmpfs`);
  const cannot = mountTmpfs(mountPoint, FS_BYTES);
  if (cannot) {
    check.skip(cannot);
    return check.done();
  }
  try {
    const ballast = path.join(mountPoint, 'ballast');
    const ballastSizes = [putBallast(ballast, BALLAST_BYTES)];
    const target = await start(path.join(mountPoint, 'data'));
    try {
      await cycles(
        {
          check,
          target,
          refusal: /the disk holding .* is full/,
          // The data file never shrinks, so room the node held when the ballast goes back is
          // the file's for good: should the ballast be squeezed out, deleting it would make no
          // room, and the part says so here rather than as a write still refused.
          beforeFill: () => {
            const put = putBallast(ballast, BALLAST_BYTES);
            ballastSizes.push(put);
            if (put >= BALLAST_MIN_BYTES) check.count('ballast back');
            else check.count('ballast squeezed out', `the disk took ${put} bytes of ballast`);
          },
          afterFill: () => {},
          makeRoom: async () => fs.rmSync(ballast, { force: true }),
          // The file keeps its size: deleted documents leave pages the next fill takes.
          afterWrite: (self, cycle, live) => deleteOld(self, live, cycle),
        },
        context,
        name,
      );
    } finally {
      await target.stop();
      context.log(`disk-full: ${name}: the ballast took ${ballastSizes.join(', ')} bytes`);
    }
  } finally {
    spawnSync('umount', ['-l', mountPoint]);
  }
  return check.done();
}

/** Writes a restart with twice the cap must take, all of them. */
const WRITES_AFTER_LARGER_CAP = 20;

/** The size cap: room is made by deleting documents, then by a restart with a larger cap. */
async function reachTheCap(
  context: PartContext,
  name: string,
  start: (dataDir: string, capMiB: number) => Promise<Target>,
): Promise<CheckResult> {
  const check = new Check(`${name}, the data file reaches its cap (${CAP_MIB} MiB)`);
  const dataDir = path.join(context.dir, `${name}-capped`);
  const file = path.join(dataDir, 'data.docdb');
  const target = await start(dataDir, CAP_MIB);
  let peakBytes = 0;
  try {
    await cycles(
      {
        check,
        target,
        refusal: new RegExp(`size cap of ${CAP_MIB} MiB \\(storage\\.maxFileMiB, --max-file-mib`),
        beforeFill: () => {},
        afterFill: () => {
          const size = fs.statSync(file).size;
          peakBytes = Math.max(peakBytes, size);
          if (size <= CAP_MIB * MiB * CAP_FILE_SLACK) check.count('file within the cap');
          else check.count('file past the cap', `the file holds ${size} bytes`);
        },
        makeRoom: (self, cycle, live) => deleteOld(self, live, cycle),
        afterWrite: async () => {},
      },
      context,
      name,
    );
    context.log(`disk-full: ${name}: the file peaked at ${peakBytes} bytes (cap ${CAP_MIB * MiB})`);
    await target.restart(CAP_MIB * 2);
    let stored = 0;
    let refused = '';
    for (let n = 0; n < WRITES_AFTER_LARGER_CAP && !refused; n++) {
      const answer = await target.insert('larger-cap');
      if (answer.kind === 'stored') stored++;
      else refused = answer.message;
    }
    if (!refused) check.count('a larger cap takes more');
    else check.count('refused under a larger cap', `after ${stored} writes: ${refused}`);
  } finally {
    await target.stop();
  }
  return check.done();
}

export const diskFull: TorturePart = {
  name: 'disk-full',
  description:
    'writers fill a small tmpfs and a capped data file, served and embedded: stored or 507, reads go on, writes resume once room is made, nothing acknowledged lost',
  async run(context: PartContext): Promise<CheckResult[]> {
    const served = (dataDir: string, capMiB?: number) => servedTarget(dataDir, context.dir, capMiB);
    const embedded = (dataDir: string, capMiB?: number) => embeddedTarget(dataDir, capMiB);
    return [
      await runOutOfDisk(context, 'served', served),
      await runOutOfDisk(context, 'embedded', embedded),
      await reachTheCap(context, 'served', served),
      await reachTheCap(context, 'embedded', embedded),
    ];
  },
};

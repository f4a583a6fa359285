/**
 * The TypeScript side of holdfs (holdfs.py), the FUSE file system of the power-cut tests: finds
 * out whether it can run here, mounts it over a backing directory, sends it its commands (cut
 * the power now, or at the Nth sync) and unmounts it. It knows nothing of docdb: what the
 * backing directory must hold after a cut is the harness's business (power-cut.ts).
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const HOLDFS_PY = fileURLToPath(new URL('./holdfs.py', import.meta.url));

/**
 * Interpreters tried, in order: Debian's python3-fusepy installs into the system Python, which
 * a `python3` on the PATH (pyenv, a venv) may not be. HOLDFS_PYTHON names the only one to try.
 */
const PYTHON_CANDIDATES = process.env.HOLDFS_PYTHON
  ? [process.env.HOLDFS_PYTHON]
  : ['/usr/bin/python3', 'python3'];
/** How long a mount may take to answer "ready", and an unmount to let holdfs exit. */
const MOUNT_TIMEOUT_MS = 15_000;
const UNMOUNT_TIMEOUT_MS = 15_000;
/** How long a control command may take to answer. */
const COMMAND_TIMEOUT_MS = 15_000;

/** Whether holdfs can run here, and with which Python; or why not. */
export type HoldFsProbe =
  | { available: true; python: string }
  | { available: false; reason: string };

/** What a cut did: the files and pages held at that moment, and the pages a torn cut wrote. */
export interface CutReport {
  event: 'cut';
  /** `command`: `cut` was sent; `sync`: an armed cut fell due at a sync, which failed. */
  trigger: 'command' | 'sync';
  torn: boolean;
  heldFiles: number;
  heldPages: number;
  /** Held pages by the path each file had when its first held write came. */
  heldByFile: Record<string, number>;
  appliedPages: number;
  /** Set when the power was already off (the answer repeats that cut). */
  already?: boolean;
}

/** holdfs's counters. */
export interface HoldFsStats {
  event: 'stats';
  writes: number;
  syncs: number;
  dropped_after_cut: number;
  heldFiles: number;
  heldPages: number;
  cut: boolean;
  armed: boolean;
}

type Reply =
  | CutReport
  | HoldFsStats
  | { event: 'armed'; syncs: number; pages: number }
  | { event: 'pong' }
  | { event: 'error'; message: string };

function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return result.status === 0;
}

function findPython(): string | undefined {
  for (const candidate of PYTHON_CANDIDATES) {
    if (runs(candidate, [HOLDFS_PY, '--check'])) return candidate;
  }
  return undefined;
}

let probed: Promise<HoldFsProbe> | undefined;

/**
 * Finds out once per process whether holdfs can run: Linux, /dev/fuse, root (libfuse 2 mounts
 * by itself only as root; its setuid helper is not installed beside fuse3), fusermount3 to
 * unmount, a Python with fusepy, and a trial mount that answers.
 */
export function probeHoldFs(): Promise<HoldFsProbe> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<HoldFsProbe> {
  if (process.platform !== 'linux') {
    return { available: false, reason: `FUSE tests need Linux; this is ${process.platform}` };
  }
  if (!fs.existsSync('/dev/fuse')) return { available: false, reason: '/dev/fuse is missing' };
  const uid = process.getuid?.();
  if (uid !== 0) {
    return { available: false, reason: `holdfs mounts as root; this process runs as uid ${uid}` };
  }
  if (!runs('fusermount3', ['-V'])) {
    return { available: false, reason: 'fusermount3 is missing (apt-get install fuse3)' };
  }
  const python = findPython();
  if (!python) {
    const tried = PYTHON_CANDIDATES.join(', ');
    return {
      available: false,
      reason: `no Python with fusepy and libfuse 2 (apt-get install python3-fusepy; tried ${tried})`,
    };
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfs-probe-'));
  try {
    const mounted = await HoldFs.mount({ backing: root, python });
    await mounted.unmount();
    return { available: true, python };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { available: false, reason: `a trial mount of holdfs failed: ${reason}` };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Where to mount: the backing directory, and a work directory for the mountpoint and socket. */
export interface MountOptions {
  backing: string;
  python: string;
  /** Holds the mountpoint `mnt` and the socket `ctl`; a fresh temp dir when omitted. */
  workDir?: string;
}

/** A mounted holdfs. Every call after `unmount` fails. */
export class HoldFs {
  private readonly pending: Array<{ resolve: (reply: Reply) => void; reject: (e: Error) => void }> =
    [];
  private readonly cutWaiters: Array<(report: CutReport) => void> = [];
  private cutReport: CutReport | undefined;
  private stderr = '';
  private exited = false;

  private constructor(
    /** Where the file system is visible: the writer's data directories go under it. */
    readonly mountpoint: string,
    private readonly child: ChildProcess,
    private readonly socket: net.Socket,
    private readonly ownWorkDir: string | undefined,
  ) {
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop() as string;
      for (const line of lines) this.receive(JSON.parse(line) as Reply);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      for (const waiter of this.pending.splice(0)) {
        waiter.reject(new Error(`holdfs closed its control socket${this.stderrTail()}`));
      }
    });
    child.stderr?.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
  }

  /** Mounts holdfs over `backing` and resolves once it answers. */
  static async mount(options: MountOptions): Promise<HoldFs> {
    const ownWorkDir = options.workDir
      ? undefined
      : fs.mkdtempSync(path.join(os.tmpdir(), 'holdfs-'));
    const workDir = options.workDir ?? (ownWorkDir as string);
    const mountpoint = path.join(workDir, 'mnt');
    const socketPath = path.join(workDir, 'ctl');
    fs.mkdirSync(mountpoint, { recursive: true });
    // A mount a killed run left behind would make this one fail.
    spawnSync('fusermount3', ['-u', '-z', mountpoint], { stdio: 'ignore' });
    const child = spawn(options.python, [HOLDFS_PY, options.backing, mountpoint, socketPath], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    let stderr = '';
    const collect = (chunk: string) => {
      stderr += chunk;
    };
    child.stderr?.on('data', collect);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`holdfs did not mount within ${MOUNT_TIMEOUT_MS} ms`));
        }, MOUNT_TIMEOUT_MS);
        child.stdout?.on('data', (chunk: string) => {
          if (chunk.includes('"ready"')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`holdfs exited (code ${code}, signal ${signal}): ${stderr.trim()}`));
        });
      });
      const socket = await connect(socketPath);
      child.stderr?.off('data', collect);
      const mounted = new HoldFs(mountpoint, child, socket, ownWorkDir);
      mounted.stderr = stderr;
      child.on('exit', () => {
        mounted.exited = true;
      });
      return mounted;
    } catch (error) {
      child.kill('SIGTERM');
      spawnSync('fusermount3', ['-u', '-z', mountpoint], { stdio: 'ignore' });
      if (ownWorkDir) fs.rmSync(ownWorkDir, { recursive: true, force: true });
      throw error;
    }
  }

  private stderrTail(): string {
    const text = this.stderr.trim();
    return text ? `; its stderr: ${text.slice(-1000)}` : '';
  }

  private receive(reply: Reply): void {
    // An armed cut that fell due is announced unasked; every other line answers a command.
    const unasked = reply.event === 'cut' && reply.trigger === 'sync' && !reply.already;
    if (reply.event === 'cut') this.noteCut(reply);
    if (unasked) return;
    this.pending.shift()?.resolve(reply);
  }

  private noteCut(report: CutReport): void {
    if (this.cutReport) return;
    this.cutReport = report;
    for (const waiter of this.cutWaiters.splice(0)) waiter(report);
  }

  private command(text: string): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`holdfs did not answer '${text}' within ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      this.pending.push({
        resolve: (reply) => {
          clearTimeout(timer);
          if (reply.event === 'error') reject(new Error(`holdfs: ${reply.message}`));
          else resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.write(`${text}\n`);
    });
  }

  /**
   * Cuts the power now: every write not yet fsynced is dropped, and a torn cut (a seed) first
   * writes a seeded half of the held pages. Resolves with the first cut's report.
   */
  async cut(tornSeed?: number): Promise<CutReport> {
    const reply = await this.command(tornSeed === undefined ? 'cut' : `cut torn ${tornSeed}`);
    return reply as CutReport;
  }

  /**
   * Cuts the power just before the `syncs`-th sync from now (that sync fails); with
   * `minPages`, only syncs of a file holding at least that many unsynced pages count.
   */
  async arm(syncs: number, options: { minPages?: number; tornSeed?: number } = {}): Promise<void> {
    const pages = options.minPages ? ` pages ${options.minPages}` : '';
    const torn = options.tornSeed === undefined ? '' : ` torn ${options.tornSeed}`;
    await this.command(`arm ${syncs}${pages}${torn}`);
  }

  /** Resolves with the cut's report once the power is off (by `cut` or an armed sync). */
  whenCut(): Promise<CutReport> {
    if (this.cutReport) return Promise.resolve(this.cutReport);
    return new Promise((resolve) => this.cutWaiters.push(resolve));
  }

  /** The report of the cut, once there was one. */
  get cutDone(): CutReport | undefined {
    return this.cutReport;
  }

  async stats(): Promise<HoldFsStats> {
    return (await this.command('stats')) as HoldFsStats;
  }

  /**
   * Unmounts (lazily, so a process still holding a file cannot keep it mounted) and waits for
   * holdfs to exit; kills it if it does not. The backing directory is then the disk as left.
   */
  async unmount(): Promise<void> {
    this.socket.end();
    const exited = new Promise<void>((resolve) => {
      if (this.exited || this.child.exitCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    const result = spawnSync('fusermount3', ['-u', '-z', this.mountpoint], { encoding: 'utf8' });
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      exited.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), UNMOUNT_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (late) {
      this.child.kill('SIGKILL');
      await exited;
    }
    if (this.ownWorkDir) fs.rmSync(this.ownWorkDir, { recursive: true, force: true });
    if (late) {
      throw new Error(
        `holdfs did not exit within ${UNMOUNT_TIMEOUT_MS} ms of its unmount ` +
          `(fusermount3: ${result.stderr.trim() || `status ${result.status}`})${this.stderrTail()}`,
      );
    }
  }

  /** holdfs's stderr so far (Python tracebacks, FUSE errors). */
  get errors(): string {
    return this.stderr;
  }
}

function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * A real etcd for a test: one single-member etcd (Debian's /usr/bin/etcd, installed by .ci/run
 * when missing) on free loopback ports with its own temp data directory, started, waited on
 * until healthy, and stopped and removed afterwards. It never mocks etcd and decides nothing
 * about a test; the coordinator's tests and the torture suite use it.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** Where the etcd binary is looked for: ETCD_BIN, else `etcd` on PATH. */
const ETCD_BIN = process.env.ETCD_BIN ?? 'etcd';
/** How long a fresh etcd may take to answer healthy before the start fails. */
const START_TIMEOUT_MS = 15_000;
/** How long a stopped etcd may take to exit after SIGTERM before it gets SIGKILL. */
const STOP_TIMEOUT_MS = 5_000;

/** A running test etcd. */
export interface TestEtcd {
  /** Its client port on 127.0.0.1. */
  clientPort: number;
  /** The coordinator URL docdb takes for it: `etcd://127.0.0.1:<clientPort>`. */
  url: string;
  /** Its data directory (removed by stop). */
  dataDir: string;
  /** Stops it (SIGSTOP), as a machine that hangs: sockets stay open, nothing answers. */
  pause(): void;
  /** Resumes a paused etcd (SIGCONT). */
  resume(): void;
  /** Stops the process and removes its data directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** A port the system had free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts an etcd and resolves once it answers healthy on its client port. Its output goes to
 * `<dataDir>.log`, which a failed start quotes. `electionTimeoutMs` (and a heartbeat a tenth
 * of it) also sets etcd's shortest lease: 1.5 × the election timeout, rounded up to seconds.
 */
export async function startEtcd(options: { electionTimeoutMs?: number } = {}): Promise<TestEtcd> {
  const electionTimeoutMs = options.electionTimeoutMs ?? 1000;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docdb-etcd-'));
  const logFile = `${dataDir}.log`;
  const clientPort = await freePort();
  const peerPort = await freePort();
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const log = fs.openSync(logFile, 'w');
  const child = spawn(
    ETCD_BIN,
    [
      `--name=test`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=test=${peer}`,
      `--heartbeat-interval=${Math.max(10, Math.round(electionTimeoutMs / 10))}`,
      `--election-timeout=${electionTimeoutMs}`,
      '--log-level=warn',
      '--logger=zap',
    ],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopped = false;
  const etcd: TestEtcd = {
    clientPort,
    url: `etcd://127.0.0.1:${clientPort}`,
    dataDir,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await stopChild(child, exited);
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(logFile, { force: true });
    },
  };
  try {
    await waitHealthy(child, client, logFile);
  } catch (error) {
    await etcd.stop();
    throw error;
  }
  return etcd;
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Polls etcd's /health until it says true; fails with its log when it exits or takes too long. */
async function waitHealthy(child: ChildProcess, client: string, logFile: string): Promise<void> {
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (spawnError) {
      throw new Error(
        `could not start ${ETCD_BIN} (${spawnError.message}); install Debian's etcd-server (apt-get install etcd-server) or set ETCD_BIN`,
      );
    }
    if (child.exitCode !== null) {
      throw new Error(`etcd exited with ${child.exitCode}:\n${readLog(logFile)}`);
    }
    if (await isHealthy(client)) return;
    if (Date.now() > deadline) {
      throw new Error(`etcd was not healthy within ${START_TIMEOUT_MS} ms:\n${readLog(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function isHealthy(client: string): Promise<boolean> {
  try {
    const answer = await fetch(`${client}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await answer.json()) as { health?: string };
    return body.health === 'true';
  } catch {
    return false;
  }
}

function readLog(logFile: string): string {
  try {
    return fs.readFileSync(logFile, 'utf8').slice(-4000);
  } catch {
    return '(no log)';
  }
}

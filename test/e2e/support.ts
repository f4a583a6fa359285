/**
 * Helpers for end-to-end tests of `bin/docdb serve` as a real process: free loopback ports,
 * spawning with a clean environment, waiting (bounded) for the node to answer, HTTP(S)
 * requests without connection reuse, and stopping every process a test started.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(ROOT, 'bin/docdb');

/** Bounds every wait in these tests, so a broken node fails a test instead of hanging it. */
export const START_TIMEOUT_MS = 20_000;
export const EXIT_TIMEOUT_MS = 30_000;

/**
 * Ports below the kernel's ephemeral range (32768 and up on Linux), in a block of its own for
 * each vitest worker, handed out once each: a port released by one test can no longer come
 * back from the kernel as another test's "free" port (a node's HTTP port equal to the
 * replication port another test picked was a real flake).
 */
const PORT_BLOCK = 1_000;
const PORT_BASE = 12_000;
const PORT_BLOCKS = 20;
const portBlock =
  process.env.VITEST_POOL_ID === undefined
    ? Math.floor(Math.random() * PORT_BLOCKS)
    : Number(process.env.VITEST_POOL_ID) % PORT_BLOCKS;
let nextPortOffset = Math.floor(Math.random() * PORT_BLOCK);

/** A port free on 127.0.0.1 now that no earlier call of this process answered. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < PORT_BLOCK; tries += 1) {
    const port = PORT_BASE + portBlock * PORT_BLOCK + (nextPortOffset % PORT_BLOCK);
    nextPortOffset += 1;
    if (await canListen(port)) return port;
  }
  throw new Error(
    `no free port left in ${PORT_BLOCK} tries from ${PORT_BASE + portBlock * PORT_BLOCK}`,
  );
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** process.env without any DOCDB_* variable (so the caller's shell cannot leak in), plus extras. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('DOCDB_') && value !== undefined) env[name] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A spawned `docdb serve`. */
export interface ServeProcess {
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Waits (bounded) for the exit; fails with the output when it takes too long. */
  waitForExit(timeoutMs?: number): Promise<Exit>;
}

const running = new Set<ServeProcess>();
/** Every node started since `forgetStartedNodes`, exited or not. */
const started: ServeProcess[] = [];

/** Forgets the nodes started so far (a test begins: failure-output.ts). */
export function forgetStartedNodes(): void {
  started.length = 0;
}

/** What each node started since `forgetStartedNodes` wrote, for a failed test's output. */
export function startedNodesOutput(): string[] {
  return started.map((proc) => `docdb serve, pid ${proc.child.pid}:\n${describe(proc)}`);
}

/** Spawns `bin/docdb serve <args>`; stopAll() kills it if the test does not. */
export function spawnServe(args: string[], options: { cwd: string; env?: Record<string, string> }) {
  const child = spawn(BIN, ['serve', ...args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const proc: ServeProcess = {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForExit: (timeoutMs = EXIT_TIMEOUT_MS) =>
      withTimeout(exited, timeoutMs, () => `docdb serve did not exit\n${describe(proc)}`),
  };
  running.add(proc);
  started.push(proc);
  exited.then(() => running.delete(proc));
  return proc;
}

function describe(proc: ServeProcess): string {
  return `--- stdout ---\n${proc.stdout().slice(-4000)}\n--- stderr ---\n${proc.stderr().slice(-4000)}`;
}

/**
 * Spawns `bin/docdb router -c <config> --port <free port>` in `cwd` and waits (bounded) for
 * its start line; the caller kills `child`. `output()` is what it wrote so far.
 */
export async function startRouter(
  config: string,
  cwd: string,
): Promise<{ child: ChildProcess; url: string; output(): string }> {
  const port = await freePort();
  let out = '';
  const child = spawn(BIN, ['router', '-c', config, '--port', String(port)], {
    cwd,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  await waitFor(
    () => (out.includes('docdb router listening on') ? true : undefined),
    START_TIMEOUT_MS,
    () => `the router did not start:\n${out}`,
  );
  return { child, url: `http://127.0.0.1:${port}`, output: () => out };
}

/** Kills (SIGKILL) every process still running and waits for each; for afterEach. */
export async function stopAll(): Promise<void> {
  const procs = [...running];
  for (const proc of procs) proc.child.kill('SIGKILL');
  await Promise.all(procs.map((proc) => withTimeout(proc.exited, 10_000, () => 'kill timed out')));
}

/** Rejects with `message()` when `promise` takes longer than `timeoutMs`. */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: () => string) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  message: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(message());
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Spawns serve and waits for its start-up log line and a 200 from /health. */
export async function startServe(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; port: number; ca?: string | Buffer },
): Promise<ServeProcess & { url: string; startLine: string }> {
  const proc = spawnServe(args, options);
  let exited: Exit | undefined;
  proc.exited.then((exit) => {
    exited = exit;
  });
  const startLine = await waitFor(
    () => {
      if (exited) {
        throw new Error(
          `docdb serve exited (${JSON.stringify(exited)}) before listening\n${describe(proc)}`,
        );
      }
      return proc
        .stdout()
        .split('\n')
        .find((line) => line.includes('docdb node listening on'));
    },
    START_TIMEOUT_MS,
    () => `docdb serve did not log its start-up line\n${describe(proc)}`,
  );
  const url = `${options.ca ? 'https' : 'http'}://127.0.0.1:${options.port}`;
  const health = await request(`${url}/health`, options.ca ? { ca: options.ca } : {});
  if (health.status !== 200) {
    throw new Error(`GET /health answered ${health.status}\n${describe(proc)}`);
  }
  return Object.assign(proc, { url, startLine });
}

/** Runs serve expecting it to fail at start-up; bounded, killed when it does not exit. */
export async function runServeFailing(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<{ exit: Exit; stdout: string; stderr: string }> {
  const proc = spawnServe(args, options);
  const exit = await proc.waitForExit(START_TIMEOUT_MS);
  return { exit, stdout: proc.stdout(), stderr: proc.stderr() };
}

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** CA certificate for HTTPS: the server's own self-signed certificate. */
  ca?: string | Buffer;
  timeoutMs?: number;
  /** Called once the whole request has been written to the socket. */
  onSent?: () => void;
}

/**
 * One HTTP(S) request on its own connection (no keep-alive: a graceful shutdown should not
 * depend on idle sockets). Rejects on network errors and after `timeoutMs` (default 60 s).
 */
export function request(url: string, options: RequestOptions = {}): Promise<Response> {
  const target = new URL(url);
  const body = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string | number> = { ...options.headers };
  if (body) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = body.length;
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      {
        method: options.method ?? (body ? 'POST' : 'GET'),
        headers,
        agent: false,
        timeout: options.timeoutMs ?? 60_000,
        ...(options.ca && { ca: options.ca }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', reject);
    req.on('finish', () => options.onSent?.());
    req.end(body);
  });
}

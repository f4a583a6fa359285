/**
 * Processes and clean-up of the harness: child processes running TypeScript entry points
 * (servers, load workers) and one registry of things to undo — children to stop, clusters to
 * shut down, temp dirs to remove — run at the end, on an error and on Ctrl-C alike.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/** The tsx loader, so children run the .ts sources as the harness does. */
const TSX_LOADER = import.meta.resolve('tsx/esm');
/** How long a server child may take to say it listens. */
const SERVER_READY_MS = 60_000;

const undo: { name: string; run: () => void }[] = [];

/** Registers a synchronous clean-up step; returns a function that runs it now, once. */
export function onCleanup(name: string, run: () => void): () => void {
  const entry = { name, run };
  undo.push(entry);
  return () => {
    const at = undo.indexOf(entry);
    if (at >= 0) {
      undo.splice(at, 1);
      run();
    }
  };
}

/** Runs every registered clean-up step, newest first. */
export function cleanupAll(): void {
  while (undo.length > 0) {
    const entry = undo.pop() as (typeof undo)[number];
    try {
      entry.run();
    } catch (error) {
      console.error(`clean-up of ${entry.name} failed: ${(error as Error).message}`);
    }
  }
}

/** Installs the handlers that clean up on Ctrl-C, SIGTERM and process exit. */
export function installCleanupHandlers(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the peers and removing temp files…`);
      cleanupAll();
      process.exit(130);
    });
  }
  process.once('exit', cleanupAll);
}

/** A fresh temp dir, removed at clean-up. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  onCleanup(`temp dir ${dir}`, () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function spawnTs(script: string, args: string[]): ChildProcess {
  const entry = new URL(script, import.meta.url);
  return spawn(process.execPath, ['--import', TSX_LOADER, entry.pathname, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** tsx's registration API, which a worker thread calls before it imports a .ts entry. */
const TSX_API = import.meta.resolve('tsx/esm/api');

/**
 * A worker thread running an entry point (relative to bench/) through tsx, as children do.
 * Node 20 does not apply `--import` to a worker, so a small bootstrap registers tsx first.
 */
export function startTsWorker(script: string, workerData: unknown): Worker {
  const entry = new URL(script, import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(TSX_API)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** A server child that printed its ready line. */
export interface ServerChild {
  child: ChildProcess;
  /** Stops it with SIGTERM and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts a server entry point (relative to bench/) and waits for its `{"ready":true}` line. */
export function startServerChild(script: string, args: string[]): Promise<ServerChild> {
  return awaitReady(spawnTs(script, args), script, '"ready":true');
}

/** The docdb command of this checkout (bin/docdb, running the built dist/). */
const DOCDB_BIN = fileURLToPath(new URL('../bin/docdb', import.meta.url));

/**
 * Starts `docdb <args>` as an operator would (`docdb router …`) and waits until its stdout
 * holds `readyText`.
 */
export function startDocdbCommand(args: string[], readyText: string): Promise<ServerChild> {
  const child = spawn(process.execPath, [DOCDB_BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return awaitReady(child, `docdb ${args[0]}`, readyText);
}

function awaitReady(child: ChildProcess, name: string, readyText: string): Promise<ServerChild> {
  const kill = onCleanup(`${name} (pid ${child.pid})`, () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    kill();
  };
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${name} did not start within ${SERVER_READY_MS} ms:\n${stderr}`));
    }, SERVER_READY_MS);
    // Only the output before the ready text is kept: a server may log for a long time.
    let stdout = '';
    let ready = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (ready) return;
      stdout += chunk.toString();
      if (stdout.includes(readyText)) {
        ready = true;
        clearTimeout(timer);
        resolve({ child, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${stderr}`));
    });
  });
}

/** A child started by startJsonChild. */
export interface JsonChild<T> {
  /** The JSON its last stdout line holds, once it exits (rejects on a failure). */
  result: Promise<T>;
  /** Resolves once its stdout holds `text`; rejects when it exits without printing it. */
  printed(text: string): Promise<void>;
  /** Asks it to finish early with SIGTERM (a load worker then stops and prints its summary). */
  finish(): void;
}

/** Runs an entry point to completion and parses the JSON its last stdout line holds. */
export function runJsonChild<T>(script: string, args: string[]): Promise<T> {
  return startJsonChild<T>(script, args).result;
}

/**
 * Starts an entry point whose last stdout line will be JSON, for a caller that waits for a
 * line it prints on the way (a load under way) or stops it before its own end.
 */
export function startJsonChild<T>(script: string, args: string[]): JsonChild<T> {
  const child = spawnTs(script, args);
  const kill = onCleanup(`${script} (pid ${child.pid})`, () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const result = new Promise<T>((resolve, reject) => {
    child.once('exit', (code) => {
      kill();
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`${script} failed (exit ${code}):\n${stderr}${stdout}`));
        return;
      }
      resolve(JSON.parse(last) as T);
    });
  });
  const printed = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!stdout.includes(text)) return;
        child.stdout?.off('data', look);
        resolve();
      };
      child.stdout?.on('data', look);
      look();
      result.then(
        () => reject(new Error(`${script} exited without printing ${text}`)),
        (error: unknown) => reject(error),
      );
    });
  return {
    result,
    printed,
    finish: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}

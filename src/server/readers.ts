/**
 * A node's reader processes, as its first process runs them (issue 25, `--serve-processes`):
 * forks them, deals them the connections it accepts whose first request they may serve
 * (round robin, itself included; it keeps the rest), answers the requests they pass on an
 * internal unix socket with the node's own app, sums their request counts into `/metrics`,
 * starts another when one dies, and stops them before the node closes. It never reads the data file; reader.ts is the
 * readers' side.
 */

import { type ChildProcess, fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type * as net from 'node:net';
import * as os from 'node:os';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { MetricsSnapshot } from './metrics.js';
import { newPassSocketPath, removeStalePassSockets } from './pass-sockets.js';
import { type FromReader, type ReaderStart, readerMayServe, type ToReader } from './reader.js';
import { peekRequestLine } from './request-line.js';
import { READER_PROCESS_ENV } from './settings.js';

/** How long a reader may take to open the file and build its app before it is given up. */
const READER_START_MS = 30_000;
/** How long a scrape waits for a reader's counts; a reader that does not answer is left out. */
const READER_METRICS_MS = 1_000;
/** Pause before a reader that died is started again, doubled while they keep dying. */
const RESTART_DELAY_MS = 250;
const RESTART_DELAY_MS_MAX = 10_000;
/** A reader that served this long before it died had not been dying at start-up. */
const RESTART_RESET_MS = 30_000;
/** Beyond the request timeout, how long a stopping reader may take before it is killed. */
const STOP_MARGIN_MS = 5_000;

/** Where readers.ts logs. */
export interface ReadersLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Options of startReaders. */
export interface ReadersOptions {
  /** Reader processes to run (the node's processes less the first). */
  count: number;
  /** The node's listening server (its Fastify app's): its connections are dealt out. */
  listening: net.Server;
  /** The node's app's request handler: answers what readers pass. */
  answer: http.RequestListener;
  /** The node's app's Upgrade handler (a router's wire): takes the Upgrades readers pass. */
  upgrade?: (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** What each reader starts with (the socket it passes requests to is added here). */
  start: Omit<ReaderStart, 'kind' | 'passSocket'>;
  log: ReadersLog;
}

/** The reader entry point: the compiled module, or the source one run through tsx (tests). */
function readerEntry(): { file: string; execArgv: string[] } {
  const source = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(`./reader-process.${source ? 'ts' : 'js'}`, import.meta.url));
  return source
    ? { file, execArgv: ['--import', import.meta.resolve('tsx')] }
    : { file, execArgv: [] };
}

/** One reader process slot: the process in it now, and how its restarts go. */
interface Slot {
  child: ChildProcess | undefined;
  startedAtMs: number;
  restartDelayMs: number;
  /** Whether the process in it takes connections (it said `serving`). */
  serving: boolean;
}

/** The running readers of a node. */
export class Readers {
  private readonly slots: Slot[] = [];
  private closing = false;
  private nextMetricsId = 0;
  private readonly pending = new Map<number, (snapshot: MetricsSnapshot) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly options: ReadersOptions,
    private readonly passServer: http.Server,
    private readonly passSocket: string,
  ) {}

  /**
   * Starts `count` readers and resolves once each serves, or failed to start (it is then
   * started again in the background, logged, while the others serve).
   */
  static async start(options: ReadersOptions): Promise<Readers> {
    // Those of nodes killed before they could close, in the background: no start waits.
    removeStalePassSockets(os.tmpdir()).then(
      (removed) => {
        if (removed === 0) return;
        options.log.info(`removed ${removed} internal sockets left by nodes that did not close`);
      },
      () => {}, // it does not reject: at worst a sweep is skipped
    );
    const passSocket = newPassSocketPath();
    // Readers hold keep-alive connections here: an idle one closed by this side while a
    // reader sends on it would cut a client's request, so nothing times out here (the
    // reader's own server applies the node's timeouts to its clients).
    const passServer = http.createServer(
      { requestTimeout: 0, keepAliveTimeout: 0 },
      options.answer,
    );
    if (options.upgrade) passServer.on('upgrade', options.upgrade);
    await new Promise<void>((resolve, reject) => {
      passServer.once('error', reject);
      passServer.listen(passSocket, () => resolve());
    });
    const readers = new Readers(options, passServer, passSocket);
    readers.shareConnections();
    await Promise.all(
      Array.from({ length: options.count }, () => {
        const slot: Slot = {
          child: undefined,
          startedAtMs: 0,
          restartDelayMs: RESTART_DELAY_MS,
          serving: false,
        };
        readers.slots.push(slot);
        return readers.run(slot);
      }),
    );
    return readers;
  }

  /**
   * Deals the connections the first process accepts that a reader may serve, round robin,
   * between itself and the readers that serve, and keeps the others. It reads a connection's
   * first request line before it chooses (request-line.ts; the listening server pauses new
   * sockets): a connection whose first request is a write, a scan's stream or anything else
   * a reader would only relay stays here, and a read's (or a `POST /query`'s, which the
   * reader reads to decide) goes in turn, with the bytes read, which the reader puts back.
   * Over TLS those bytes are encrypted, so every connection is dealt in turn unread. Left to
   * the kernel, a shared listening socket gives a new connection to whichever process wakes
   * first, and a process that wakes takes every connection queued: 32 connections opened at
   * once went 32/0, 30/2, 27/5 and 14/18 between the first process and one reader, and a
   * client's kept-alive connections stay where they landed. Node's cluster module deals them
   * the same way on Linux. A connection's later requests stay on it: a reader relays those
   * it does not serve.
   */
  private shareConnections(): void {
    const listening = this.options.listening;
    const local = listening.listeners('connection') as ((socket: net.Socket) => void)[];
    listening.removeAllListeners('connection');
    (listening as net.Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
    const keep = (socket: net.Socket, head?: Buffer) => {
      // The bytes read go back in front, for the server to parse as if never read.
      if (head) socket.unshift(head);
      for (const listener of local) listener.call(listening, socket);
      socket.resume();
    };
    let turn = 0;
    const deal = (socket: net.Socket, head?: Buffer) => {
      turn = (turn + 1) % (this.slots.length + 1);
      const slot = this.slots[turn - 1];
      const child = slot?.serving ? slot.child : undefined;
      if (this.closing || !child?.connected) {
        keep(socket, head);
        return;
      }
      const message: ToReader = head ? { kind: 'connection', head } : { kind: 'connection' };
      child.send(message, socket, (error) => {
        if (error) socket.destroy();
      });
    };
    if (this.options.start.https) {
      listening.on('connection', (socket: net.Socket) => deal(socket));
      return;
    }
    const headerMs = this.options.start.timeouts.headerSeconds * 1000;
    listening.on('connection', (socket: net.Socket) => {
      peekRequestLine(socket, headerMs, ({ head, line }) => {
        if (line && readerMayServe(line.method, line.url)) deal(socket, head);
        else keep(socket, head);
      });
    });
  }

  /** The pids of the readers running now (tests, logs). */
  get pids(): number[] {
    return this.slots.flatMap((slot) => (slot.child?.pid === undefined ? [] : [slot.child.pid]));
  }

  /** Each running reader's request counts; a reader that does not answer in time is left out. */
  async metrics(): Promise<MetricsSnapshot[]> {
    const asks = this.slots.map((slot) => {
      const child = slot.child;
      if (!child?.connected) return Promise.resolve(undefined);
      const id = this.nextMetricsId++;
      return new Promise<MetricsSnapshot | undefined>((resolve) => {
        const timer = setTimeout(() => {
          this.pending.delete(id);
          resolve(undefined);
        }, READER_METRICS_MS);
        this.pending.set(id, (snapshot) => {
          clearTimeout(timer);
          this.pending.delete(id);
          resolve(snapshot);
        });
        child.send({ kind: 'metrics', id } satisfies ToReader, (error) => {
          if (error) this.pending.get(id)?.(emptySnapshot());
        });
      });
    });
    const snapshots = await Promise.all(asks);
    return snapshots.filter((snapshot) => snapshot !== undefined);
  }

  /**
   * Stops every reader (each finishes its requests in flight, within the request timeout,
   * then exits; one that does not is killed), then the internal socket.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    const waitMs = this.options.start.timeouts.requestSeconds * 1000 + STOP_MARGIN_MS;
    await Promise.all(
      this.slots.map(async ({ child }) => {
        if (!child || child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        if (child.connected) child.send({ kind: 'stop' } satisfies ToReader);
        else child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), waitMs);
        await exited;
        clearTimeout(timer);
      }),
    );
    await new Promise<void>((resolve) => this.passServer.close(() => resolve()));
    this.passServer.closeAllConnections();
    if (process.platform !== 'win32') fs.rmSync(this.passSocket, { force: true });
  }

  /** Starts a reader in `slot`; resolves once it serves or failed to. */
  private run(slot: Slot): Promise<void> {
    const { file, execArgv } = readerEntry();
    const child = fork(file, [], {
      execArgv,
      env: { ...process.env, [READER_PROCESS_ENV]: '1' },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    slot.child = child;
    slot.serving = false;
    slot.startedAtMs = Date.now();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.options.log.error(
          `reader process ${child.pid} did not start within ${READER_START_MS} ms; stopping it`,
        );
        child.kill('SIGKILL');
      }, READER_START_MS);
      const settle = () => {
        clearTimeout(timer);
        resolve();
      };
      child.on('message', (message: FromReader) => {
        switch (message.kind) {
          case 'ready':
            child.send({ kind: 'listen' } satisfies ToReader);
            break;
          case 'serving':
            slot.serving = true;
            settle();
            break;
          case 'metrics':
            this.pending.get(message.id)?.(message.snapshot);
            break;
          default:
            message satisfies never;
        }
      });
      child.once('exit', (code, signal) => {
        if (slot.child === child) slot.serving = false;
        settle();
        if (this.closing) return;
        this.restart(slot, child, code, signal);
      });
      child.send({
        kind: 'start',
        passSocket: this.passSocket,
        ...this.options.start,
      } satisfies ToReader);
    });
  }

  /** Logs a reader's death and starts another in its slot after a pause. */
  private restart(
    slot: Slot,
    child: ChildProcess,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    if (Date.now() - slot.startedAtMs > RESTART_RESET_MS) slot.restartDelayMs = RESTART_DELAY_MS;
    const delayMs = slot.restartDelayMs;
    slot.restartDelayMs = Math.min(delayMs * 2, RESTART_DELAY_MS_MAX);
    const how = signal === null ? `with code ${code}` : `on ${signal}`;
    this.options.log.warn(
      `reader process ${child.pid} exited ${how}; the other processes serve its connections' ` +
        `successors, and another reader starts in ${delayMs} ms`,
    );
    slot.child = undefined;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closing) return;
      void this.run(slot).then(() => {
        if (slot.child?.connected) {
          this.options.log.info(`reader process ${slot.child.pid} serves in its place`);
        }
      });
    }, delayMs);
    this.timers.add(timer);
  }
}

function emptySnapshot(): MetricsSnapshot {
  return { routes: [], plans: [] };
}

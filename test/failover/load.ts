/**
 * The write load of the failover run: a few concurrent clients, each inserting one document
 * at a time over REST into the node the run names as leader. A 201 is an acknowledged write
 * and its `_id` is recorded; a 503 (read-only, follower, or a durable write that timed out),
 * a refused connection or a cut one is retried with a new document and never counted. Any
 * other answer is a failure the run reports. It never reads what it wrote.
 */

import { request, waitFor } from '../e2e/support.js';
import type { DocdbNode } from './cluster.js';

/** The collection the load writes. */
export const LOAD_COLLECTION = 'load';
/** A client waits this long before retrying a refused or failed write. */
const RETRY_DELAY_MS = 20;
/** No insert waits longer (a durable write times out after the node's sync timeout first). */
const INSERT_TIMEOUT_MS = 15_000;
/** How long pause() may wait for every client to finish its write in flight. */
const PAUSE_TIMEOUT_MS = 30_000;
/** Unexpected answers kept for the failure message; the rest are counted. */
const UNEXPECTED_KEPT_MAX = 10;
/** Padding that makes each document about 150 bytes. */
const PAD = 'x'.repeat(96);

export interface LoadCounters {
  /** Writes answered 201, each with its `_id`. */
  acknowledged: number;
  /** Writes answered 503 and retried. */
  refused: number;
  /** Writes whose connection was refused, reset or timed out, retried. */
  failedConnections: number;
  /** Any other answer: a bug. */
  unexpected: number;
}

/**
 * Clients that each loop until stopped and can all be paused between two writes: what every
 * write load of these runs shares. A subclass runs `client` loops (started with `spawn`) that
 * call `turn()` before each write.
 */
export abstract class PausableClients {
  private stopped = false;
  private paused = false;
  private idle = 0;
  private wake: () => void = () => {};
  private woken: Promise<void> = Promise.resolve();
  private readonly running: Promise<void>[] = [];

  constructor() {
    this.newWake();
  }

  /** Runs one client's loop. */
  protected spawn(loop: () => Promise<void>): void {
    this.running.push(loop());
  }

  /** Before each write: waits while paused; false once the clients are stopped. */
  protected async turn(): Promise<boolean> {
    while (this.paused && !this.stopped) {
      this.idle++;
      await this.woken;
      this.idle--;
    }
    return !this.stopped;
  }

  /** Stops sending; resolves once no client has a write in flight. */
  async pause(): Promise<void> {
    this.paused = true;
    await waitFor(
      () => (this.idle === this.running.length ? true : undefined),
      PAUSE_TIMEOUT_MS,
      () => `${this.running.length - this.idle} load clients still had a write in flight`,
    );
  }

  resume(): void {
    this.paused = false;
    this.wake();
    this.newWake();
  }

  /** Stops the clients for good and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.resume();
    await Promise.all(this.running);
  }

  private newWake(): void {
    this.woken = new Promise((resolve) => {
      this.wake = resolve;
    });
  }
}

export class WriteLoad extends PausableClients {
  /** The node the clients write to; the run moves it at each switch. */
  target: DocdbNode;
  private readonly acked = new Set<string>();
  readonly counters: LoadCounters = {
    acknowledged: 0,
    refused: 0,
    failedConnections: 0,
    unexpected: 0,
  };
  readonly unexpectedAnswers: string[] = [];

  constructor(
    target: DocdbNode,
    private readonly clients: number,
    /** Marks the documents of one part of the run (handover, failover-sync1…). */
    private readonly tag: string,
  ) {
    super();
    this.target = target;
  }

  /** Starts the clients. */
  start(): void {
    for (let client = 0; client < this.clients; client++) this.spawn(() => this.client(client));
  }

  /** A copy of the `_id`s acknowledged so far. */
  acknowledgedIds(): Set<string> {
    return new Set(this.acked);
  }

  get acknowledgedCount(): number {
    return this.acked.size;
  }

  /** Waits (bounded) until `count` more writes than now are acknowledged. */
  async waitForMore(count: number, timeoutMs: number): Promise<void> {
    const goal = this.acked.size + count;
    await waitFor(
      () => (this.acked.size >= goal ? true : undefined),
      timeoutMs,
      () =>
        `the write load reached ${this.acked.size} of ${goal} acknowledged writes within ${timeoutMs / 1000} s (target ${this.target.name}; ${JSON.stringify(this.counters)})`,
    );
  }

  private async client(client: number): Promise<void> {
    let n = 0;
    while (await this.turn()) {
      const node = this.target;
      const document = { tag: this.tag, client, n: n++, pad: PAD };
      try {
        const response = await request(`${node.url}/collections/${LOAD_COLLECTION}`, {
          body: document,
          timeoutMs: INSERT_TIMEOUT_MS,
        });
        if (response.status === 201) {
          this.acked.add((response.json as { id: string }).id);
          this.counters.acknowledged++;
          continue;
        }
        if (response.status === 503) {
          this.counters.refused++;
        } else {
          this.counters.unexpected++;
          if (this.unexpectedAnswers.length < UNEXPECTED_KEPT_MAX) {
            this.unexpectedAnswers.push(
              `${node.name}: ${response.status} ${response.text.slice(0, 300)}`,
            );
          }
        }
      } catch {
        this.counters.failedConnections++;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
}

/**
 * The clients of the set part (Jepsen's set workload): a few clients, each with one insert in
 * flight, writing documents with a unique `key` through the router (docdb/client). Every
 * attempt is recorded with its outcome: acknowledged (201, with the `_id` the router gave),
 * refused (the connection was refused: nothing was sent, so nothing can be stored), or
 * unknown (a timeout, a cut connection or any error answer: the write may have landed). It
 * never reads what it wrote and never decides whether a run passed.
 */

import { connect, type DocdbClient, isDbError } from '../../src/client/index.js';
import { waitFor } from '../e2e/support.js';
import { PausableClients } from '../failover/load.js';

/** The collection the clients write: a hash collection on `key` in the cluster's config. */
export const SET_COLLECTION = 'items';
/** The shard key of SET_COLLECTION. */
export const SET_KEY_PATH = 'key';
/** A client waits this long after a write that was not acknowledged. */
const RETRY_DELAY_MS = 50;
/**
 * No insert waits longer. Longer than the router's wait for a new leader (15 s), so a write
 * the router is still placing is not cut short by the client.
 */
const INSERT_TIMEOUT_MS = 20_000;
/** Padding that makes each document about 100 bytes. */
const PAD = 'x'.repeat(48);

export type Outcome = 'acknowledged' | 'refused' | 'unknown';

/** One insert as a client saw it; times on the wall clock (Date.now), as the nodes stamp theirs. */
export interface Attempt {
  key: string;
  client: string;
  outcome: Outcome;
  /** The `_id` the router answered (acknowledged only). */
  id?: string;
  /** The error code of a write that was not acknowledged. */
  code?: string;
  sentMs: number;
  receivedMs: number;
}

export class SetLoad extends PausableClients {
  /** Every attempt that finished, in the order the clients saw them finish. */
  readonly attempts: Attempt[] = [];
  /** Acknowledged attempts so far. */
  acknowledged = 0;
  private written = 0;
  private readonly clients: DocdbClient[] = [];

  /** `routerUrl` stays the same across router restarts; `tag` prefixes every key. */
  constructor(
    private readonly routerUrl: string,
    private readonly count: number,
    private readonly tag: string,
  ) {
    super();
  }

  start(): void {
    for (let i = 0; i < this.count; i++) {
      const client = connect(this.routerUrl, { timeoutMs: INSERT_TIMEOUT_MS, connections: 1 });
      this.clients.push(client);
      this.spawn(() => this.run(`client-${i}`, client));
    }
  }

  /** Waits (bounded) until `count` more writes than now are acknowledged; false when time ran out. */
  async waitForMore(count: number, timeoutMs: number): Promise<boolean> {
    const goal = this.acknowledged + count;
    try {
      await waitFor(
        () => (this.acknowledged >= goal ? true : undefined),
        timeoutMs,
        () => '',
      );
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.stop();
    await Promise.all(this.clients.map((c) => c.close()));
  }

  private async run(name: string, client: DocdbClient): Promise<void> {
    while (await this.turn()) {
      const key = `${this.tag}-${this.written++}`;
      const sentMs = Date.now();
      let attempt: Attempt;
      try {
        const { id } = await client.insert(SET_COLLECTION, { key, client: name, pad: PAD });
        attempt = {
          key,
          client: name,
          outcome: 'acknowledged',
          id,
          sentMs,
          receivedMs: Date.now(),
        };
      } catch (error) {
        attempt = {
          key,
          client: name,
          outcome: refusedConnection(error) ? 'refused' : 'unknown',
          code: isDbError(error) ? error.code : (error as Error).message.slice(0, 100),
          sentMs,
          receivedMs: Date.now(),
        };
      }
      this.attempts.push(attempt);
      if (attempt.outcome === 'acknowledged') this.acknowledged++;
      else {
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
      }
    }
  }
}

/** True when the router's port refused the connection: the request was never sent. */
function refusedConnection(error: unknown): boolean {
  return isDbError(error, 'ERR_CLIENT_UNREACHABLE') && error.details?.cause === 'ECONNREFUSED';
}

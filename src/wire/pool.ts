/**
 * A router's wire connections to one node: a few, opened as calls need them by an HTTP
 * Upgrade on the node's own port (`GET /wire`, `Upgrade: docdb-wire/1`, the API key as on any
 * request; TLS when the URL is https), each carrying many requests at once. A node that
 * answers the Upgrade with anything but 101 (an older node's 404, a proxy's refusal) does not
 * speak the wire: `call` answers NO_WIRE and the caller uses HTTP, and the pool asks again
 * after WIRE_ASK_AGAIN_MS (the node may have been upgraded). A node that cannot be reached
 * fails the call as the HTTP client would (ERR_CLIENT_UNREACHABLE with the cause's code, a
 * refused connection's `ECONNREFUSED` included, or ERR_CLIENT_TIMEOUT).
 */

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { type DbError, dbError, isDbError } from '../errors/index.js';
import { WireConnection, lost } from './connection.js';
import {
  WIRE_BODY_BYTES_HEADER,
  WIRE_OPS,
  WIRE_PATH,
  WIRE_PROTOCOL,
  type WireOp,
  type WireReply,
} from './protocol.js';

/** Connections a router keeps to one node (each carries any number of requests at once). */
export const WIRE_CONNECTIONS_DEFAULT = 2;

/** How long a node that did not take the Upgrade is spoken to over HTTP before it is asked again. */
export const WIRE_ASK_AGAIN_MS = 60_000;

/**
 * Bytes a call's HTTP body may take beyond its wire arguments (`{"sql":…,"params":…,"shard":…}`
 * against `[…,…,…]`, 23 bytes): a call whose arguments come within this of the node's body
 * limit goes over HTTP, so the node's limit decides it exactly as it always has.
 */
const HTTP_BODY_EXTRA_BYTES = 64;

/** What `call` answers when the node does not speak the wire: send the call over HTTP. */
export const NO_WIRE: unique symbol = Symbol('no wire');

/** What a pool needs of the client it serves (the same options as its HTTP client). */
export interface WirePoolOptions {
  apiKey?: string | undefined;
  tls?: { ca?: string | Buffer | Array<string | Buffer>; rejectUnauthorized?: boolean };
  timeoutMs: number;
  /** Tries of a read after a lost connection, as the HTTP client's `retries`. */
  retries: number;
  retryPauseMs: number;
  connections?: number;
}

/** An open connection and the node's body limit it announced. */
interface Opened {
  connection: WireConnection;
  bodyBytesMax: number;
}

export class WirePool {
  private readonly slots: Array<Promise<Opened | typeof NO_WIRE> | undefined>;
  private next = 0;
  /** The slot this turn's calls take (see `connection`). */
  private turnSlot: number | undefined;
  /** performance.now() before which the node is taken not to speak the wire. */
  private httpUntil = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly url: URL;

  /** `baseUrl` is the node's, as its HTTP client has it (a path prefix included). */
  constructor(
    readonly baseUrl: string,
    private readonly options: WirePoolOptions,
  ) {
    this.url = new URL(`${baseUrl.replace(/\/+$/, '')}${WIRE_PATH}`);
    this.slots = new Array(options.connections ?? WIRE_CONNECTIONS_DEFAULT).fill(undefined);
  }

  /**
   * Runs `op` on the node and answers its JSON text (undefined for "none") or a query's rows
   * apart (WireReply), or NO_WIRE when
   * the call is to go over HTTP: the node does not speak the wire, or the arguments come near
   * its body limit (HTTP then answers exactly as the node does for such a body). A read is
   * tried again after a lost connection, as the HTTP client tries a GET again.
   */
  async call(op: WireOp, args: readonly unknown[]): Promise<WireReply | typeof NO_WIRE> {
    if (this.closed || performance.now() < this.httpUntil) return NO_WIRE;
    const argsJson = JSON.stringify(args);
    const tries = WIRE_OPS[op].read ? this.options.retries + 1 : 1;
    for (let tried = 1; ; tried++) {
      try {
        const opened = await this.connection();
        if (opened === NO_WIRE) return NO_WIRE;
        // Most requests are far below the limit: count bytes only when characters might pass it.
        const room = opened.bodyBytesMax - HTTP_BODY_EXTRA_BYTES;
        if (argsJson.length * 3 > room && Buffer.byteLength(argsJson) > room) return NO_WIRE;
        return await opened.connection.call(op, argsJson, this.options.timeoutMs, () =>
          this.timeout(op),
        );
      } catch (error) {
        if (tried >= tries || !isDbError(error, 'ERR_CLIENT_UNREACHABLE')) throw error;
        await new Promise((resolve) =>
          setTimeout(resolve, this.options.retryPauseMs * 2 ** (tried - 1)),
        );
      }
    }
  }

  /** Closes every connection; later calls go over HTTP (whose client says it is closed). */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    await Promise.all(
      slots.map(async (slot) => {
        const opened = await slot?.catch(() => undefined);
        if (opened && opened !== NO_WIRE) opened.connection.close();
      }),
    );
  }

  /**
   * The slot's connection for this turn of the event loop, opened now if it has none. Every
   * call of one turn takes the same slot, so its requests leave in one write (frame-writer.ts);
   * the next turn takes the next slot, so the connections still share the load.
   */
  private async connection(): Promise<Opened | typeof NO_WIRE> {
    let k = this.turnSlot;
    if (k === undefined) {
      k = this.next;
      this.next = (k + 1) % this.slots.length;
      this.turnSlot = k;
      setImmediate(() => {
        this.turnSlot = undefined;
      });
    }
    let slot = this.slots[k];
    if (slot === undefined) {
      slot = this.dial(k);
      this.slots[k] = slot;
      // A slot whose dial failed is empty again: the next call dials anew.
      slot.catch(() => {
        if (this.slots[k] === slot) this.slots[k] = undefined;
      });
    }
    return slot;
  }

  /** Opens slot `k`'s connection by the Upgrade; NO_WIRE when the node answers otherwise. */
  private dial(k: number): Promise<Opened | typeof NO_WIRE> {
    return new Promise((resolve, reject) => {
      const { tls, apiKey, timeoutMs } = this.options;
      const https = this.url.protocol === 'https:';
      const req = (https ? httpsRequest : httpRequest)(this.url, {
        method: 'GET',
        agent: false,
        headers: {
          connection: 'Upgrade',
          upgrade: WIRE_PROTOCOL,
          ...(apiKey !== undefined && { authorization: `Bearer ${apiKey}` }),
        },
        ...(https && tls?.ca !== undefined && { ca: tls.ca }),
        ...(https &&
          tls?.rejectUnauthorized !== undefined && {
            rejectUnauthorized: tls.rejectUnauthorized,
          }),
      });
      const timer = setTimeout(() => req.destroy(this.timeout('dial')), timeoutMs);
      req.on('upgrade', (answer: IncomingMessage, socket: Duplex, head: Buffer) => {
        clearTimeout(timer);
        const bodyBytesMax = Number(answer.headers[WIRE_BODY_BYTES_HEADER]);
        if (answer.headers.upgrade !== WIRE_PROTOCOL || !(bodyBytesMax > 0)) {
          socket.destroy();
          resolve(this.noWire(k));
          return;
        }
        (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
        // A connection that ends empties its slot, unless the slot was dialled anew since.
        const slot = this.slots[k];
        const connection = new WireConnection(socket, this.url.href, head, () => {
          if (this.slots[k] === slot) this.slots[k] = undefined;
        });
        resolve({ connection, bodyBytesMax });
      });
      req.on('response', (answer: IncomingMessage) => {
        clearTimeout(timer);
        answer.resume();
        resolve(this.noWire(k));
      });
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(isDbError(error) ? error : lost(this.url.href, error));
      });
      req.end();
    });
  }

  /**
   * Remembers that the node does not speak the wire (see WIRE_ASK_AGAIN_MS); slot `k` is
   * empty again, to dial once that time has passed.
   */
  private noWire(k: number): typeof NO_WIRE {
    this.httpUntil = performance.now() + WIRE_ASK_AGAIN_MS;
    this.slots[k] = undefined;
    return NO_WIRE;
  }

  private timeout(op: WireOp | 'dial'): DbError {
    const write = op === 'dial' || WIRE_OPS[op].read ? '' : ', and the write may have been stored';
    return dbError('ERR_CLIENT_TIMEOUT', 'timeout', {
      url: `${this.url.href} (${op})`,
      timeoutMs: this.options.timeoutMs,
      writeHint: write,
    });
  }
}

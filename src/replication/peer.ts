/**
 * One replication connection as messages: frames out, checked messages in, in order. A
 * protocol error, a socket error or the other side closing ends it; every waiting receive
 * then rejects with the reason. It knows the protocol's messages, not the session's rules;
 * `connectPeer` opens one to a listener (a follower's, or a promoted node's notice).
 */

import * as net from 'node:net';
import * as tls from 'node:tls';
import { TLSSocket } from 'node:tls';
import { type DbError, dbError } from '../errors/index.js';
import { encodeFrame, FrameDecoder } from './frames.js';
import { type Message, type MessageType, parseMessage } from './protocol.js';

/** How long a last message may take to leave before the connection is cut anyway. */
const FINISH_TIMEOUT_MS = 1000;

interface Waiter {
  resolve: (message: Message) => void;
  reject: (error: unknown) => void;
  timer?: NodeJS.Timeout;
}

export class Peer {
  private readonly decoder = new FrameDecoder();
  private readonly inbox: Message[] = [];
  private waiter: Waiter | undefined;
  private ended: DbError | undefined;
  private readonly endListeners: Array<(reason: DbError) => void> = [];
  /** Bytes received and sent, for the metrics. */
  bytesIn = 0;
  bytesOut = 0;

  constructor(
    readonly socket: net.Socket,
    /** `host:port` of the other side, for status and logs. */
    readonly address: string,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      this.end(
        dbError('ERR_REPLICATION_CONNECTION', 'failed', {
          address,
          cause: error.code ?? error.message,
        }),
      ),
    );
    socket.on('close', () =>
      this.end(dbError('ERR_REPLICATION_CONNECTION', 'closedByPeer', { address })),
    );
  }

  private onData(chunk: Buffer): void {
    this.bytesIn += chunk.length;
    let values: unknown[];
    try {
      values = this.decoder.push(chunk);
    } catch (error) {
      this.close(error as DbError);
      return;
    }
    for (const value of values) {
      let message: Message;
      try {
        message = parseMessage(value);
      } catch (error) {
        this.close(error as DbError);
        return;
      }
      const waiter = this.waiter;
      if (waiter) {
        this.waiter = undefined;
        if (waiter.timer) clearTimeout(waiter.timer);
        waiter.resolve(message);
      } else {
        this.inbox.push(message);
      }
    }
  }

  /**
   * What binds the handshake's proofs to this connection: on TLS, keying material exported
   * from the session (equal at both ends of one session only); empty on plain TCP.
   */
  get binding(): Uint8Array {
    if (!(this.socket instanceof TLSSocket)) return new Uint8Array(0);
    return this.socket.exportKeyingMaterial(32, 'EXPORTER-docdb-replication', Buffer.alloc(0));
  }

  /**
   * Sends a last message and ends the connection once it is handed to the system (a
   * refusal, a notice's answer, a follower's goodbye); waits at most FINISH_TIMEOUT_MS.
   */
  async finish(message: Message): Promise<void> {
    try {
      await this.send(message);
    } finally {
      const flushed = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FINISH_TIMEOUT_MS);
        timer.unref();
        this.socket.end(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      await flushed;
      this.close();
    }
  }

  /** True until the connection ended. */
  get open(): boolean {
    return this.ended === undefined;
  }

  /** Why it ended, once it did. */
  get endReason(): DbError | undefined {
    return this.ended;
  }

  /**
   * The next message; rejects when the connection ends, when `timeoutMs` passes without one,
   * or when it is not of an `expected` type.
   */
  receive(expected?: readonly MessageType[], timeoutMs?: number): Promise<Message> {
    const check = (message: Message) => (expected ? parseMessage(message, expected) : message);
    const queued = this.inbox.shift();
    if (queued) {
      try {
        return Promise.resolve(check(queued));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (message) => {
          try {
            resolve(check(message));
          } catch (error) {
            reject(error);
          }
        },
        reject,
      };
      if (timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          this.waiter = undefined;
          reject(
            dbError('ERR_REPLICATION_CONNECTION', 'silent', {
              address: this.address,
              seconds: Math.round(timeoutMs / 1000),
            }),
          );
        }, timeoutMs);
      }
      this.waiter = waiter;
    });
  }

  /** Sends one message; resolves when the socket can take more (backpressure). */
  async send(message: Message): Promise<void> {
    if (this.ended) throw this.ended;
    const frame = encodeFrame(message);
    this.bytesOut += frame.length;
    if (this.socket.write(frame)) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
    if (this.ended) throw this.ended;
  }

  /** Calls `listener` once when the connection ends, with the reason. */
  onEnd(listener: (reason: DbError) => void): void {
    if (this.ended) listener(this.ended);
    else this.endListeners.push(listener);
  }

  /** Ends the connection; `reason` is what waiting receives reject with. */
  close(reason?: DbError): void {
    this.end(reason ?? dbError('ERR_REPLICATION_CONNECTION', 'closed'));
    this.socket.destroy();
  }

  private end(reason: DbError): void {
    if (this.ended) return;
    this.ended = reason;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) {
      if (waiter.timer) clearTimeout(waiter.timer);
      waiter.reject(reason);
    }
    for (const listener of this.endListeners.splice(0)) listener(reason);
  }
}

/**
 * Connects to the replication listener at `host:port` (TLS when `tls`), within `timeoutMs`;
 * rejects with ERR_REPLICATION_CONNECTION naming `what` is there ("the leader").
 */
export function connectPeer(
  host: string,
  port: number,
  options: { tls: boolean; timeoutMs: number; what: string },
): Promise<Peer> {
  const address = `${options.what} at ${host}:${port}`;
  return new Promise((resolve, reject) => {
    // The TLS certificate is not checked against a CA: the handshake's proofs, bound to the
    // TLS session, authenticate both ends when a secret is set (docs/replication.md).
    const socket = options.tls
      ? tls.connect({ host, port, rejectUnauthorized: false, servername: servername(host) })
      : net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(dbError('ERR_REPLICATION_CONNECTION', 'noAnswer', { address }));
    }, options.timeoutMs);
    socket.once(options.tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(new Peer(socket, `${host}:${port}`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        dbError('ERR_REPLICATION_CONNECTION', 'unreachable', {
          address,
          cause: error.code ?? error.message,
        }),
      );
    });
  });
}

/** TLS SNI takes a host name, never an address. */
function servername(host: string): string | undefined {
  return net.isIP(host) === 0 ? host : undefined;
}

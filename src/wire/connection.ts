/**
 * One wire connection as a router holds it: requests go out as frames with ids, as many in
 * flight as the caller sends, and answers are matched by id in whatever order they come. A
 * lost connection fails its open requests as the HTTP client fails a request whose connection
 * broke (ERR_CLIENT_UNREACHABLE), and a node that breaks the protocol fails them with
 * ERR_CLIENT_PROTOCOL; either way the connection is done and the pool opens another.
 */

import type { Duplex } from 'node:stream';
import { errorOf as errorOfBody } from '../client/transport.js';
import { type DbError, dbError, isDbError } from '../errors/index.js';
// The frames alone, not replication's index: docdb/client/cluster reaches this file, and an
// application's process has no use for the leader and follower.
import { encodeFrame, FrameDecoder } from '../replication/frames.js';
import {
  WIRE_ANSWER_FRAME_BYTES_MAX,
  WIRE_PROTOCOL,
  type WireAnswer,
  type WireOp,
  type WireReply,
} from './protocol.js';
import { FrameWriter } from './frame-writer.js';

/** A request waiting for its answer. */
interface Pending {
  resolve: (reply: WireReply) => void;
  reject: (error: DbError) => void;
  timer: NodeJS.Timeout;
  /** The parts of a long answer received so far. */
  parts: Uint8Array[];
}

export class WireConnection {
  private readonly pending = new Map<number, Pending>();
  private readonly decoder = new FrameDecoder(WIRE_ANSWER_FRAME_BYTES_MAX);
  /** Requests go out together once per turn of the event loop (frame-writer.ts). */
  private readonly out: FrameWriter;
  private nextId = 1;
  /** Why the connection is done, once it is. */
  private ended: DbError | undefined;

  /**
   * `url` names the node in errors; `head` holds bytes that came with the 101 answer.
   * `onEnd` runs once, when the connection is done.
   */
  constructor(
    private readonly socket: Duplex,
    readonly url: string,
    head: Buffer,
    private readonly onEnd: () => void,
  ) {
    this.out = new FrameWriter(socket);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (error) => this.end(lost(url, error)));
    socket.on('close', () => this.end(lost(url, undefined)));
    if (head.length > 0) this.receive(head);
  }

  /** True until the connection is lost or closed. */
  get open(): boolean {
    return this.ended === undefined;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends `op` with its arguments (`argsJson`, one JSON array) and answers the answer's JSON
   * text (undefined for "none"), or a query's answer with its rows apart (WireReply). A node's error answer rejects with its DbError; no answer
   * within `timeoutMs` rejects with `timeout()`, and the answer, if it comes later, is dropped.
   */
  call(op: WireOp, argsJson: string, timeoutMs: number, timeout: () => DbError) {
    return new Promise<WireReply>((resolve, reject) => {
      if (this.ended) {
        reject(this.ended);
        return;
      }
      const i = this.nextId;
      // Ids wrap well before MessagePack's integers grow past 32 bits.
      this.nextId = i >= 0x7fffffff ? 1 : i + 1;
      const timer = setTimeout(() => {
        this.pending.delete(i);
        reject(timeout());
      }, timeoutMs);
      this.pending.set(i, { resolve, reject, timer, parts: [] });
      this.out.write(encodeFrame({ i, op, a: argsJson }));
    });
  }

  /** Closes the connection; its open requests fail as a lost connection's. */
  close(): void {
    this.end(dbError('ERR_CLIENT_UNREACHABLE', 'closed', { url: this.url }));
  }

  private receive(chunk: Buffer): void {
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (error) {
      this.end(broken(this.url, error));
      return;
    }
    for (const message of messages) this.answer(message as WireAnswer);
  }

  private answer(message: WireAnswer): void {
    if (message?.i === 0) {
      // The node closes the connection and says why.
      this.end(errorOf(message, this.url));
      return;
    }
    const waiting = this.pending.get(message?.i);
    // An answer to a request that timed out is dropped.
    if (waiting === undefined) return;
    if (message.b !== undefined) waiting.parts.push(message.b);
    if (message.more) return;
    this.pending.delete(message.i);
    clearTimeout(waiting.timer);
    if (message.e !== undefined) {
      waiting.reject(errorOf(message, this.url));
      return;
    }
    if (message.r !== undefined) {
      waiting.resolve({ json: message.j ?? '', rows: message.r });
      return;
    }
    if (waiting.parts.length > 0) {
      waiting.resolve(Buffer.concat(waiting.parts).toString('utf8'));
      return;
    }
    waiting.resolve(message.j);
  }

  private end(reason: DbError): void {
    if (this.ended) return;
    this.ended = reason;
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(reason);
    }
    this.pending.clear();
    this.socket.destroy();
    this.onEnd();
  }
}

/**
 * The failure of a connection that broke or closed, worded as the HTTP client words a lost
 * connection: ERR_CLIENT_UNREACHABLE naming the cause, whose code (`ECONNRESET`…) is in the
 * details as the router's retry rules read it.
 */
export function lost(url: string, error: unknown): DbError {
  if (isDbError(error)) return error;
  const code = (error as { code?: string } | undefined)?.code ?? '';
  const cause =
    (error as Error | undefined)?.message ||
    code ||
    'the node closed the connection before the answer';
  return dbError(
    'ERR_CLIENT_UNREACHABLE',
    'unreachable',
    { url, codePrefix: code && !cause.includes(code) ? `${code}: ` : '', cause },
    { cause: code || cause },
  );
}

/** A node's frames that are not the protocol (too long, not MessagePack). */
function broken(url: string, error: unknown): DbError {
  const cause = (error as Error).message;
  return dbError('ERR_CLIENT_PROTOCOL', 'wireBroken', { url, protocol: WIRE_PROTOCOL, cause });
}

/** The DbError of an error answer, read as the HTTP client reads an error body. */
function errorOf(message: WireAnswer, url: string): DbError {
  return errorOfBody(message.e ?? 500, message.j ?? '', {}, url);
}

/**
 * Replication's framing: each message is a 4-byte big-endian length and that many bytes of
 * plain MessagePack (msgpackr; docs/adr/0011). The decoder takes a TCP stream in any chunking,
 * split or coalesced, and refuses a frame past REPLICATION_FRAME_BYTES_MAX or bytes that are
 * not MessagePack. It knows nothing of what the messages mean (protocol.ts does).
 */

import { Packr } from 'msgpackr';
import { dbError } from '../errors/index.js';
import { REPLICATION_FRAME_BYTES_MAX } from '../util/index.js';

const packr = new Packr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });

const HEADER_BYTES = 4;

/** One message as a frame: its length, then its MessagePack bytes. */
export function encodeFrame(message: unknown): Buffer {
  const body = packr.pack(message);
  if (body.length > REPLICATION_FRAME_BYTES_MAX) {
    throw dbError('ERR_REPLICATION_PROTOCOL', 'frameTooLarge', {
      bytes: body.length,
      limit: REPLICATION_FRAME_BYTES_MAX,
    });
  }
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

/** Splits a byte stream into decoded messages. */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly frameBytesMax = REPLICATION_FRAME_BYTES_MAX) {}

  /**
   * Takes the next chunk of the stream; returns the messages it completed, in order. Throws
   * ERR_REPLICATION_PROTOCOL on an oversize frame or bytes that do not decode: the stream is
   * then unusable and the connection must close.
   */
  push(chunk: Buffer): unknown[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    const messages: unknown[] = [];
    while (this.pendingBytes >= HEADER_BYTES) {
      const head = this.peek(HEADER_BYTES);
      const length = head.readUInt32BE(0);
      if (length > this.frameBytesMax) {
        // The details let another user of the framing (the wire) word it as its own.
        const values = { bytes: length, limit: this.frameBytesMax };
        throw dbError('ERR_REPLICATION_PROTOCOL', 'frameAnnouncedTooLarge', values, values);
      }
      if (this.pendingBytes < HEADER_BYTES + length) break;
      const body = this.take(HEADER_BYTES + length).subarray(HEADER_BYTES);
      messages.push(decodeBody(body));
    }
    return messages;
  }

  /** Bytes received that do not yet make a whole frame. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private peek(bytes: number): Buffer {
    if ((this.pending[0] as Buffer).length < bytes) this.pending = [Buffer.concat(this.pending)];
    return this.pending[0] as Buffer;
  }

  private take(bytes: number): Buffer {
    const all = this.peek(bytes);
    const frame = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.pending = rest.length > 0 ? [rest, ...this.pending.slice(1)] : this.pending.slice(1);
    this.pendingBytes -= bytes;
    return frame;
  }
}

function decodeBody(body: Buffer): unknown {
  try {
    return packr.unpack(body);
  } catch (error) {
    throw dbError('ERR_REPLICATION_PROTOCOL', 'frameNotMessagePack', {
      cause: (error as Error).message,
    });
  }
}

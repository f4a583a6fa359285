/**
 * The wire's way out: the frames one side sends during a turn of the event loop leave in one
 * socket write when the turn's I/O is done, not one write (one system call and, with Nagle
 * off, one TCP segment) per frame. It owns the order of the frames; it never encodes them.
 */

import type { Duplex } from 'node:stream';

/**
 * Frames for one socket, gathered and written together. Why: with many requests in flight
 * on a connection the profile of a router under point lookups spent more than a third of
 * its CPU in a socket write per frame (issue 25); one write per turn carries them all.
 * The batch goes out in the check phase (setImmediate), after every read of the turn's poll
 * phase, so a request waits for no timer; `flush` sends it at once (before the socket ends).
 */
export class FrameWriter {
  private queued: Buffer[] = [];
  private scheduled = false;

  constructor(private readonly socket: Duplex) {}

  /** Queues `frame` to go out with the rest of this turn's frames, in order. */
  write(frame: Buffer): void {
    this.queued.push(frame);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Writes what is queued now, as one write; a socket destroyed or ended drops it. */
  flush(): void {
    this.scheduled = false;
    const frames = this.queued;
    if (frames.length === 0) return;
    this.queued = [];
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.write(frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames));
  }
}

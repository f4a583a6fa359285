/**
 * A loopback TCP proxy a test puts in front of a node's replication port, so it can break the
 * network the way a real one breaks: reset, blackhole, freeze, or slow. The replication unit
 * tests and the torture suite's parts use it. It only moves (or withholds) bytes; it never
 * parses them and decides nothing about a test.
 */

import * as net from 'node:net';

/**
 * What the link does with connections and bytes:
 * - `up`: passes bytes both ways.
 * - `reset`: destroys every connection, and accepts and destroys new ones at once.
 * - `blackhole`: connections stay open and new ones are accepted, but every byte either way is
 *   dropped for good; a side that closes meanwhile is only noticed by the other at the heal.
 * - `freeze`: connections stay open and new ones are accepted; bytes either way are held in
 *   order (in the proxy and, once the proxy stops reading, in the kernel's buffers) and
 *   delivered at the heal, as on a network that stalled.
 * - `slow`: each chunk from upstream waits `slowChunkDelayMs`, and the link reads nothing more
 *   from upstream meanwhile, so the sender meets backpressure.
 */
export type LinkMode = 'up' | 'reset' | 'blackhole' | 'freeze' | 'slow';

/** How long each chunk from upstream waits in a slow link, unless the constructor says. */
export const SLOW_CHUNK_DELAY_MS = 50;

/** One proxied connection. */
interface Pair {
  downstream: net.Socket;
  upstream: net.Socket;
  /** What a freeze holds, in arrival order, each chunk with the socket it goes to. */
  held: Array<{ to: net.Socket; chunk: Buffer }>;
  /** A side closed while the link was blackholed or frozen: the other learns it at the heal. */
  closedWhileDown: boolean;
}

export class NetProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<Pair>();
  private current: LinkMode = 'up';
  /** The port to connect to instead of the upstream's; set by listen(). */
  port = 0;

  constructor(
    private readonly upstreamPort: number,
    private readonly slowChunkDelayMs = SLOW_CHUNK_DELAY_MS,
  ) {
    this.server = net.createServer((downstream) => this.accept(downstream));
  }

  /** Listens on 127.0.0.1, on a port the system picks; resolves with it. */
  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  get mode(): LinkMode {
    return this.current;
  }

  /** Connections open through the link now. */
  get connections(): number {
    return this.pairs.size;
  }

  /** Switches the link to `mode` (see LinkMode); `up` heals it. */
  set(mode: LinkMode): void {
    const before = this.current;
    this.current = mode;
    if (mode === 'reset') {
      for (const pair of this.pairs) this.drop(pair);
    }
    if (mode === 'up' && (before === 'freeze' || before === 'blackhole')) this.heal(before);
  }

  /** Resets every connection and refuses new ones until `up()`. */
  reset(): void {
    this.set('reset');
  }

  blackhole(): void {
    this.set('blackhole');
  }

  freeze(): void {
    this.set('freeze');
  }

  slow(): void {
    this.set('slow');
  }

  /**
   * Heals the link: a frozen link delivers what it held; a blackholed one carries on with the
   * same connections (what it dropped is gone, so the peers see a broken stream or silence and
   * must reconnect); a connection one side closed meanwhile is closed on the other side now.
   */
  up(): void {
    this.set('up');
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(downstream: net.Socket): void {
    if (this.current === 'reset') {
      downstream.destroy();
      return;
    }
    const upstream = net.connect(this.upstreamPort, '127.0.0.1');
    const pair: Pair = { downstream, upstream, held: [], closedWhileDown: false };
    this.pairs.add(pair);
    for (const socket of [downstream, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => this.closed(pair));
    }
    downstream.on('data', (chunk: Buffer) => this.carry(pair, downstream, upstream, chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (this.current !== 'slow') {
        this.carry(pair, upstream, downstream, chunk);
        return;
      }
      upstream.pause();
      setTimeout(() => {
        this.carry(pair, upstream, downstream, chunk);
        if (this.current !== 'freeze') upstream.resume();
      }, this.slowChunkDelayMs);
    });
  }

  /** Moves one chunk as the link's mode says. */
  private carry(pair: Pair, from: net.Socket, to: net.Socket, chunk: Buffer): void {
    switch (this.current) {
      case 'blackhole':
        return;
      case 'freeze':
        // Held here; the source is not read any more, so further bytes wait in the kernel
        // and the sender sees a stalled network, not an endless sink.
        pair.held.push({ to, chunk });
        from.pause();
        return;
      case 'reset':
        return;
      case 'up':
      case 'slow':
        if (to.destroyed) return;
        if (!to.write(chunk)) {
          from.pause();
          to.once('drain', () => {
            if (this.current !== 'freeze') from.resume();
          });
        }
        return;
      default: {
        const never: never = this.current;
        throw new Error(`unknown link mode ${never}`);
      }
    }
  }

  /** One side closed: the other follows at once while the link is up, else at the heal. */
  private closed(pair: Pair): void {
    if (this.current === 'blackhole' || this.current === 'freeze') {
      pair.closedWhileDown = true;
      return;
    }
    this.drop(pair);
  }

  private heal(from: 'freeze' | 'blackhole'): void {
    for (const pair of [...this.pairs]) {
      for (const { to, chunk } of pair.held.splice(0)) if (!to.destroyed) to.write(chunk);
      if (pair.closedWhileDown) {
        // A frozen close arrives after the bytes sent before it; a blackholed one was lost,
        // and the survivor's next bytes would meet a reset on a real network.
        for (const socket of [pair.downstream, pair.upstream]) {
          if (socket.destroyed) continue;
          if (from === 'freeze') socket.end();
          else socket.destroy();
        }
        this.pairs.delete(pair);
        continue;
      }
      pair.downstream.resume();
      pair.upstream.resume();
    }
  }

  private drop(pair: Pair): void {
    this.pairs.delete(pair);
    pair.held = [];
    pair.downstream.destroy();
    pair.upstream.destroy();
  }
}

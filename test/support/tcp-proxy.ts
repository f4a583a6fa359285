/**
 * A loopback TCP proxy a test controls, to put a network partition between two nodes: `up`
 * passes bytes both ways; `reset` destroys every connection and refuses new ones; `blackhole`
 * keeps connections open (and accepts new ones) but drops every byte; `freeze` keeps them
 * open and holds every byte, in order, until the link comes back `up`; `slow` delays each
 * chunk from upstream. It binds 127.0.0.1 on a port the system picks and is closed by the test.
 */

import * as net from 'node:net';

export type LinkMode = 'up' | 'reset' | 'blackhole' | 'freeze' | 'slow';

/** How long each chunk from upstream waits in a slow link. */
const SLOW_CHUNK_DELAY_MS = 50;

/** One proxied connection: its two sockets and what a frozen link holds for each. */
interface Pair {
  downstream: net.Socket;
  upstream: net.Socket;
  held: Array<{ to: net.Socket; chunk: Buffer }>;
}

export class TcpProxy {
  private readonly server: net.Server;
  private readonly pairs = new Set<Pair>();
  private current: LinkMode = 'up';
  port = 0;

  constructor(private readonly upstreamPort: number) {
    this.server = net.createServer((downstream) => this.accept(downstream));
  }

  /** Starts listening; resolves with the port to connect to. */
  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  get mode(): LinkMode {
    return this.current;
  }

  /** Switches the link; `up` delivers what a freeze held. */
  set(mode: LinkMode): void {
    this.current = mode;
    if (mode === 'reset') {
      for (const pair of this.pairs) this.drop(pair);
    }
    if (mode === 'up') {
      for (const pair of this.pairs) {
        for (const { to, chunk } of pair.held.splice(0)) if (!to.destroyed) to.write(chunk);
      }
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private drop(pair: Pair): void {
    pair.downstream.destroy();
    pair.upstream.destroy();
    this.pairs.delete(pair);
  }

  private accept(downstream: net.Socket): void {
    if (this.current === 'reset') {
      downstream.destroy();
      return;
    }
    const upstream = net.connect(this.upstreamPort, '127.0.0.1');
    const pair: Pair = { downstream, upstream, held: [] };
    this.pairs.add(pair);
    for (const socket of [downstream, upstream]) {
      socket.on('error', () => {});
      socket.on('close', () => this.drop(pair));
    }
    this.pipe(pair, downstream, upstream, false);
    this.pipe(pair, upstream, downstream, true);
  }

  private pipe(pair: Pair, from: net.Socket, to: net.Socket, fromUpstream: boolean): void {
    from.on('data', (chunk: Buffer) => {
      switch (this.current) {
        case 'blackhole':
        case 'reset':
          return;
        case 'freeze':
          pair.held.push({ to, chunk });
          return;
        case 'slow':
          if (fromUpstream) {
            from.pause();
            setTimeout(() => {
              if (!to.destroyed) to.write(chunk);
              from.resume();
            }, SLOW_CHUNK_DELAY_MS);
            return;
          }
          to.write(chunk);
          return;
        case 'up':
          to.write(chunk);
      }
    });
  }
}

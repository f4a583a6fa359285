/**
 * The torture suite's slow-clients part: a `docdb serve` with short timeouts is held by many
 * idle connections (10,000 in a full run), slow-loris clients that trickle their headers one
 * byte a second (2,000), and readers of an NDJSON stream that stop reading (20). Meanwhile a
 * well-behaved client's requests must all be answered; afterwards every such socket must be
 * closed by the node (its open descriptors back near where they started), and its resident
 * memory at the peak must stay within a bound.
 */

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { freePort, request, startServe } from '../e2e/support.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const SIZES = {
  quick: { idle: 1_000, loris: 200, stalled: 5 },
  full: { idle: 10_000, loris: 2_000, stalled: 20 },
};
/** The node's timeouts in this run (seconds): short, so the run is too. */
const TIMEOUTS = { idle: 4, header: 2, request: 4 };
/** Descriptors the node may hold beyond its start once the clients are gone. */
const FDS_LEFT_MAX = 20;
/** Resident memory the node may add at the peak. */
const RSS_GROWTH_MAX_BYTES = 512 * 1024 * 1024;
/** How long the node has to close everything after the clients stop (ms). */
const CLOSE_WAIT_MS = 30_000;

function openFds(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

function rss(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Opens `count` sockets, `batch` at a time; each stays open until the node closes it. */
async function openMany(port: number, count: number, batch = 250): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i += batch) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, () => connect(port)),
    );
    for (const socket of opened) {
      socket.on('error', () => {});
      socket.resume();
    }
    sockets.push(...opened);
  }
  return sockets;
}

export const slowClients: TorturePart = {
  name: 'slow-clients',
  description:
    'idle sockets, slow-loris headers and stalled stream readers: others are served, all are closed, memory bounded',
  async run(context: PartContext): Promise<CheckResult[]> {
    const sizes = context.quick ? SIZES.quick : SIZES.full;
    const served = new Check('a well-behaved client is answered throughout');
    const closed = new Check('the node closes every slow socket');
    const port = await freePort();
    const node = await startServe(
      [
        '--port',
        String(port),
        '--data-dir',
        path.join(context.dir, 'data'),
        '--idle-timeout-seconds',
        String(TIMEOUTS.idle),
        '--header-timeout-seconds',
        String(TIMEOUTS.header),
        '--request-timeout-seconds',
        String(TIMEOUTS.request),
      ],
      { cwd: context.dir, port },
    );
    const pid = node.child.pid as number;
    const url = `http://127.0.0.1:${port}`;
    try {
      await request(`${url}/seed`, { method: 'POST', body: { orders: 20_000 } });
      const fdsBefore = openFds(pid);
      const rssBefore = rss(pid);
      let peakRss = rssBefore;
      let peakFds = fdsBefore;
      let stop = false;
      // The well-behaved client, all along.
      const wellBehaved = (async () => {
        while (!stop) {
          const health = await request(`${url}/health`).catch((error: Error) => error);
          if (health instanceof Error || health.status !== 200) {
            served.count(
              'refused',
              `GET /health: ${health instanceof Error ? health.message : health.status}`,
            );
          } else served.count('answered');
          const query = await request(`${url}/query`, {
            method: 'POST',
            body: { sql: "SELECT COUNT(*) AS n FROM orders WHERE status = 'confirmed'" },
          }).catch((error: Error) => error);
          if (query instanceof Error || query.status !== 200) {
            served.count(
              'refused',
              `POST /query: ${query instanceof Error ? query.message : query.status}`,
            );
          } else served.count('answered');
          peakRss = Math.max(peakRss, rss(pid));
          peakFds = Math.max(peakFds, openFds(pid));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();

      const idle = await openMany(port, sizes.idle);
      const loris = await openMany(port, sizes.loris);
      const trickle = setInterval(() => {
        for (const socket of loris) if (!socket.destroyed) socket.write('X');
      }, 1_000);
      for (const socket of loris) socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      const body = JSON.stringify({ sql: 'SELECT * FROM orders' });
      const stalled = await Promise.all(
        Array.from({ length: sizes.stalled }, async () => {
          const socket = await connect(port);
          socket.on('error', () => {});
          socket.pause();
          socket.write(
            'POST /query?stream=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
              `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          return socket;
        }),
      );
      context.log(
        `slow clients: ${idle.length} idle, ${loris.length} slow-loris, ${stalled.length} stalled readers open; node holds ${openFds(pid)} descriptors`,
      );

      // The node must close them all: descriptors back near their start.
      const deadline = Date.now() + CLOSE_WAIT_MS;
      while (openFds(pid) > fdsBefore + FDS_LEFT_MAX && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      clearInterval(trickle);
      const fdsAfter = openFds(pid);
      const open = (sockets: net.Socket[]) =>
        sockets.filter((s) => !s.destroyed && !s.closed).length;
      if (fdsAfter <= fdsBefore + FDS_LEFT_MAX) {
        closed.count(`closed (descriptors ${fdsBefore} → ${peakFds} → ${fdsAfter})`);
      } else {
        closed.count(
          'left open',
          `after ${CLOSE_WAIT_MS} ms the node still holds ${fdsAfter} descriptors (${fdsBefore} before); client side open: idle ${open(idle)}, slow-loris ${open(loris)}`,
        );
      }
      const growth = peakRss - rssBefore;
      if (growth <= RSS_GROWTH_MAX_BYTES) {
        closed.count(`memory bounded (+${(growth / 1024 / 1024).toFixed(0)} MiB at the peak)`);
      } else {
        closed.count(
          'memory grew',
          `resident memory grew ${(growth / 1024 / 1024).toFixed(0)} MiB`,
        );
      }
      stop = true;
      await wellBehaved;
      for (const socket of [...idle, ...loris, ...stalled]) socket.destroy();
    } finally {
      node.child.kill('SIGTERM');
      await node.waitForExit();
    }
    return [served.done(), closed.done()];
  },
};

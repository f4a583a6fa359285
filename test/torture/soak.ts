/**
 * The torture suite's soak part: `docdb serve` under mixed load for ten minutes (30 s in a
 * quick run): clients inserting, replacing and reading by `_id`, running indexed and scanning
 * queries, one reading an NDJSON stream of the whole collection over and over, and a
 * checkpoint every so often. Every SOAK_SAMPLE_MS the node's resident memory, open
 * descriptors and the window's p99 latency are sampled. The run fails when a request fails,
 * or when the last third of the samples sits above the first third by more than the bounds:
 * memory or descriptors that only grow, or latency that only gets worse.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { freePort, request, startServe } from '../e2e/support.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const DURATION_MS = { quick: 30_000, full: 600_000 };
const SAMPLE_MS = { quick: 3_000, full: 10_000 };
const CLIENTS = 4;
/** The last third's median may exceed the first third's by this much. */
const RSS_GROWTH_MAX_BYTES = 96 * 1024 * 1024;
const FDS_GROWTH_MAX = 16;
/** p99 of the last third over the first third (beyond noise on a shared machine). */
const P99_GROWTH_MAX_RATIO = 3;
/** A checkpoint after every this many ms. */
const CHECKPOINT_EVERY_MS = 5_000;

interface Sample {
  rss: number;
  fds: number;
  p99: number;
  requests: number;
}

function procStat(pid: number): { rss: number; fds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  return { rss, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export const soak: TorturePart = {
  name: 'soak',
  description:
    'ten minutes of mixed load: no failed request; memory, descriptors and p99 latency do not trend up',
  async run(context: PartContext): Promise<CheckResult[]> {
    const requests = new Check('mixed requests');
    const trends = new Check('memory, descriptors and p99 stay level');
    const port = await freePort();
    const node = await startServe(
      ['--port', String(port), '--data-dir', path.join(context.dir, 'data')],
      {
        cwd: context.dir,
        port,
      },
    );
    const pid = node.child.pid as number;
    const url = `http://127.0.0.1:${port}`;
    const duration = context.quick ? DURATION_MS.quick : DURATION_MS.full;
    const sampleMs = context.quick ? SAMPLE_MS.quick : SAMPLE_MS.full;
    let latencies: number[] = [];
    let stop = false;
    const timed = async (what: string, call: () => Promise<{ status: number }>, ok = 200) => {
      const started = performance.now();
      const answer = await call().catch((error: Error) => ({ status: 0, error }));
      latencies.push(performance.now() - started);
      if (answer.status === ok) requests.count('answered');
      else
        requests.count(
          'failed',
          `${what}: ${'error' in answer ? answer.error.message : answer.status}`,
        );
      return answer;
    };
    try {
      await request(`${url}/seed`, { method: 'POST', body: { orders: 5_000 } });
      const ids: string[] = [];
      const client = async (c: number) => {
        for (let n = 0; !stop; n++) {
          const inserted = await timed(
            'insert',
            () =>
              request(`${url}/collections/soak`, {
                method: 'POST',
                body: { c, n, at: Date.now() },
              }),
            201,
          );
          const id = (inserted as { json?: { id?: string } }).json?.id;
          if (id) ids.push(id);
          const some = ids[(n * 7919) % ids.length];
          if (some) {
            await timed('replace', () =>
              request(`${url}/collections/soak/${some}`, {
                method: 'PUT',
                body: { c, n, replaced: true },
              }),
            );
            await timed('get', () => request(`${url}/collections/soak/${some}`));
          }
          await timed('indexed query', () =>
            request(`${url}/query`, {
              method: 'POST',
              body: { sql: "SELECT pnr, status FROM orders WHERE status = 'confirmed' LIMIT 50" },
            }),
          );
          if (n % 10 === 0) {
            await timed('scan aggregate', () =>
              request(`${url}/query`, {
                method: 'POST',
                body: { sql: 'SELECT status, COUNT(*) AS n FROM orders GROUP BY status' },
              }),
            );
          }
          // Keep the soak collection from growing without end: delete as much as is added.
          if (ids.length > 2_000) {
            const old = ids.shift() as string;
            await timed('delete', () =>
              request(`${url}/collections/soak/${old}`, { method: 'DELETE' }),
            );
          }
        }
      };
      const streamer = async () => {
        while (!stop) {
          await timed('stream', () =>
            request(`${url}/query?stream=true`, {
              method: 'POST',
              body: { sql: 'SELECT * FROM orders' },
            }),
          );
        }
      };
      const checkpointer = async () => {
        while (!stop) {
          await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS));
          if (!stop)
            await timed('checkpoint', () => request(`${url}/admin/checkpoint`, { method: 'POST' }));
        }
      };
      const workers = [
        ...Array.from({ length: CLIENTS }, (_, c) => client(c)),
        streamer(),
        checkpointer(),
      ];
      const samples: Sample[] = [];
      const started = Date.now();
      while (Date.now() - started < duration) {
        await new Promise((resolve) => setTimeout(resolve, sampleMs));
        const window = latencies;
        latencies = [];
        const sorted = window.sort((a, b) => a - b);
        samples.push({
          ...procStat(pid),
          p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
          requests: window.length,
        });
        const last = samples.at(-1) as Sample;
        context.log(
          `soak: ${((Date.now() - started) / 1000).toFixed(0)} s, rss ${(last.rss / 1024 / 1024).toFixed(0)} MiB, ${last.fds} fds, p99 ${last.p99.toFixed(1)} ms over ${last.requests} requests`,
        );
      }
      stop = true;
      await Promise.all(workers);
      judge(samples, trends);
    } finally {
      node.child.kill('SIGTERM');
      await node.waitForExit();
    }
    return [requests.done(), trends.done()];
  },
};

function judge(samples: Sample[], check: Check): void {
  const third = Math.max(1, Math.floor(samples.length / 3));
  const first = samples.slice(0, third);
  const last = samples.slice(-third);
  const of = (list: Sample[], key: 'rss' | 'fds' | 'p99') => median(list.map((s) => s[key]));
  const rss = of(last, 'rss') - of(first, 'rss');
  const fds = of(last, 'fds') - of(first, 'fds');
  const p99 = of(first, 'p99') > 0 ? of(last, 'p99') / of(first, 'p99') : 1;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
  if (rss <= RSS_GROWTH_MAX_BYTES) check.count(`memory level (${rss >= 0 ? '+' : ''}${mib(rss)})`);
  else
    check.count(
      'memory grew',
      `resident memory grew ${mib(rss)} from the first third to the last (bound ${mib(RSS_GROWTH_MAX_BYTES)})`,
    );
  if (fds <= FDS_GROWTH_MAX) check.count(`descriptors level (${fds >= 0 ? '+' : ''}${fds})`);
  else check.count('descriptors grew', `open descriptors grew by ${fds} (bound ${FDS_GROWTH_MAX})`);
  if (p99 <= P99_GROWTH_MAX_RATIO) check.count(`p99 level (×${p99.toFixed(2)})`);
  else
    check.count('p99 grew', `p99 latency grew ×${p99.toFixed(2)} (bound ×${P99_GROWTH_MAX_RATIO})`);
}

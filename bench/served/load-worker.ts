/**
 * The load generator of the served phase, in its own process so it never shares an event
 * loop with a server under test: one workload against one URL, its summary printed as one
 * JSON line. Request bodies are made before the clock starts. The small fixed-size reads
 * (WRK_KINDS) are driven by wrk (wrk.ts) when it is on PATH, since autocannon needs about a
 * core of its own to drive them (issue 25); every other kind, and every kind without wrk, by
 * autocannon, of which this is the only importer. An autocannon run prints
 * `{"answering":true}` at its first 2xx answer, and on SIGTERM it stops early and prints its
 * summary, so the harness can run a load beside another (the writers, an autocannon kind).
 *
 * Usage: load-worker.ts '<LoadSpec as JSON>'
 */

import autocannon from 'autocannon';
import { DOCDB_SQL } from '../embedded/system.js';
import { idAt, keyPicker, orderAt, ordersFrom, pnrAt, STATUSES } from '../data.js';
import { percentile } from '../measure.js';
import { runWrk, type WrkRequest, wrkVersion } from './wrk.js';

/** Insert bodies the write kind prepares before the clock starts (more are made as needed). */
const PREPARED_INSERTS = 40_000;
/**
 * The kinds wrk drives when it is on PATH: small requests of a fixed size, whose rate on a
 * few cores is capped by a generator that needs a core of its own (issue 25). wrk runs for a
 * duration only, so a load of these kinds that counts its requests (`amount`) is autocannon's.
 */
const WRK_KINDS: readonly LoadSpec['kind'][] = ['get', 'query', 'query-prepared'];
/**
 * Requests a wrk run's table holds per second of its duration, in the seed's order: more
 * than a point row answers here (about 60,000 a second at most), so a run does not come
 * back to its first key and reads no smaller set of documents than autocannon's draws.
 */
const WRK_REQUESTS_PER_SECOND = 100_000;

/** What to load and how hard. */
export interface LoadSpec {
  url: string;
  kind: 'get' | 'query' | 'query-prepared' | 'bulk' | 'stream' | 'write' | 'group-by';
  connections: number;
  /** Run for this long… */
  durationSeconds?: number;
  /** …or send exactly this many requests. */
  amount?: number;
  /** Keys are drawn from documents [0, keyBound). */
  keyBound: number;
  seed: number;
  /** Bulk: the first document number and the batch size. */
  bulkStart?: number;
  batchSize?: number;
  /** Write: the number of the first new document; inserts and updates alternate. */
  insertStart?: number;
  timeoutSeconds: number;
}

/** What the worker prints. */
export interface LoadOutcome {
  requests: number;
  elapsedMs: number;
  /** The percentiles in whole milliseconds: autocannon's from its histogram, wrk's floored. */
  p50Ms: number;
  p99Ms: number;
  /**
   * The same percentiles not rounded: a ratio of two p99s of a few milliseconds needs more
   * than whole milliseconds. autocannon's are of every 2xx answer's own time (hrtime); wrk's
   * of every answer's, to the microsecond.
   */
  p50MsExact: number;
  p99MsExact: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

type Request = { method?: string; path?: string; body?: string | Buffer; headers?: object };

/**
 * The handle of the point lookup, as a client gets it: `POST /query/prepare` once, before the
 * clock starts (docdb's client does the same by itself on a statement's second use).
 */
async function preparePoint(url: string): Promise<string> {
  const answer = await fetch(`${url}/query/prepare`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sql: DOCDB_SQL.point }),
  });
  const body = (await answer.json()) as { handle?: string };
  if (!answer.ok || typeof body.handle !== 'string') {
    throw new Error(`POST /query/prepare answered ${answer.status}: ${JSON.stringify(body)}`);
  }
  return body.handle;
}

function requestMaker(spec: LoadSpec, handle: string): (req: Request) => Request {
  const pick = keyPicker(spec.keyBound, spec.seed);
  switch (spec.kind) {
    case 'get':
      return (req) => ({ ...req, method: 'GET', path: `/collections/orders/${idAt(pick())}` });
    case 'query':
      return (req) => ({
        ...req,
        method: 'POST',
        path: '/query',
        body: JSON.stringify({ sql: DOCDB_SQL.point, params: [pnrAt(pick())] }),
      });
    case 'query-prepared':
      return (req) => ({
        ...req,
        method: 'POST',
        path: '/query',
        body: JSON.stringify({ handle, params: [pnrAt(pick())] }),
      });
    case 'stream': {
      const body = JSON.stringify({ sql: DOCDB_SQL.streamAll });
      return (req) => ({ ...req, method: 'POST', path: '/query?stream=true', body });
    }
    case 'group-by': {
      const body = JSON.stringify({ sql: DOCDB_SQL.groupBy });
      return (req) => ({ ...req, method: 'POST', path: '/query', body });
    }
    case 'write':
      return writeMaker(spec, pick);
    case 'bulk': {
      const size = spec.batchSize ?? 1000;
      const bodies = Array.from({ length: spec.amount ?? 0 }, (_, b) =>
        JSON.stringify(ordersFrom((spec.bulkStart ?? 0) + b * size, size)),
      );
      let next = 0;
      return (req) => ({
        ...req,
        method: 'POST',
        path: '/collections/orders/bulk',
        body: bodies[next++ % bodies.length],
      });
    }
  }
}

/**
 * Single-document writes, inserts and updates in turn: `POST /collections/orders` of a new
 * order, then `POST /query` with the UPDATE of a random existing order's status.
 */
function writeMaker(spec: LoadSpec, pick: () => number): (req: Request) => Request {
  const start = spec.insertStart ?? 0;
  const insertBody = (k: number) => JSON.stringify(orderAt(start + k));
  const prepared = Array.from({ length: PREPARED_INSERTS }, (_, k) => insertBody(k));
  let n = 0;
  let inserts = 0;
  return (req) => {
    const k = n++;
    if (k % 2 === 0) {
      const i = inserts++;
      const body = prepared[i] ?? insertBody(i);
      return { ...req, method: 'POST', path: '/collections/orders', body };
    }
    const status = STATUSES[(k >> 1) % STATUSES.length];
    const body = JSON.stringify({ sql: DOCDB_SQL.update, params: [status, pnrAt(pick())] });
    return { ...req, method: 'POST', path: '/query', body };
  };
}

/** The requests autocannon would send over the run's duration, and more, for wrk to send. */
function requestTable(spec: LoadSpec, handle: string): WrkRequest[] {
  const make = requestMaker(spec, handle);
  const length = Math.ceil(spec.durationSeconds ?? 1) * WRK_REQUESTS_PER_SECOND;
  return Array.from({ length }, () => {
    const { method = 'GET', path = '/', body } = make({});
    return { method, path, ...(typeof body === 'string' && { body }) };
  });
}

async function runAutocannon(spec: LoadSpec, handle: string): Promise<LoadOutcome> {
  const setupRequest = requestMaker(spec, handle);
  const started = performance.now();
  let lastResponse = started;
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        pipelining: 1,
        timeout: spec.timeoutSeconds,
        headers: { 'content-type': 'application/json' },
        ...(spec.amount === undefined
          ? { duration: spec.durationSeconds ?? 1 }
          : { amount: spec.amount }),
        requests: [{ setupRequest: setupRequest as never }],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    // autocannon ends a run on its one-second tick; the clock stops at the last answer.
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      lastResponse = performance.now();
      if (statusCode < 200 || statusCode >= 300) return;
      if (latencies.length === 0) process.stdout.write(`${JSON.stringify({ answering: true })}\n`);
      latencies.push(responseTimeMs);
    });
    process.once('SIGTERM', () => instance.stop());
  });
  latencies.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    elapsedMs: lastResponse - started,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    p50MsExact: percentile(latencies, 50),
    p99MsExact: percentile(latencies, 99),
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as LoadSpec;
  const handle = spec.kind === 'query-prepared' ? await preparePoint(spec.url) : '';
  const byWrk =
    WRK_KINDS.includes(spec.kind) && spec.amount === undefined && wrkVersion() !== undefined;
  const outcome = byWrk
    ? await runWrk(
        {
          url: spec.url,
          connections: spec.connections,
          durationSeconds: spec.durationSeconds ?? 1,
          timeoutSeconds: spec.timeoutSeconds,
        },
        requestTable(spec, handle),
      )
    : await runAutocannon(spec, handle);
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

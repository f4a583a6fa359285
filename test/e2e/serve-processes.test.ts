/**
 * Proves `bin/docdb serve --serve-processes 2` (issue 25) as real processes: a reader process
 * runs beside the first; a write acknowledged through one connection is read back at once
 * through many new connections, whichever process takes them, and every answer is the same
 * from any process; `POST /query` answers the same from every process (timing aside):
 * point SELECTs by text, by a prepared handle and streamed, which readers answer, and a scan,
 * an aggregate, an UPDATE and errors, which they pass, with metrics and plans counted once;
 * a write through one connection is in the next point /query on 40 new ones; a file grown
 * by 24 MiB, a scan after a matching write, a new index and a dropped collection read alike
 * from every process; the first process deals connections in turn, and on the two of four
 * kept-alive connections dealt to the reader, the reader answers reads, index-read /query
 * SELECTs and a handle prepared through it on its own (while the first process is stopped
 * with SIGSTOP); a connection whose first request is a write stays with the first process
 * while reads are dealt in turn, their first request (read by the first process to choose)
 * answered whole, and a /query body that comes after the connection was dealt answered
 * too; writes through the reader's connections land and answer as the first process answers them; `/metrics` counts the
 * reader's requests; a reader killed with SIGKILL is logged and replaced while the node
 * serves on; TLS and an API key hold on every connection; SIGTERM stops every process and
 * frees the port; a first process killed with SIGKILL takes its readers with it; a reader
 * told to stop closes its idle connections at once and a busy one after an answer saying
 * `Connection: close`; and a
 * follower's readers serve what it applied (a snapshot load included) and refuse writes as
 * the follower does.
 */

import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { open } from '../../src/engine/index.js';
import type { FromReader, ToReader } from '../../src/server/reader.js';
import { READER_PROCESS_ENV } from '../../src/server/settings.js';
import { isProcessAlive } from '../../src/util/process-alive.js';
import { makeTempDir } from '../support/temp-dir.js';
import { selfSignedCert } from '../support/tls-cert.js';
import {
  caughtUp,
  expectStatus,
  followerFlags,
  insert,
  leaderFlags,
  Nodes,
  post,
  status,
} from './replication-support.js';
import {
  BIN,
  cleanEnv,
  freePort,
  type RequestOptions,
  request,
  START_TIMEOUT_MS,
  startServe,
  stopAll,
  waitFor,
} from './support.js';

afterEach(stopAll);

/** The pids of a process's children (Linux /proc). */
function childrenOf(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split(/\s+/)
    .filter((text) => text !== '')
    .map(Number);
}

async function readerOf(pid: number): Promise<number> {
  return waitFor(
    () => childrenOf(pid)[0],
    START_TIMEOUT_MS,
    () => `no reader process under ${pid}`,
  );
}

/** A node on a free port serving from two processes, once its reader runs. */
async function startTwo(dir: string) {
  const port = await freePort();
  const node = await startServe(
    ['--port', String(port), '--data-dir', path.join(dir, 'data'), '--serve-processes', '2'],
    { cwd: dir, port },
  );
  await readerOf(node.child.pid as number);
  return node;
}

function json(response: { status: number; text: string }, status: number): Record<string, unknown> {
  expect(response.status, response.text).toBe(status);
  return JSON.parse(response.text) as Record<string, unknown>;
}

const READS = 40;

/** Reads `path` through READS new connections at once; every answer's status and body. */
/**
 * A request on one kept-alive connection (an agent of one socket): GET, or POST of `body`.
 * Fails after 3 s without an answer (its process is stopped).
 */
function keptAlive(
  agent: http.Agent,
  url: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        agent,
        method: payload === undefined ? 'GET' : 'POST',
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
        timeout: 3_000,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.once('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    req.once('timeout', () => req.destroy(new Error('no answer in 3 s')));
    req.once('error', reject);
    req.end(payload);
  });
}

async function readMany(url: string, options: RequestOptions = {}) {
  return Promise.all(Array.from({ length: READS }, () => request(url, options)));
}

/** A change feed read as it comes: its text so far, and whether its answer ended. */
function openFeed(url: string): Promise<{ text(): string; ended: Promise<boolean> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      const ended = new Promise<boolean>((done) => {
        response.once('end', () => done(true));
        response.once('error', () => done(false));
        response.once('close', () => done(response.complete));
      });
      resolve({ text: () => text, ended });
    });
    req.once('error', reject);
  });
}

/** POSTs `text` as it is (a JSON body not made by JSON.stringify) on a new connection. */
function postRaw(
  url: string,
  text: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(text);
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A /query answer with its timing left out (the executionMs of its body, NDJSON meta line
 * and header, and so its length), and the headers every answer has its own of.
 */
function untimed(answer: { status: number; headers: http.IncomingHttpHeaders; text: string }) {
  const {
    date: _,
    'x-request-id': __,
    'x-docdb-executionms': timing,
    'content-length': ___,
    ...headers
  } = answer.headers;
  const lines = answer.text.split('\n').map((line) => {
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (typeof value === 'object' && value !== null && 'executionMs' in value) {
        const { executionMs: _ms, ...rest } = value;
        return JSON.stringify(rest);
      }
    } catch {
      // Not JSON: kept as it is.
    }
    return line;
  });
  return { status: answer.status, timed: timing !== undefined, headers, text: lines.join('\n') };
}

function metricValue(text: string, prefix: string): number {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

describe('docdb serve --serve-processes 2', () => {
  it('reads back every acknowledged write through every process, and sums /metrics', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const port = await freePort();
      const node = await startServe(
        ['--port', String(port), '--data-dir', path.join(dir, 'data'), '--serve-processes', '2'],
        { cwd: dir, port },
      );
      expect(node.startLine).toContain('processes=2 (flag)');
      const pid = node.child.pid as number;
      await readerOf(pid);
      for (let round = 0; round < 5; round++) {
        const written = json(
          await request(`${node.url}/collections/items`, { body: { round } }),
          201,
        );
        const reads = await readMany(`${node.url}/collections/items/${written.id}`);
        for (const read of reads) expect(json(read, 200)).toMatchObject({ round });
        const page = await readMany(`${node.url}/collections/items?limit=100`);
        for (const read of page) expect(json(read, 200).count).toBe(round + 1);
      }
      // A replace, then its new body through every process.
      const [first] = (json(await request(`${node.url}/collections/items`), 200).documents ??
        []) as Array<{ _id: string }>;
      const id = first?._id as string;
      json(
        await request(`${node.url}/collections/items/${id}`, { method: 'PUT', body: { v: 2 } }),
        200,
      );
      for (const read of await readMany(`${node.url}/collections/items/${id}`)) {
        expect(json(read, 200)).toMatchObject({ v: 2 });
      }
      // Every answer is the same from any process: status, headers (but the date and the
      // request id), body.
      for (const route of [
        `/collections/items/${id}`,
        '/collections/items?limit=2',
        '/collections/items/by/v/2',
        '/collections',
        '/collections/nope/x',
        '/collections/items?limit=0',
        '/collections/items?unknown=1',
        '/collections/items/by/v',
        '/health?x=1',
        '/nowhere',
      ]) {
        const answers = (await readMany(`${node.url}${route}`)).map((answer) => {
          const { date: _, 'x-request-id': __, ...headers } = answer.headers;
          return { status: answer.status, headers, text: answer.text };
        });
        for (const answer of answers) expect(answer, route).toEqual(answers[0]);
      }
      for (const read of await readMany(`${node.url}/collections/nope/x`)) {
        expect(json(read, 404)).toMatchObject({ code: 'ERR_COLLECTION_NOT_FOUND' });
      }
      const metrics = await request(`${node.url}/metrics`);
      const byId = 'docdb_http_requests_total{method="GET",route="/collections/:name/:id",status=';
      expect(metricValue(metrics.text, `${byId}"200"}`)).toBe(7 * READS);
      expect(metricValue(metrics.text, `${byId}"404"}`)).toBe(2 * READS);
      const inserts = 'docdb_http_requests_total{method="POST",route="/collections/:name"';
      expect(metricValue(metrics.text, inserts)).toBe(5);
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('answers /query from every process as the first process does', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const node = await startTwo(dir);
      const docs = Array.from({ length: 50 }, (_, i) => ({ pnr: `P${i}`, n: i, k: i % 5 }));
      json(await request(`${node.url}/collections/orders/bulk`, { body: docs }), 200);
      json(
        await request(`${node.url}/index`, {
          body: { collection: 'orders', path: 'pnr', name: 'by_pnr' },
        }),
        201,
      );
      const point = 'SELECT * FROM orders WHERE pnr = ?';
      let points = 0;
      // A write acknowledged through one connection is in the next point /query on every
      // new connection, whichever process takes it.
      for (let round = 1; round <= 3; round++) {
        const insert = `INSERT INTO orders VALUES {"pnr": "NEW", "round": ${round}}`;
        json(await request(`${node.url}/query`, { body: { sql: insert } }), 200);
        const reads = await readMany(`${node.url}/query`, {
          body: { sql: point, params: ['NEW'] },
        });
        points += READS;
        for (const read of reads) {
          const answer = json(read, 200);
          expect(answer.count).toBe(round);
          expect(answer.plan).toBe('INDEX_SCAN(by_pnr)');
          expect(read.headers['x-docdb-plan']).toBe('INDEX_SCAN(by_pnr)');
        }
      }
      const { handle } = json(
        await request(`${node.url}/query/prepare`, { body: { sql: point } }),
        200,
      ) as { handle: string };
      // Every answer is the same from any process (timing aside): index reads the readers
      // answer, in JSON and NDJSON, by text and by a handle prepared through one connection;
      // and what they pass: a scan, an aggregate over a scan, an UPDATE, errors.
      const bodies = [
        { text: JSON.stringify({ sql: point, params: ['P7'] }), point: true },
        {
          text: '{ "sql" : "SELECT * FROM orders WHERE pnr = ?", "params": ["P\\u0038"] }',
          point: true,
        },
        { text: JSON.stringify({ handle, params: ['P9'] }), point: true },
        { text: JSON.stringify({ sql: point, params: ['P3'] }), point: true, stream: true },
        { text: JSON.stringify({ sql: 'SELECT * FROM orders WHERE n > 45' }) },
        { text: JSON.stringify({ sql: 'SELECT COUNT(*) FROM orders' }) },
        {
          text: JSON.stringify({
            sql: 'UPDATE orders SET seen = true WHERE pnr = ?',
            params: ['P1'],
          }),
        },
        { text: JSON.stringify({ sql: 'SELEC * FROM orders' }) },
        { text: JSON.stringify({ sql: point }) },
        { text: JSON.stringify({ sql: 'SELECT * FROM nowhere WHERE pnr = 1' }) },
        { text: JSON.stringify({ sql: point, params: ['P1'], extra: 1 }) },
        { text: JSON.stringify({ handle: 'unknown', params: ['P1'] }) },
        { text: '{"sql": "SELECT * FROM orders WHERE pnr = ?", "params": [' },
        {
          text: JSON.stringify({ sql: point, params: [-0], shard: { kind: 'rows', top: 1 } }),
          point: true,
        },
      ];
      for (const { text, point: isPoint, stream } of bodies) {
        const url = `${node.url}/query${stream ? '?stream=true' : ''}`;
        const answers = await Promise.all(
          Array.from({ length: READS }, () => postRaw(url, text).then(untimed)),
        );
        if (isPoint) points += READS;
        expect(answers[0]?.timed, text).toBe(true);
        for (const answer of answers) expect(answer, text).toEqual(answers[0]);
      }
      const metrics = await request(`${node.url}/metrics`);
      const queries = 'docdb_http_requests_total{method="POST",route="/query",status=';
      // Each request counted once, by the process that answered it: the three INSERTs, the
      // point reads, and the scan's, the aggregate's and the UPDATE's answers (the UPDATE's
      // plan is an INDEX_SCAN too).
      expect(metricValue(metrics.text, `${queries}"200"}`)).toBe(3 + points + 3 * READS);
      expect(metricValue(metrics.text, 'docdb_query_plans_total{plan="INDEX_SCAN"}')).toBe(
        points + READS,
      );
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('reads what grew the file and what changed the catalog from every process', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const node = await startTwo(dir);
      for (const read of await readMany(`${node.url}/collections/big`)) json(read, 404);
      // 24 MiB of documents: LMDB's map grows many times under the reader's open view.
      const filler = 'f'.repeat(8 * 1024);
      for (let batch = 0; batch < 6; batch++) {
        const docs = Array.from({ length: 512 }, (_, i) => ({
          n: batch * 512 + i,
          k: i % 7,
          filler,
        }));
        json(await request(`${node.url}/collections/big/bulk`, { body: docs }), 200);
      }
      const last = json(
        await request(`${node.url}/collections/big`, { body: { n: -1, k: 99 } }),
        201,
      );
      for (const read of await readMany(`${node.url}/collections/big/${last.id}`)) {
        expect(json(read, 200)).toMatchObject({ n: -1, k: 99 });
      }
      // A by-key read without an index scans (a reader keeps no selections of scans): a
      // write that matches is in the next scan of every process.
      for (let round = 1; round <= 2; round++) {
        for (const read of await readMany(`${node.url}/collections/big/by/k/99`)) {
          expect(json(read, 200).count).toBe(round);
        }
        json(await request(`${node.url}/collections/big`, { body: { n: -2, k: 99 } }), 201);
      }
      // A new index: every process plans the by-key read with it at once.
      json(
        await request(`${node.url}/index`, {
          body: { collection: 'big', path: 'k', name: 'by_k' },
        }),
        201,
      );
      for (const read of await readMany(`${node.url}/collections/big/by/k/99`)) {
        const answer = json(read, 200);
        expect(answer.count).toBe(3);
        expect(answer.plan).toContain('by_k');
      }
      // A dropped collection is gone from every process.
      json(
        await request(`${node.url}/collections/big`, {
          method: 'DELETE',
          headers: { 'x-confirm': 'true' },
        }),
        200,
      );
      for (const read of await readMany(`${node.url}/collections/big/${last.id}`)) json(read, 404);
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('answers on the connections dealt to its reader while the first process is stopped', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    const port = await freePort();
    const node = await startServe(
      ['--port', String(port), '--data-dir', path.join(dir, 'data'), '--serve-processes', '2'],
      { cwd: dir, port },
    );
    const pid = node.child.pid as number;
    // Four kept-alive connections, opened one after the other: the first process deals them
    // in turn, two to itself and two to its reader.
    const connections = Array.from(
      { length: 4 },
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    try {
      await readerOf(pid);
      const written = json(await request(`${node.url}/collections/c`, { body: { a: 1 } }), 201);
      json(
        await request(`${node.url}/index`, { body: { collection: 'c', path: 'a', name: 'c_a' } }),
        201,
      );
      const sql = 'SELECT * FROM c WHERE a = ?';
      // Each connection prepares the statement: through a reader, the reader holds it too.
      let handle = '';
      for (const agent of connections) {
        const prepared = await keptAlive(agent, `${node.url}/query/prepare`, { sql });
        expect(prepared.status).toBe(200);
        handle = (JSON.parse(prepared.text) as { handle: string }).handle;
      }
      process.kill(pid, 'SIGSTOP');
      const asks = [
        (agent: http.Agent) => keptAlive(agent, `${node.url}/collections/c/${written.id}`),
        (agent: http.Agent) => keptAlive(agent, `${node.url}/query`, { sql, params: [1] }),
        (agent: http.Agent) => keptAlive(agent, `${node.url}/query`, { handle, params: [1] }),
        // A whole collection's stream keeps no selection: the reader streams it itself.
        (agent: http.Agent) =>
          keptAlive(agent, `${node.url}/query?stream=true`, { sql: 'SELECT * FROM c' }),
      ];
      // A connection the stopped process holds answers nothing: its first ask times out,
      // and the rest are not sent (each would wait out its own 3 s on a new connection).
      const answered = await Promise.all(
        connections.map(async (agent) => {
          const answers = [];
          for (const ask of asks) {
            const answer = await ask(agent).catch(() => undefined);
            if (!answer) return undefined;
            answers.push(answer);
          }
          return answers;
        }),
      );
      const served = answered.filter((answers) => answers !== undefined);
      expect(served).toHaveLength(2);
      for (const [byId, byText, byHandle, stream] of served) {
        expect(stream?.status).toBe(200);
        const [meta, row] = (stream?.text ?? '').trim().split('\n');
        expect(JSON.parse(meta ?? '')).toMatchObject({ plan: 'COLLECTION_SCAN', count: 1 });
        expect(JSON.parse(row ?? '')).toEqual({ _id: written.id, a: 1 });
        expect(byId?.status).toBe(200);
        expect(JSON.parse(byId?.text ?? '')).toMatchObject({ a: 1 });
        for (const answer of [byText, byHandle]) {
          expect(answer?.status).toBe(200);
          expect(JSON.parse(answer?.text ?? '')).toMatchObject({
            plan: 'INDEX_SCAN(c_a)',
            count: 1,
          });
        }
      }
    } finally {
      process.kill(pid, 'SIGCONT');
      for (const agent of connections) agent.destroy();
      await stopAll();
      cleanup();
    }
  });

  it('keeps the connections whose first request is a write, and deals the reads in turn', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    const node = await startTwo(dir);
    const pid = node.child.pid as number;
    // Kept-alive connections, opened one after the other: four whose first request is a
    // write (a reader would only relay it), four whose first is a read a reader serves.
    const writers = Array.from(
      { length: 4 },
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    const readers = Array.from(
      { length: 4 },
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    try {
      const written = json(await request(`${node.url}/collections/c`, { body: { a: 1 } }), 201);
      const docUrl = `${node.url}/collections/c/${written.id}`;
      for (const agent of writers) {
        json(await keptAlive(agent, `${node.url}/collections/c`, { a: 2 }), 201);
      }
      // The first request of a connection dealt to the reader reached its server whole:
      // every first answer is the same, and the first process's own.
      const firsts = [];
      for (const agent of readers) firsts.push(await keptAlive(agent, docUrl));
      for (const first of firsts) expect(first).toEqual(firsts[0]);
      expect(JSON.parse(firsts[0]?.text ?? '')).toMatchObject({ a: 1 });
      // With the first process stopped, only a connection on the reader answers a read.
      process.kill(pid, 'SIGSTOP');
      const answered = async (agents: http.Agent[]) => {
        const answers = await Promise.all(
          agents.map((agent) => keptAlive(agent, docUrl).catch(() => undefined)),
        );
        return answers.filter((answer) => answer?.status === 200).length;
      };
      const [onWriters, onReaders] = await Promise.all([answered(writers), answered(readers)]);
      expect(onWriters).toBe(0);
      expect(onReaders).toBe(2);
    } finally {
      process.kill(pid, 'SIGCONT');
      for (const agent of [...writers, ...readers]) agent.destroy();
      await stopAll();
      cleanup();
    }
  });

  it("answers a connection's pipelined requests in order: a GET after a POST sees its write", async () => {
    // RFC 9112: pipelined requests run in parallel only when all are safe. A reader answered
    // the GET while the first process still ran the POST it had passed on: 404 after 201.
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    const node = await startTwo(dir);
    const port = Number(new URL(node.url).port);
    /** On one connection: a read first (so a reader may be dealt it), then POST + GET at once. */
    const pipelined = (k: number) =>
      new Promise<string>((resolve, reject) => {
        const id = `0193a4f2-7c1e-7d3a-9b2e-${String(k).padStart(12, '0')}`;
        const body = JSON.stringify({ _id: id, k });
        const socket = net.connect({ port, host: '127.0.0.1' });
        let text = '';
        let sent = false;
        socket.setEncoding('utf8');
        socket.on('error', reject);
        socket.on('data', (chunk: string) => {
          text += chunk;
          if (!sent && text.includes('"status"')) {
            sent = true;
            text = '';
            socket.write(
              `POST /collections/c HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
                `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
                `GET /collections/c/${id} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
            );
          }
        });
        socket.on('end', () => resolve(text));
        socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      });
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, k) => pipelined(k)));
      for (const [k, text] of answers.entries()) {
        const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
        expect(statuses, text).toEqual(['201', '200']);
        expect(text).toContain(`"k":${k}`);
      }
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('answers a /query whose body comes after the connection was dealt, on every process', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    const node = await startTwo(dir);
    try {
      json(await request(`${node.url}/collections/c`, { body: { a: 1 } }), 201);
      const port = Number(new URL(node.url).port);
      const body = JSON.stringify({ sql: 'SELECT a FROM c WHERE a = ?', params: [1] });
      const head = `POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      // Four connections one after the other (two dealt to the reader): the request line and
      // half the body first, the rest once the connection has been dealt.
      for (let k = 0; k < 4; k++) {
        const connection = await rawConnection(port);
        connection.socket.write(`${head}${body.slice(0, 10)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const answer = await connection.ask(body.slice(10));
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer).toContain('"a":1');
      }
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('replaces a reader killed with SIGKILL, logs it, and serves on', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const port = await freePort();
      const node = await startServe(
        ['--port', String(port), '--data-dir', path.join(dir, 'data'), '--serve-processes', '2'],
        { cwd: dir, port },
      );
      const pid = node.child.pid as number;
      const reader = await readerOf(pid);
      process.kill(reader, 'SIGKILL');
      const written = json(await request(`${node.url}/collections/c`, { body: { a: 1 } }), 201);
      await waitFor(
        () =>
          node.stdout().includes(`reader process ${reader} exited on SIGKILL`) ? true : undefined,
        START_TIMEOUT_MS,
        () => `no log of the reader's death:\n${node.stdout()}`,
      );
      const replacement = await waitFor(
        () => childrenOf(pid).find((child) => child !== reader),
        START_TIMEOUT_MS,
        () => `no new reader:\n${node.stdout()}`,
      );
      await waitFor(
        () => (node.stdout().includes(`reader process ${replacement} serves`) ? true : undefined),
        START_TIMEOUT_MS,
        () => `the new reader did not serve:\n${node.stdout()}`,
      );
      for (const read of await readMany(`${node.url}/collections/c/${written.id}`)) {
        expect(json(read, 200)).toMatchObject({ a: 1 });
      }
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('stops every process on SIGTERM, and its readers with a first process killed', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const args = (port: number) => [
        '--port',
        String(port),
        '--data-dir',
        path.join(dir, 'data'),
        '--serve-processes',
        '2',
      ];
      const port = await freePort();
      const node = await startServe(args(port), { cwd: dir, port });
      const reader = await readerOf(node.child.pid as number);
      node.child.kill('SIGTERM');
      expect(await node.waitForExit()).toEqual({ code: 0, signal: null });
      expect(isProcessAlive(reader)).toBe(false);
      // The port is free again: a node starts on it at once.
      const again = await startServe(args(port), { cwd: dir, port });
      const second = await readerOf(again.child.pid as number);
      again.child.kill('SIGKILL');
      await again.waitForExit();
      await waitFor(
        () => (isProcessAlive(second) ? undefined : true),
        START_TIMEOUT_MS,
        () => `reader ${second} outlived its first process`,
      );
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('ends change feeds passed through a reader when it stops, and stops at once', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const node = await startTwo(dir);
      json(await request(`${node.url}/collections/c`, { body: { a: 1 } }), 201);
      // Feeds on connections of their own: the kernel hands some to the reader.
      const feeds = await Promise.all(
        Array.from({ length: 8 }, () => openFeed(`${node.url}/changes?since=0`)),
      );
      for (const feed of feeds)
        await waitFor(
          () => (feed.text().includes('"seq":1') ? true : undefined),
          START_TIMEOUT_MS,
          () => `feed: ${feed.text()}`,
        );
      node.child.kill('SIGTERM');
      // Within the exit wait, well below the request timeout (60 s) a passed feed would hold.
      expect(await node.waitForExit()).toEqual({ code: 0, signal: null });
      for (const feed of feeds) expect(await feed.ended).toBe(true);
    } finally {
      await stopAll();
      cleanup();
    }
  });

  it('serves HTTPS with an API key on every process', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-');
    try {
      const { cert, certFile, keyFile } = selfSignedCert(dir);
      const port = await freePort();
      const ca = cert;
      const node = await startServe(
        [
          '--port',
          String(port),
          '--data-dir',
          path.join(dir, 'data'),
          '--serve-processes',
          '2',
          '--tls-cert',
          certFile,
          '--tls-key',
          keyFile,
          '--api-key',
          'the-key',
        ],
        { cwd: dir, port, ca },
      );
      const key = { authorization: 'Bearer the-key' };
      const written = json(
        await request(`${node.url}/collections/c`, { body: { a: 1 }, ca, headers: key }),
        201,
      );
      const url = `${node.url}/collections/c/${written.id}`;
      for (const read of await readMany(url, { ca, headers: key })) {
        expect(json(read, 200)).toMatchObject({ a: 1 });
      }
      for (const read of await readMany(url, { ca })) json(read, 401);
      // A /query without the key is answered 401 by whichever process takes it, before its
      // text is parsed or planned; with the key it is answered.
      const query = { body: { sql: 'SELECT * FROM c WHERE a = 1' }, ca };
      const asks = (headers: Record<string, string>) =>
        Promise.all(
          Array.from({ length: READS }, () => request(`${node.url}/query`, { ...query, headers })),
        );
      for (const answer of await asks({})) {
        expect(json(answer, 401)).toMatchObject({ code: 'ERR_UNAUTHORIZED' });
      }
      for (const answer of await asks(key)) expect(json(answer, 200)).toMatchObject({ count: 1 });
    } finally {
      await stopAll();
      cleanup();
    }
  });
});

/** A reader's `start` message for `file`, passing requests to `passSocket`, TLS and logs off. */
function readerStart(file: string, passSocket: string): ToReader {
  return {
    kind: 'start',
    file,
    nodeName: 'n',
    passSocket,
    queryTimeoutMs: undefined,
    apiKey: undefined,
    corsOrigin: undefined,
    timeouts: { idleSeconds: 60, headerSeconds: 10, requestSeconds: 60 },
    https: undefined,
    log: false,
  };
}

describe('the CLI as a reader process', () => {
  it('runs a reader, not the command, when its environment says so (the single-file binary)', async () => {
    const child = fork(BIN, ['serve'], {
      env: cleanEnv({ [READER_PROCESS_ENV]: '1' }),
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // A CLI that ran `serve` instead (a build without the reader switch) would serve on the
    // defaults until killed: the test must not leave it running when it fails.
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.send(readerStart('/nonexistent/data.docdb', '/nonexistent.sock'));
    expect(await exited).toBe(1);
    expect(stderr).toContain(`docdb reader ${child.pid}:`);
    expect(stderr).toContain('/nonexistent/data.docdb');
  });
});

/**
 * Reads one HTTP answer of `socket` (its head and a body of Content-Length bytes) from the
 * bytes `buffered` holds and those that come; what follows stays in `buffered`.
 */
function nextAnswer(socket: net.Socket, buffered: { text: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const end = buffered.text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.text.slice(0, end))?.[1] ?? 0);
      if (buffered.text.length < end + 4 + length) return;
      socket.off('data', check);
      socket.off('close', onClose);
      const answer = buffered.text.slice(0, end + 4 + length);
      buffered.text = buffered.text.slice(answer.length);
      resolve(answer);
    };
    const onClose = () => reject(new Error(`closed before an answer: ${buffered.text}`));
    socket.on('data', check);
    socket.once('close', onClose);
    check();
  });
}

/** A raw connection to `port`, with what it has read and a promise of its closing. */
async function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const buffered = { text: '' };
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    buffered.text += chunk;
  });
  socket.once('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  const ask = (text: string) => {
    socket.write(text);
    return nextAnswer(socket, buffered);
  };
  return { socket, ask, closed };
}

describe('a reader process told to stop', () => {
  it('closes its idle connections at once, and a busy one after its answer, which says so', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-reader-stop-');
    const db = await open(dir);
    const id = await db.collection('c').insert({ a: 1 });
    // The first process's side of passed requests: it holds each until the test answers it.
    const held: http.ServerResponse[] = [];
    const passSocket = path.join(dir, 'pass.sock');
    const passServer = http.createServer((req, res) => {
      req.resume();
      held.push(res);
    });
    await new Promise<void>((resolve) => passServer.listen(passSocket, resolve));
    const child = fork(BIN, ['serve'], {
      env: cleanEnv({ [READER_PROCESS_ENV]: '1' }),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    const front = net.createServer({ pauseOnConnect: true }, (socket) =>
      child.send({ kind: 'connection' } satisfies ToReader, socket),
    );
    onTestFinished(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      front.close();
      passServer.closeAllConnections();
      passServer.close();
      await db.close();
      cleanup();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const said = (kind: FromReader['kind']) =>
      new Promise<void>((resolve) =>
        child.on('message', (message: FromReader) => {
          if (message.kind === kind) resolve();
        }),
      );
    const ready = said('ready');
    const serving = said('serving');
    child.send(readerStart(db.file, passSocket));
    await ready;
    child.send({ kind: 'listen' } satisfies ToReader);
    await serving;
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const port = (front.address() as net.AddressInfo).port;
    const get = `GET /collections/c/${id} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const idle = await rawConnection(port);
    const busy = await rawConnection(port);
    for (const connection of [idle, busy]) {
      const answer = await connection.ask(get);
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toMatch(/\r\nConnection: keep-alive\r\n/i);
    }
    // A write the reader passes, held unanswered: the busy connection's request in flight.
    const written = busy.ask(
      'POST /collections/c HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":2}',
    );
    await waitFor(
      () => held[0],
      START_TIMEOUT_MS,
      () => 'the reader did not pass the write',
    );
    child.send({ kind: 'stop' } satisfies ToReader);
    await idle.closed;
    held[0]?.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"x"}');
    const answer = await written;
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    await busy.closed;
    expect(await exited).toBe(0);
  });
});

describe('a follower with --serve-processes 2', () => {
  it('serves from every process what it loaded from a snapshot and applied, and refuses writes alike', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-processes-follower-');
    try {
      const nodes = new Nodes(dir);
      const replicationPort = await freePort();
      // The leader keeps 1 MiB of change log: writes past it trim the log, so a fresh
      // follower loads a snapshot first (a load that drops and adds collections under the
      // follower's readers).
      const leader = await nodes.start('leader', {
        args: [
          ...leaderFlags(replicationPort),
          '--change-log-retain-mib',
          '1',
          '--serve-processes',
          '1',
        ],
      });
      expectStatus(await post(leader, '/collections/items/bulk', [{ n: 1 }, { n: 2 }]), 200);
      const blob = 'b'.repeat(64 * 1024);
      for (let n = 0; (await status(leader)).seqFloor === 0; n++) {
        expect(n, 'writes before the log was trimmed').toBeLessThan(64);
        await insert(leader, 'blobs', { n, blob });
      }
      expectStatus(await post(leader, '/admin/checkpoint'), 200);
      const follower = await nodes.start('follower', {
        args: [...followerFlags(replicationPort), '--serve-processes', '2'],
      });
      await readerOf(follower.proc.child.pid as number);
      await caughtUp(leader, follower);
      expect(follower.proc.stdout()).toContain('catching up from a snapshot');
      for (const read of await readMany(`${follower.url}/collections/items`)) {
        expect(json(read, 200).count).toBe(2);
      }
      // An entry applied after the load, read back through every process once applied.
      const id = await insert(leader, 'items', { n: 3 });
      await caughtUp(leader, follower);
      for (const read of await readMany(`${follower.url}/collections/items/${id}`)) {
        expect(json(read, 200)).toMatchObject({ n: 3 });
      }
      // The follower's state and refusals are the same from every process.
      for (const health of await readMany(`${follower.url}/health`)) {
        expect(json(health, 200)).toMatchObject({ role: 'follower', readOnly: true });
      }
      const refusals = await Promise.all(
        Array.from({ length: READS }, () =>
          request(`${follower.url}/collections/items`, { body: { n: 4 } }),
        ),
      );
      const [first] = refusals;
      expect(first?.status).toBe(503);
      for (const refusal of refusals) {
        expect(refusal.status).toBe(first?.status);
        expect(JSON.parse(refusal.text)).toEqual(JSON.parse(first?.text ?? ''));
      }
    } finally {
      await stopAll();
      cleanup();
    }
  });
});

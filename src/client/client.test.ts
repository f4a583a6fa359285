/**
 * Proves the typed client against a real node listening on a socket (buildApp over a temp
 * database): every method and its typed answer; NDJSON streams that yield the meta first,
 * arrive line by line and can be broken off; the node's error answers as DbErrors with
 * their code and status (401, 404, 409, 400); an unreachable port, a silent server, and
 * dropped connections (a GET is retried, an insert never) at raw sockets that count
 * requests; TLS with a self-signed certificate trusted through `ca`; and `docdb/client`
 * resolving through package.json's exports.
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, type HarnessOptions, startHarness } from '../../test/support/app-harness.js';
import { refusedUrl } from '../../test/support/refused.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { selfSignedCert } from '../../test/support/tls-cert.js';
import type { AppOptions } from '../server/index.js';
import { connect, DbError, type DocdbClient, type Document, type QueryMeta } from './index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A node on a real port, and a client of it. */
interface Node {
  harness: Harness;
  url: string;
}

async function startNode(options: HarnessOptions = {}): Promise<Node> {
  const harness = await startHarness(options);
  const address = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, url: address };
}

/** What a promise rejects with; fails when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<DbError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DbError);
    return error as DbError;
  }
  throw new Error('expected a rejection');
}

/** A raw TCP server that counts the HTTP requests it reads and answers each with `reply`. */
async function rawServer(
  reply: (socket: net.Socket, request: number) => void,
): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // Requests here have small bodies that arrive with their headers.
      while (buffered.includes('\r\n\r\n')) {
        const end = buffered.indexOf('\r\n\r\n') + 4;
        const length = /content-length: *(\d+)/i.exec(buffered.slice(0, end));
        const total = end + (length ? Number(length[1]) : 0);
        if (buffered.length < total) return;
        buffered = buffered.slice(total);
        requests++;
        reply(socket, requests);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function httpAnswer(status: number, type: string, body: string, chunked = false): string {
  const head = `HTTP/1.1 ${status} X\r\ncontent-type: ${type}\r\nconnection: keep-alive\r\n`;
  return chunked
    ? `${head}transfer-encoding: chunked\r\n\r\n`
    : `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

const HEALTH = JSON.stringify({
  status: 'ok',
  node: 'raw',
  version: '0',
  readOnly: false,
  role: 'none',
  uptimeSeconds: 1,
});

describe('the client against a node', () => {
  let node: Node;
  let client: DocdbClient;

  beforeAll(async () => {
    node = await startNode({ nodeName: 'client-test' });
    client = connect(node.url);
  });

  afterAll(async () => {
    await client.close();
    await node.harness.close();
  });

  it('reads health, stats, collections and metrics', async () => {
    const health = await client.health();
    expect(health).toMatchObject({ status: 'ok', node: 'client-test', role: 'none' });
    await client.insert('info', { a: 1 });
    const stats = await client.stats();
    expect(stats.collections.find((c) => c.name === 'info')?.count).toBe(1);
    expect('pageSizeBytes' in stats && typeof stats.pageSizeBytes).toBe('number');
    expect(await client.collections()).toContain('info');
    expect(await client.metrics()).toContain('docdb_http_requests_total');
    expect((await client.openApi()).openapi).toMatch(/^3\./);
  });

  it('inserts, reads, replaces and deletes by _id', async () => {
    const { id } = await client.insert('people', { name: 'Ada', age: 36 });
    expect(await client.get('people', id)).toEqual({ _id: id, name: 'Ada', age: 36 });
    expect(await client.replace('people', id, { name: 'Ada', age: 37 })).toEqual({ id });
    expect((await client.require('people', id)).age).toBe(37);
    expect(await client.delete('people', id)).toEqual({ deleted: 1 });
    expect(await client.get('people', id)).toBeUndefined();
    const missing = await rejection(client.require('people', id));
    expect([missing.code, missing.status]).toEqual(['ERR_DOCUMENT_NOT_FOUND', 404]);
  });

  it('reads, replaces and deletes by key, values of any text', async () => {
    await client.bulk('keys', [
      { k: 'a/b c?', n: 1 },
      { k: 30, n: 2 },
      { k: '30', n: 3 },
    ]);
    const odd = await client.getByKey('keys', 'k', 'a/b c?');
    expect(odd.documents.map((d) => d.n)).toEqual([1]);
    expect(odd.plan).toContain('COLLECTION_SCAN');
    expect((await client.getByKey('keys', 'k', 30)).count).toBe(2);
    const replaced = await client.replaceByKey('keys', 'k', 'a/b c?', { k: 'x', n: 9 });
    expect(replaced.matched).toBe(1);
    const ambiguous = await rejection(client.replaceByKey('keys', 'k', 30, { k: 1 }));
    expect([ambiguous.code, ambiguous.status]).toEqual(['ERR_AMBIGUOUS_MATCH', 409]);
    expect(await client.deleteByKey('keys', 'k', 30)).toEqual({ deleted: 2 });
  });

  it('bulk inserts per item, or all or nothing', async () => {
    const early = await rejection(client.createIndex({ collection: 'bulk', path: 'u' }));
    expect([early.code, early.status]).toEqual(['ERR_COLLECTION_NOT_FOUND', 404]);
    await client.insert('bulk', { u: 0 });
    await client.createIndex({ collection: 'bulk', path: 'u', unique: true, name: 'u_unique' });
    const result = await client.bulk('bulk', [{ u: 1 }, { u: 1 }, { u: 2 }]);
    expect(result.ids).toHaveLength(2);
    expect(result.errors).toEqual([
      expect.objectContaining({ index: 1, code: 'ERR_UNIQUE_VIOLATION' }),
    ]);
    const atomic = await rejection(client.bulk('bulk', [{ u: 3 }, { u: 3 }], { atomic: true }));
    expect([atomic.code, atomic.status]).toEqual(['ERR_UNIQUE_VIOLATION', 409]);
    expect(atomic.details?.errors).toHaveLength(1);
    expect((await client.getByKey('bulk', 'u', 3)).count).toBe(0);
    await client.bulk('bulk', [{ u: 4 }], { skipIndexes: true });
    expect((await client.indexes('bulk'))[0]?.state).toBe('stale');
    const rebuilt = await client.rebuildIndexes('bulk');
    expect(rebuilt.rebuilt.map((i) => i.state)).toEqual(['ready']);
    expect((await client.rebuildIndex('bulk', 'u_unique')).rebuilt.name).toBe('u_unique');
  });

  it('lists pages in _id order', async () => {
    await client.bulk(
      'pages',
      Array.from({ length: 5 }, (_, n) => ({ n })),
    );
    const first = await client.list('pages', { limit: 2 });
    expect(first.count).toBe(2);
    const next = await client.list('pages', {
      limit: 10,
      after: first.documents[1]?._id as string,
    });
    expect(next.documents.map((d) => d.n)).toEqual([2, 3, 4]);
  });

  it('creates, lists and drops indexes, and drops a collection with X-Confirm', async () => {
    await client.insert('indexed', { a: { b: 1 } });
    const created = await client.createIndex({ collection: 'indexed', path: 'a.b', name: 'ab' });
    expect(created).toMatchObject({ collection: 'indexed', name: 'ab', paths: ['a.b'] });
    expect((await client.indexes('indexed')).map((i) => i.name)).toEqual(['ab']);
    expect((await client.getByKey('indexed', 'a.b', 1)).plan).toMatch(/^INDEX_SCAN.*\(ab\b/);
    await client.createIndex({ collection: 'indexed', path: 'c', name: 'by_c' });
    expect(await client.dropIndex('Indexed', 'BY_C')).toEqual({
      collection: 'indexed',
      dropped: 'by_c',
    });
    const gone = await rejection(client.dropIndex('indexed', 'by_c'));
    expect([gone.code, gone.status]).toEqual(['ERR_INDEX_NOT_FOUND', 404]);
    expect(await client.dropCollection('indexed')).toEqual({ dropped: 'indexed' });
    expect(await client.collections()).not.toContain('indexed');
  });

  it('runs SQL with params, and answers the X-DOCDB headers', async () => {
    await client.bulk(
      'sql',
      Array.from({ length: 10 }, (_, n) => ({ n })),
    );
    const answer = await client.query('SELECT n FROM sql WHERE n >= ? ORDER BY n', [7]);
    expect(answer.documents.map((d) => d.n)).toEqual([7, 8, 9]);
    expect(answer.count).toBe(3);
    expect(answer.headers).toMatchObject({ plan: answer.plan, count: 3 });
    expect(answer.headers.executionMs).toBeGreaterThanOrEqual(0);
    expect(answer.headers.requestId).toEqual(expect.any(String));
    const insert = await client.query('INSERT INTO sql VALUES ?', [{ n: 10 }]);
    expect(insert.affected).toBe(1);
    expect(insert.ids).toHaveLength(1);
  });

  it('streams a query: meta first, then every document; a break frees the connection', async () => {
    await client.bulk(
      'stream',
      Array.from({ length: 300 }, (_, n) => ({ n, pad: 'x'.repeat(500) })),
    );
    const values: Array<QueryMeta | Document> = [];
    for await (const value of client.queryStream('SELECT n FROM stream ORDER BY n')) {
      values.push(value);
    }
    expect(values[0]).toMatchObject({ count: 300, plan: expect.any(String) });
    expect((values.slice(1) as Document[]).map((d) => d.n)).toEqual(
      Array.from({ length: 300 }, (_, n) => n),
    );
    let read = 0;
    for await (const _ of client.queryStream('SELECT * FROM stream WHERE n >= ?', [0])) {
      if (++read === 3) break;
    }
    expect(read).toBe(3);
    expect((await client.query('SELECT COUNT(*) AS c FROM stream')).documents).toEqual([
      { c: 300 },
    ]);
  });

  it('seeds and runs the admin endpoints', async () => {
    const seeded = await client.seed(50, 7);
    expect(seeded).toMatchObject({ collection: 'orders', inserted: 50 });
    expect(await client.flush()).toMatchObject({ flushed: true, lastSeq: expect.any(Number) });
    expect(await client.checkpoint()).toMatchObject({ checkpointed: true });
    const compacted = await client.compact('orders');
    expect(compacted.collection).toBe('orders');
    expect(compacted.fileSizeBytes).toBeGreaterThan(0);
  });

  it('maps error answers to DbErrors with the body code and the status received', async () => {
    const missing = await rejection(client.list('nope'));
    expect([missing.code, missing.status]).toEqual(['ERR_COLLECTION_NOT_FOUND', 404]);
    expect(missing.details?.requestId).toEqual(expect.any(String));
    // On /query an unknown collection is a 400, unlike the catalogue's 404.
    const inQuery = await rejection(client.query('SELECT * FROM nope'));
    expect([inQuery.code, inQuery.status]).toEqual(['ERR_COLLECTION_NOT_FOUND', 400]);
    const syntax = await rejection(client.query('SELEC 1'));
    expect([syntax.code, syntax.status]).toEqual(['ERR_SQL_SYNTAX', 400]);
    expect(syntax.message).toContain('at 1:1');
    expect(syntax.details).toMatchObject({ line: 1, column: 1 });
    const stream = await rejection(
      (async () => {
        for await (const _ of client.queryStream('SELECT * FROM nope')) {
        }
      })(),
    );
    expect(stream.code).toBe('ERR_COLLECTION_NOT_FOUND');
    const badId = await rejection(client.get('people', 'not-a-uuid'));
    expect([badId.code, badId.status]).toEqual(['ERR_DOCUMENT_ID_INVALID', 400]);
  });

  it('shows and moves the replication state', async () => {
    expect(await client.replicationStatus()).toMatchObject({ role: 'none', readOnly: false });
    expect(await client.readOnly()).toMatchObject({ readOnly: true });
    const refused = await rejection(client.insert('repl', { a: 1 }));
    expect([refused.code, refused.status]).toEqual(['ERR_NODE_READ_ONLY', 503]);
    expect(await client.readWrite()).toMatchObject({ readOnly: false });
    const wrong = await rejection(client.promote({ port: 1 }));
    expect([wrong.code, wrong.status]).toEqual(['ERR_REPLICATION_STATE', 409]);
    const noWatch = await rejection(
      client.enableAutoFailover({ silenceSeconds: 5, newLeaderPort: 1 }),
    );
    expect(noWatch.code).toBe('ERR_REPLICATION_STATE');
    expect((await client.disableAutoFailover()).autoFailover.enabled).toBe(false);
  });
});

describe('the client and the API key', () => {
  let node: Node;
  beforeAll(async () => {
    node = await startNode({ apiKey: 'the-key' });
  });
  afterAll(() => node.harness.close());

  it('sends the key as a bearer token; a missing or wrong one is ERR_UNAUTHORIZED', async () => {
    const none = connect(node.url);
    const wrong = connect(node.url, { apiKey: 'other' });
    const right = connect(node.url, { apiKey: 'the-key' });
    try {
      expect((await none.health()).status).toBe('ok');
      for (const client of [none, wrong]) {
        const error = await rejection(client.collections());
        expect([error.code, error.status]).toEqual(['ERR_UNAUTHORIZED', 401]);
      }
      expect(await right.collections()).toEqual([]);
    } finally {
      await Promise.all([none.close(), wrong.close(), right.close()]);
    }
  });
});

describe('the client when the node fails', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  function client(url: string, options: Parameters<typeof connect>[1] = {}): DocdbClient {
    const c = connect(url, options);
    closers.push(() => c.close());
    return c;
  }

  it('reports an unreachable port fast, after its retries', async () => {
    const started = performance.now();
    const error = await rejection(client(refusedUrl()).health());
    expect(error.code).toBe('ERR_CLIENT_UNREACHABLE');
    expect(error.status).toBe(503);
    expect(error.message).toContain(refusedUrl());
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('gives up on a server that never answers within the timeout', async () => {
    const server = await rawServer(() => {});
    closers.push(server.close);
    const started = performance.now();
    const error = await rejection(client(server.url, { timeoutMs: 300 }).health());
    const tookMs = performance.now() - started;
    expect(error.code).toBe('ERR_CLIENT_TIMEOUT');
    expect(error.message).toContain(`${server.url}/health`);
    expect(error.message).toContain('300 ms');
    expect(tookMs).toBeGreaterThanOrEqual(250);
    expect(tookMs).toBeLessThan(1500);
    expect(server.requests()).toBe(1);
  });

  it('gives up on an answer whose body stops after its headers', async () => {
    const server = await rawServer((socket) => {
      socket.write(httpAnswer(200, 'application/json', '', true));
      socket.write(chunk('{"status":'));
    });
    closers.push(server.close);
    const started = performance.now();
    const error = await rejection(client(server.url, { timeoutMs: 300, retries: 0 }).health());
    expect(error.code).toBe('ERR_CLIENT_TIMEOUT');
    expect(error.message).toContain(`${server.url}/health`);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('retries a GET after a dropped connection', async () => {
    const server = await rawServer((socket, request) => {
      if (request === 1) socket.destroy();
      else socket.write(httpAnswer(200, 'application/json', HEALTH));
    });
    closers.push(server.close);
    expect((await client(server.url).health()).node).toBe('raw');
    expect(server.requests()).toBe(2);
  });

  it('tries a GET 1 + retries times, then reports the lost connection', async () => {
    const server = await rawServer((socket) => socket.destroy());
    closers.push(server.close);
    const error = await rejection(client(server.url, { retries: 3 }).stats());
    expect(error.code).toBe('ERR_CLIENT_UNREACHABLE');
    expect(server.requests()).toBe(4);
  });

  it('never retries an insert', async () => {
    const server = await rawServer((socket) => socket.destroy());
    closers.push(server.close);
    const error = await rejection(client(server.url).insert('c', { a: 1 }));
    expect(error.code).toBe('ERR_CLIENT_UNREACHABLE');
    expect(server.requests()).toBe(1);
  });

  it('reads a stream line by line as it arrives, and drops it on break', async () => {
    const server = await rawServer((socket) => {
      const meta = JSON.stringify({ plan: 'COLLECTION_SCAN', count: 1000, executionMs: 1 });
      // Meta and one document, then silence: the body never ends.
      socket.write(httpAnswer(200, 'application/x-ndjson', '', true));
      socket.write(chunk(`${meta}\n{"n":`));
      socket.write(chunk('1}\n'));
    });
    closers.push(server.close);
    const values: unknown[] = [];
    for await (const value of client(server.url).queryStream('SELECT * FROM t')) {
      values.push(value);
      if (values.length === 2) break;
    }
    expect(values[1]).toEqual({ n: 1 });
  });

  it('gives up on a stream that falls silent after its meta', async () => {
    const server = await rawServer((socket) => {
      const meta = JSON.stringify({ plan: 'COLLECTION_SCAN', count: 2, executionMs: 1 });
      socket.write(httpAnswer(200, 'application/x-ndjson', '', true));
      socket.write(chunk(`${meta}\n`));
    });
    closers.push(server.close);
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const value of client(server.url, { timeoutMs: 300 }).queryStream('SELECT 1')) {
          seen.push(value);
        }
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(error.code).toBe('ERR_CLIENT_TIMEOUT');
    expect(error.message).toContain('may have been stored');
  });

  it('says so when it is used after close', async () => {
    const server = await rawServer((socket) =>
      socket.write(httpAnswer(200, 'application/json', HEALTH)),
    );
    closers.push(server.close);
    const closed = connect(server.url);
    expect((await closed.health()).node).toBe('raw');
    await closed.close();
    const error = await rejection(closed.health());
    expect(error.code).toBe('ERR_CLIENT_UNREACHABLE');
    expect(error.message).toContain('closed');
  });

  it('reports a stream cut short of its count', async () => {
    const server = await rawServer((socket) => {
      const meta = JSON.stringify({ plan: 'COLLECTION_SCAN', count: 3, executionMs: 1 });
      socket.end(httpAnswer(200, 'application/x-ndjson', `${meta}\n{"n":1}\n`));
    });
    closers.push(server.close);
    const seen: unknown[] = [];
    const error = await rejection(
      (async () => {
        for await (const value of client(server.url).queryStream('SELECT * FROM t')) {
          seen.push(value);
        }
      })(),
    );
    expect(seen).toHaveLength(2);
    expect(error.code).toBe('ERR_CLIENT_PROTOCOL');
    expect(error.message).toContain('1 of 3');
  });

  it('reports an answer that is not docdb', async () => {
    const server = await rawServer((socket) =>
      socket.write(httpAnswer(502, 'text/html', '<h1>Bad gateway</h1>')),
    );
    closers.push(server.close);
    const error = await rejection(client(server.url).health());
    expect([error.code, error.status]).toEqual(['ERR_CLIENT_PROTOCOL', 502]);
  });

  it('refuses bad options', () => {
    expect(() => connect('localhost:5000')).toThrow(/http: or https:/);
    expect(() => connect('http://127.0.0.1:1', { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => connect('http://127.0.0.1:1', { retries: -1 })).toThrow(/retries/);
  });
});

describe('the client over TLS', () => {
  let dir: string;
  let cleanup: () => void;
  let node: Node;
  let cert: string;

  beforeAll(async () => {
    ({ dir, cleanup } = makeTempDir('docdb-client-tls-'));
    const made = selfSignedCert(dir);
    cert = made.cert;
    const key = made.key;
    node = await startNode({ https: { https: { cert, key } } as AppOptions['https'] });
  });

  afterAll(async () => {
    await node?.harness.close();
    cleanup();
  });

  it('trusts the node’s self-signed certificate given as ca, and refuses it otherwise', async () => {
    expect(node.url.startsWith('https://')).toBe(true);
    const trusting = connect(node.url, { tls: { ca: cert } });
    const plain = connect(node.url, { retries: 0 });
    try {
      expect((await trusting.health()).status).toBe('ok');
      expect((await trusting.insert('tls', { a: 1 })).id).toEqual(expect.any(String));
      const error = await rejection(plain.health());
      expect(error.code).toBe('ERR_CLIENT_UNREACHABLE');
      expect(error.message).toMatch(/self.signed/i);
    } finally {
      await Promise.all([trusting.close(), plain.close()]);
    }
  });
});

describe('docdb/client', () => {
  it('resolves through the package exports once built', () => {
    if (!fs.existsSync(path.join(ROOT, 'dist/client/index.js'))) {
      execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build-dist.ts'], {
        cwd: ROOT,
        stdio: 'ignore',
        timeout: 120_000,
      });
    }
    const script =
      "const c = await import('docdb/client'); console.log(typeof c.connect, typeof c.DocdbClient, c.CLIENT_TIMEOUT_MS_DEFAULT)";
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('function function 30000');
  }, 130_000);
});

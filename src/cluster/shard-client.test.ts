/**
 * The router's shard client over the wire: against a real node it answers every wire
 * operation as the HTTP client does (answers and errors alike), sends a request past the
 * node's body limit over HTTP, and speaks HTTP to a node without the wire (an older node) or
 * one that refuses its key. Against a scripted node: many requests in flight on one
 * connection answered out of order, a connection cut mid-request failing those requests as a
 * lost HTTP connection does and a new one opened for the next, a refused connection looking
 * refused (`ECONNREFUSED`, which the router's retry rules read), a silent node timing out, and
 * a node that breaks the framing.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { refusedUrl } from '../../test/support/refused.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { selfSignedCert } from '../../test/support/tls-cert.js';
import { connect, type DocdbClient } from '../client/index.js';
import { type DbError, isDbError } from '../errors/index.js';
import { encodeFrame, FrameDecoder } from '../replication/index.js';
import type { AppOptions } from '../server/app.js';
import { formatId, isJsonText, newId, rowJson } from '../util/index.js';
import { WIRE_BODY_BYTES_HEADER, type WireRequest } from '../wire/index.js';
import { Router } from './router.js';
import { WireClient } from './shard-client.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function startNode(options: Pick<AppOptions, 'apiKey' | 'bodyBytesMax' | 'https'> = {}) {
  const harness: Harness = await startHarness(options);
  const url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => harness.close());
  return { harness, url };
}

function clients(url: string, options: { apiKey?: string } = {}) {
  const wire = new WireClient(url, options);
  const http = connect(url, options);
  closers.push(
    () => wire.close(),
    () => http.close(),
  );
  return { wire, http };
}

/** What a call answered or threw, comparable across clients. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    const answer = (await call()) as Record<string, unknown> | undefined;
    if (answer && typeof answer === 'object' && 'executionMs' in answer) {
      const { executionMs: _, headers: __, ...rest } = answer;
      return { answer: rest };
    }
    return { answer };
  } catch (error) {
    const e = error as DbError;
    const { requestId: _, ...details } = e.details ?? {};
    return { code: e.code, status: e.status, message: e.message, details };
  }
}

/** Upgrades taken by the node, read from its metrics: wire requests count under routes. */
async function wireCalls(harness: Harness, route: string): Promise<number> {
  const text = (await harness.request({ url: '/metrics' })).text;
  const counts = [
    ...text.matchAll(
      /docdb_http_requests_total\{method="(\w+)",route="([^"]+)",status="\d+"\} (\d+)/g,
    ),
  ];
  return counts.filter((m) => m[2] === route).reduce((n, m) => n + Number(m[3]), 0);
}

/** A router over two real nodes, `orders` hash-sharded on pnr. */
async function twoShardRouter() {
  const a = await startNode();
  const b = await startNode();
  const router = new Router({
    version: 1,
    router: { port: 6000 },
    shards: [
      { name: 'a', endpoint: a.url },
      { name: 'b', endpoint: b.url },
    ],
    collections: { orders: { strategy: 'hash', path: 'pnr' } },
  });
  closers.push(() => router.close());
  return { a, b, router };
}

describe('the wire against a real node', () => {
  it('answers every wire operation as HTTP does, answers and errors', async () => {
    const { url } = await startNode();
    const { wire, http } = clients(url);
    const both = async (call: (c: DocdbClient) => Promise<unknown>) => {
      const fromWire = await outcome(() => call(wire));
      const fromHttp = await outcome(() => call(http));
      expect(fromWire).toEqual(fromHttp);
      return fromWire;
    };
    const missing = formatId(newId());
    await both((c) => c.collections());
    const { answer } = (await outcome(() => wire.insert('orders', { pnr: 'A1', n: 1 }))) as {
      answer: { id: string };
    };
    await http.insert('orders', { pnr: 'A2', n: 1 });
    await both((c) => c.get('orders', answer.id));
    await both((c) => c.getTagged('orders', answer.id));
    await both((c) => c.get('orders', missing));
    await both((c) => c.get('nowhere', missing));
    await both((c) => c.getByKey('orders', 'n', 1));
    await both((c) => c.getByKey('orders', 'n', '1'));
    await both((c) => c.query('SELECT pnr FROM orders ORDER BY pnr'));
    await both((c) => c.query('SELECT * FROM orders WHERE n = ?', [1]));
    await both((c) => c.query('SELECT FROM'));
    await both((c) => c.query('SELECT * FROM nowhere'));
    await both((c) =>
      c.query('SELECT pnr FROM orders', [], { shard: { kind: 'rows', top: 1, sortKeys: true } }),
    );
    await both((c) => c.replace('orders', missing, { n: 2 }));
    await both((c) => c.replace('orders', answer.id, { n: 2 }, { ifMatch: 'stale' }));
    await both((c) => c.replaceByKey('orders', 'n', 1, { n: 3 }));
    await both((c) => c.deleteByKey('orders', 'pnr', 'none'));
    await both((c) => c.delete('orders', missing));
    await both((c) => c.bulk('orders', [{ n: 5 }, 7 as never], { atomic: true }));
    await both((c) => c.insert('orders', [] as never));
  });

  it('goes over the wire, many requests in flight on its connections', async () => {
    const { url, harness } = await startNode();
    const { wire } = clients(url);
    const { id } = await wire.insert('orders', { n: 1 });
    const reads = await Promise.all(Array.from({ length: 200 }, () => wire.get('orders', id)));
    expect(reads.every((doc) => doc?._id === id)).toBe(true);
    expect(await wireCalls(harness, '/collections/:name/:id')).toBe(200);
    expect(await wireCalls(harness, '/collections/:name')).toBe(1);
  });

  it('sends a request past the node body limit over HTTP, which refuses it as it would', async () => {
    const { url, harness } = await startNode({ bodyBytesMax: 4096 });
    const { wire, http } = clients(url);
    await wire.insert('orders', { n: 1 });
    const big = { text: 'x'.repeat(5000) };
    const fromWire = await outcome(() => wire.insert('orders', big));
    expect(fromWire).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', status: 413 });
    expect(fromWire).toEqual(await outcome(() => http.insert('orders', big)));
    expect(await wireCalls(harness, '/collections/:name')).toBe(3);
  });

  it('answers a query at the node body limit and one byte past it as HTTP does', async () => {
    const { url } = await startNode({ bodyBytesMax: 4096 });
    const { wire, http } = clients(url);
    await wire.insert('orders', { pnr: 'A1' });
    const shard = { kind: 'rows', top: 1, sortKeys: true } as const;
    for (const bytes of [4096, 4097]) {
      const filler = 'x'.repeat(bytes - JSON.stringify({ sql: '', params: [], shard }).length - 38);
      const sql = `SELECT pnr FROM orders WHERE pnr <> '${filler}'`;
      expect(JSON.stringify({ sql, params: [], shard }).length).toBe(bytes);
      const fromWire = await outcome(() => wire.query(sql, [], { shard }));
      expect(fromWire).toEqual(await outcome(() => http.query(sql, [], { shard })));
      if (bytes > 4096) expect(fromWire).toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
      else expect(fromWire).toMatchObject({ answer: { count: 1 } });
    }
  });

  it('speaks HTTP to a node without the wire (an older node answers the Upgrade 404)', async () => {
    const { url, harness } = await startNode();
    harness.app.server.removeAllListeners('upgrade');
    const { wire } = clients(url);
    const { id } = await wire.insert('orders', { n: 1 });
    expect((await wire.get('orders', id))?._id).toBe(id);
    expect((await wire.query('SELECT * FROM orders')).count).toBe(1);
    // The Upgrade was asked once (a 404), then every call went over HTTP.
    expect(await wireCalls(harness, 'unmatched')).toBe(1);
  });

  it('meets a refused key as HTTP does: 401, which the router words as the key refused', async () => {
    const { url } = await startNode({ apiKey: 'right' });
    const { wire, http } = clients(url, { apiKey: 'wrong' });
    const fromWire = await outcome(() => wire.query('SELECT 1'));
    expect(fromWire).toMatchObject({ code: 'ERR_UNAUTHORIZED', status: 401 });
    expect(fromWire).toEqual(await outcome(() => http.query('SELECT 1')));
    const right = clients(url, { apiKey: 'right' }).wire;
    expect((await right.collections()).length).toBe(0);
  });

  it('upgrades on a TLS node, trusting its certificate as the HTTP client does', async () => {
    const { dir, cleanup } = makeTempDir('docdb-wire-tls-');
    closers.push(async () => cleanup());
    const { cert, key } = selfSignedCert(dir);
    const { url, harness } = await startNode({
      https: { https: { cert, key } } as AppOptions['https'],
    });
    expect(url.startsWith('https://')).toBe(true);
    const trusting = new WireClient(url, { tls: { ca: cert } });
    const plain = new WireClient(url, { retries: 0 });
    closers.push(
      () => trusting.close(),
      () => plain.close(),
    );
    expect((await trusting.insert('tls', { a: 1 })).id).toEqual(expect.any(String));
    expect(await wireCalls(harness, '/collections/:name')).toBe(1);
    const error = (await plain.collections().catch((e: unknown) => e)) as DbError;
    expect(error.code).toBe('ERR_CLIENT_UNREACHABLE');
    expect(error.message).toMatch(/self.signed/i);
  });

  it('carries the router: a routed point lookup over the wire', async () => {
    const { a, b, router } = await twoShardRouter();
    await router.insert('orders', { pnr: 'P1', n: 1 });
    const found = await router.query("SELECT * FROM orders WHERE pnr = 'P1'");
    expect(found.documents).toMatchObject([{ pnr: 'P1', n: 1 }]);
    const queries = (await wireCalls(a.harness, '/query')) + (await wireCalls(b.harness, '/query'));
    expect(queries).toBe(1);
  });

  it("passes one shard's rows on as JsonText when asked rows: 'json', a scatter's as objects", async () => {
    const { router } = await twoShardRouter();
    await router.bulk('orders', [
      { pnr: 'P1', n: 1, s: 'é\n"' },
      { pnr: 'P2', n: 2 },
      { pnr: 'P3', n: 3 },
    ]);
    const point = 'SELECT * FROM orders WHERE pnr = ?';
    const asText = await router.query(point, ['P1'], { rows: 'json' });
    const asObjects = await router.query(point, ['P1']);
    expect(asText.documents.every(isJsonText)).toBe(true);
    expect(asText.documents.map(rowJson)).toEqual(
      asObjects.documents.map((d) => JSON.stringify(d)),
    );
    expect(asText.plan).toBe(asObjects.plan);
    const handle = router.prepare(point).handle;
    expect((await router.execute(handle, ['P2'], { rows: 'json' })).documents.map(rowJson)).toEqual(
      [JSON.stringify((await router.query(point, ['P2'])).documents[0])],
    );
    const scatter = await router.query('SELECT * FROM orders ORDER BY n', [], { rows: 'json' });
    expect(scatter.documents.map((d) => isJsonText(d))).toEqual([false, false, false]);
  });
});

/** A node that takes the Upgrade and lets the test answer its frames. */
async function scriptedNode(
  onRequest: (request: WireRequest, socket: Duplex, connection: number) => void,
): Promise<{ url: string; connections: () => number; server: Server }> {
  let connections = 0;
  const server = createServer((_, response) => response.writeHead(404).end());
  server.on('upgrade', (_request, socket: Duplex, head: Buffer) => {
    const connection = ++connections;
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: docdb-wire/1\r\n' +
        `${WIRE_BODY_BYTES_HEADER}: 1048576\r\n\r\n`,
    );
    const decoder = new FrameDecoder();
    const take = (chunk: Buffer) => {
      for (const m of decoder.push(chunk)) onRequest(m as WireRequest, socket, connection);
    };
    socket.on('data', take);
    socket.on('error', () => {});
    socket.on('end', () => socket.end());
    if (head.length > 0) take(head);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections: () => connections, server };
}

describe('the wire against a scripted node', () => {
  it('matches answers to requests by id, whatever their order', async () => {
    const held: Array<{ request: WireRequest; socket: Duplex }> = [];
    const node = await scriptedNode((request, socket) => {
      held.push({ request, socket });
      if (held.length < 50) return;
      // Every request is in flight at once: answer them last first.
      for (const { request: r, socket: s } of held.reverse()) {
        const [, , key] = JSON.parse(r.a) as [string, string, string];
        s.write(
          encodeFrame({ i: r.i, j: JSON.stringify({ documents: [{ key }], count: 1, plan: 'P' }) }),
        );
      }
    });
    const wire = new WireClient(node.url);
    closers.push(() => wire.close());
    const keys = Array.from({ length: 50 }, (_, k) => `k${k}`);
    const answers = await Promise.all(keys.map((key) => wire.getByKey('c', 'f', key)));
    expect(answers.map((a) => a.documents[0]?.key)).toEqual(keys);
    expect(node.connections()).toBeLessThanOrEqual(2);
  });

  it('sends the calls of one turn on one connection, the next turn on the next', async () => {
    const seen: number[][] = [[], []];
    const node = await scriptedNode((request, socket, connection) => {
      seen[connection - 1]?.push(request.i);
      socket.write(encodeFrame({ i: request.i, j: '["orders"]' }));
    });
    const wire = new WireClient(node.url);
    closers.push(() => wire.close());
    const turn = () => Promise.all(Array.from({ length: 10 }, () => wire.collections()));
    await turn();
    expect(seen.map((ids) => ids.length)).toEqual([10, 0]);
    await turn();
    expect(seen.map((ids) => ids.length)).toEqual([10, 10]);
  });

  it('fails the requests of a connection cut mid-request as unreachable, then opens a new one', async () => {
    let cut = true;
    const node = await scriptedNode((request, socket) => {
      if (cut) {
        socket.destroy();
        return;
      }
      socket.write(encodeFrame({ i: request.i, j: '["orders"]' }));
    });
    const wire = new WireClient(node.url, { retries: 0 });
    closers.push(() => wire.close());
    const error = await wire.query('SELECT 1').catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_CLIENT_UNREACHABLE')).toBe(true);
    expect((error as DbError).message).toMatch(/cannot reach the node, or lost the connection/);
    cut = false;
    expect(await wire.collections()).toEqual(['orders']);
    expect(await wire.collections()).toEqual(['orders']);
    expect(node.connections()).toBeGreaterThanOrEqual(2);
  });

  it('tries a read again after a lost connection, as the HTTP client tries a GET', async () => {
    let cuts = 1;
    const node = await scriptedNode((request, socket) => {
      if (cuts-- > 0) socket.destroy();
      else socket.write(encodeFrame({ i: request.i, j: '["orders"]' }));
    });
    const wire = new WireClient(node.url);
    closers.push(() => wire.close());
    expect(await wire.collections()).toEqual(['orders']);
  });

  it('fails with ERR_CLIENT_TIMEOUT when the node does not answer within timeoutMs', async () => {
    const node = await scriptedNode(() => {});
    const wire = new WireClient(node.url, { timeoutMs: 200 });
    closers.push(() => wire.close());
    const error = await wire.insert('orders', { n: 1 }).catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_CLIENT_TIMEOUT')).toBe(true);
    expect((error as DbError).message).toMatch(/within 200 ms.*the write may have been stored/);
  });

  it('fails with ERR_CLIENT_PROTOCOL when the node breaks the framing', async () => {
    const node = await scriptedNode((_, socket) => {
      const header = Buffer.alloc(4);
      header.writeUInt32BE(64 * 1024 * 1024);
      socket.write(header);
    });
    const wire = new WireClient(node.url);
    closers.push(() => wire.close());
    const error = await wire.collections().catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_CLIENT_PROTOCOL')).toBe(true);
    expect((error as DbError).message).toMatch(/broke the docdb-wire\/1 protocol/);
  });

  it('finds a refused connection refused (ECONNREFUSED), as the retry rules read it', async () => {
    const wire = new WireClient(refusedUrl(), { retries: 0 });
    closers.push(() => wire.close());
    const error = await wire.query('SELECT 1').catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_CLIENT_UNREACHABLE')).toBe(true);
    expect((error as DbError).details?.cause).toBe('ECONNREFUSED');
  });
});

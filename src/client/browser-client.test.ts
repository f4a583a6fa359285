/**
 * Proves docdb/client's browser entry (`DocdbClient` over `fetch`, ADR 0024) against a real
 * node on a socket, with Node's own `fetch` standing in for the browser's: typed answers and
 * the X-DOCDB headers, the API key, the node's errors as DbErrors with code and status, an
 * NDJSON stream and the change feed line by line, a port nobody listens on, the timeout, and
 * the `tls` option refused since a browser decides whom it trusts.
 */

import * as net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { refusedUrl } from '../../test/support/refused.js';
import { connect, DbError, type DocdbClient, type Document, type QueryMeta } from './browser.js';

let harness: Harness;
let url: string;
let client: DocdbClient;

beforeAll(async () => {
  harness = await startHarness({ apiKey: 'k' });
  url = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  client = connect(url, { apiKey: 'k' });
});

afterAll(async () => {
  await client.close();
  // Node's global fetch keeps its connections alive in a pool no test can close, as a browser
  // does; the node's close would wait for them.
  harness.app.server.closeAllConnections();
  await harness.close();
});

/** What a promise rejects with, checked to be a DbError. */
async function rejection(promise: Promise<unknown>): Promise<DbError> {
  const error = await promise.then(
    () => new Error('expected a rejection'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DbError);
  return error as DbError;
}

describe('the browser client', () => {
  it('writes, reads and queries with typed answers and the X-DOCDB headers', async () => {
    expect((await client.health()).status).toBe('ok');
    const { id } = await client.insert('b', { n: 1 });
    await client.bulk('b', [{ n: 2 }, { n: 3 }]);
    expect((await client.require('b', id)).n).toBe(1);
    expect((await client.list('b', { limit: 2 })).count).toBe(2);
    const answer = await client.query('SELECT * FROM b WHERE n > ? ORDER BY n', [1]);
    expect(answer.documents.map((d) => d.n)).toEqual([2, 3]);
    expect(answer.headers).toMatchObject({
      plan: expect.stringMatching(/^COLLECTION_SCAN/),
      count: 2,
    });
    expect(await client.metrics()).toContain('docdb_http_requests_total');
    await client.createIndex({ collection: 'b', path: 'n', name: 'by_n' });
    expect(await client.dropIndex('b', 'by_n')).toEqual({ collection: 'b', dropped: 'by_n' });
  });

  it('turns the node’s error answers into DbErrors with their code and status', async () => {
    const missing = await rejection(client.require('nope', '00000000-0000-0000-0000-000000000000'));
    expect([missing.code, missing.status]).toEqual(['ERR_COLLECTION_NOT_FOUND', 404]);
    const keyless = connect(url);
    const unauthorized = await rejection(keyless.stats());
    expect([unauthorized.code, unauthorized.status]).toEqual(['ERR_UNAUTHORIZED', 401]);
    expect(await client.get('b', '00000000-0000-0000-0000-000000000000')).toBeUndefined();
  });

  it('streams a query and the change feed line by line', async () => {
    const values: Array<QueryMeta | Document> = [];
    for await (const value of client.queryStream('SELECT * FROM b ORDER BY n')) values.push(value);
    expect(values[0]).toMatchObject({ count: 3 });
    expect(values.slice(1).map((d) => (d as Document).n)).toEqual([1, 2, 3]);
    const hangUp = new AbortController();
    const seen: string[] = [];
    for await (const entry of client.changes({
      since: 0,
      collection: 'b',
      signal: hangUp.signal,
    })) {
      seen.push(entry.op);
      // The insert, then the bulk's one entry: then hang up (the lines already read still
      // come, as from a node's client).
      if (seen.length === 2) hangUp.abort();
    }
    expect(seen.slice(0, 2)).toEqual(['insert', 'insert']);
  });

  it('says a node does not answer, or not in time', async () => {
    const gone = await rejection(connect(refusedUrl(), { retries: 0 }).health());
    expect(gone.code).toBe('ERR_CLIENT_UNREACHABLE');
    expect(gone.message).toContain(`${refusedUrl()}/health: cannot reach the node`);
    // Takes the connection and never answers; ends it once the client gave up.
    const silent = net.createServer((socket) => setTimeout(() => socket.destroy(), 300));
    silent.listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const { port: silentPort } = silent.address() as net.AddressInfo;
    try {
      const late = await rejection(
        connect(`http://127.0.0.1:${silentPort}`, { timeoutMs: 200 }).health(),
      );
      expect(late.code).toBe('ERR_CLIENT_TIMEOUT');
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('refuses the tls option: a browser decides which certificates it trusts', () => {
    expect(() => connect(url, { tls: { rejectUnauthorized: false } })).toThrow(
      /client option tls is not taken in a browser/,
    );
  });
});

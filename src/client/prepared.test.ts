/**
 * Proves that the client prepares by itself: `query(sql, params)` sends a text as text the
 * first time, prepares it the second and sends its handle from then on (for streams too); a
 * handle the node let go (ERR_SQL_HANDLE_UNKNOWN) is prepared again and the call sent once
 * more, a write included, which then runs exactly once; a statement's own error is the same
 * whichever way it went; and a node without POST /query/prepare is sent text. Requests are
 * counted by a transport that records what it opens, against a real node on a socket.
 */

import * as http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { DbError } from '../errors/index.js';
import { PREPARED_STATEMENTS_MAX } from '../util/index.js';
import { DocdbClientBase } from './docdb-client.js';
import type { Call } from './transport.js';
import { UndiciTransport } from './undici-transport.js';

/** A transport that notes each request: its path and whether it named `sql` or `handle`. */
class RecordingTransport extends UndiciTransport {
  readonly calls: string[] = [];
  override open(call: Call) {
    const json = call.json as { sql?: string; handle?: string } | undefined;
    const by = json?.handle !== undefined ? 'handle' : json?.sql !== undefined ? 'sql' : '';
    this.calls.push(`${call.path} ${by}`.trim());
    return super.open(call);
  }
}

let h: Harness;
let transport: RecordingTransport;
let client: DocdbClientBase;

beforeEach(async () => {
  h = await startHarness();
  const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  transport = new RecordingTransport(url);
  client = new DocdbClientBase(transport);
  await h.db.collection('t').insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
});

afterEach(async () => {
  await client.close();
  await h.close();
});

const SELECT = 'SELECT i FROM t WHERE i = ?';

/**
 * Makes the node let every statement it holds go, by preparing others: twice its bound, as a
 * statement used since the store last passed it gets a second chance (ClockCache).
 */
function evictAll(): void {
  for (let n = 0; n < 2 * PREPARED_STATEMENTS_MAX; n++) {
    h.db.prepare(`SELECT i FROM t WHERE i = ${n}`);
  }
}

describe('client.query prepares by itself', () => {
  it('sends text once, prepares on the second call, then sends the handle', async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await client.query(SELECT, [i]);
      expect(answer.documents.map((d) => d.i)).toEqual([i]);
      expect(answer.headers.count).toBe(1);
    }
    expect(transport.calls).toEqual([
      '/query sql',
      '/query/prepare sql',
      '/query handle',
      '/query handle',
      '/query handle',
    ]);
  });

  it('streams by handle too', async () => {
    for (let i = 0; i < 3; i++) {
      const values: unknown[] = [];
      for await (const value of client.queryStream(SELECT, [i])) values.push(value);
      expect(values).toHaveLength(2);
    }
    expect(transport.calls).toEqual([
      '/query sql',
      '/query/prepare sql',
      '/query handle',
      '/query handle',
    ]);
  });

  it('prepares again when the node let the handle go, and answers', async () => {
    await client.query(SELECT, [1]);
    await client.query(SELECT, [1]);
    evictAll();
    transport.calls.length = 0;
    const answer = await client.query(SELECT, [2]);
    expect(answer.documents.map((d) => d.i)).toEqual([2]);
    expect(transport.calls).toEqual(['/query handle', '/query/prepare sql', '/query handle']);
  });

  it('a stream whose handle the node let go is prepared again before its first line', async () => {
    await client.query(SELECT, [1]);
    await client.query(SELECT, [1]);
    evictAll();
    transport.calls.length = 0;
    const values: unknown[] = [];
    for await (const value of client.queryStream(SELECT, [3])) values.push(value);
    expect(values[1]).toMatchObject({ i: 3 });
    expect(transport.calls).toEqual(['/query handle', '/query/prepare sql', '/query handle']);
  });

  it('a write sent again after an unknown handle runs once', async () => {
    const insert = 'INSERT INTO t VALUES ?';
    await client.query(insert, [{ i: 100 }]);
    await client.query(insert, [{ i: 101 }]);
    evictAll();
    await client.query(insert, [{ i: 102 }]);
    const count = await client.query('SELECT COUNT(*) AS n FROM t WHERE i >= 100');
    expect(count.documents).toEqual([{ n: 3 }]);
  });

  it("a statement's error is the same sent as text or prepared", async () => {
    const errors: string[] = [];
    for (let i = 0; i < 2; i++) {
      try {
        await client.query('SELEC i FROM t');
      } catch (error) {
        expect(error).toBeInstanceOf(DbError);
        errors.push(`${(error as DbError).code}: ${(error as DbError).message}`);
      }
    }
    expect(errors).toHaveLength(2);
    expect(errors[1]).toBe(errors[0]);
    expect(transport.calls).toEqual(['/query sql', '/query/prepare sql']);
  });
});

describe('a node without POST /query/prepare', () => {
  it('is sent text, and asked to prepare once only', async () => {
    // An older node: POST /query answers, POST /query/prepare is no route.
    const server = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const known = request.url === '/query';
        response.writeHead(known ? 200 : 404, { 'content-type': 'application/json' });
        response.end(
          known
            ? JSON.stringify({ plan: 'COLLECTION_SCAN', count: 0, executionMs: 0, documents: [] })
            : JSON.stringify({ error: 'no endpoint', code: 'ERR_ROUTE_NOT_FOUND' }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const old = new RecordingTransport(`http://127.0.0.1:${port}`);
    const oldClient = new DocdbClientBase(old);
    try {
      for (let i = 0; i < 3; i++) await oldClient.query('SELECT * FROM t');
      await oldClient.query('SELECT i FROM t');
      await oldClient.query('SELECT i FROM t');
      expect(old.calls).toEqual([
        '/query sql',
        '/query/prepare sql',
        '/query sql',
        '/query sql',
        '/query sql',
        '/query sql',
      ]);
    } finally {
      await oldClient.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

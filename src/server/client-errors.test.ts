/**
 * Proves what a node answers to what Node's HTTP parser refuses, on a real socket: headers
 * past the parser's limit (431), bytes that are not HTTP/1.1 (400 with the parser's reason),
 * each with docdb's error body and a request id, the connection closed and the node still
 * answering; and the 408 of a request that never arrives whole (server/timeouts.test.ts
 * proves the timing).
 */

import * as net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { clientErrorAnswer } from './client-errors.js';

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await h.close();
});

/** Writes `text` on a new socket; what came back once the node closed it. */
function answerTo(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

function parsed(answer: string): { status: number; headers: string; body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body) };
}

async function healthy(): Promise<void> {
  const answer = await answerTo('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  expect(answer).toMatch(/^HTTP\/1\.1 200/);
}

describe('what the HTTP parser refuses', () => {
  it('answers headers past the limit with 431 ERR_HEADERS_TOO_LARGE', async () => {
    const answer = parsed(
      await answerTo(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatch(/\r\nX-Request-Id: [0-9a-f-]+/);
    expect(answer.body).toEqual({
      code: 'ERR_HEADERS_TOO_LARGE',
      error: expect.stringContaining('larger than 16384 bytes'),
    });
    await healthy();
  });

  it.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    ['a header line with no colon', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
    ['a control character in a header value', 'GET /health HTTP/1.1\r\nHost: x\u0001y\r\n\r\n'],
  ])('answers %s with 400 ERR_BAD_REQUEST and the reason', async (_what, text) => {
    const answer = parsed(await answerTo(text));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: 'ERR_BAD_REQUEST',
      error: expect.stringMatching(/^the request is not HTTP\/1\.1 the node can read: .+\(HPE_/),
    });
    await healthy();
  });

  it('words the 408 of a request not received in time', () => {
    const error = Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
    const answer = parsed(clientErrorAnswer(error, 'id-1', 60));
    expect(answer.status).toBe(408);
    expect(answer.headers).toContain('\r\nX-Request-Id: id-1');
    expect(answer.body).toEqual({
      code: 'ERR_REQUEST_TIMEOUT',
      error: expect.stringContaining('within 60 s'),
    });
  });
});

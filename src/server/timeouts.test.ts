/**
 * Proves the idle, header and request timeouts on a real socket: a silent connection, a
 * slow-loris client that never finishes its headers, a body that never arrives (408) and a
 * reader that stops reading an NDJSON stream are all closed by the node, while it keeps
 * answering other clients; a request that works past the idle timeout is not cut; a header
 * timeout longer than the request timeout is refused.
 */

import * as net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../test/support/app-harness.js';
import { isDbError } from '../errors/index.js';

/**
 * The timeouts of the node under test, short so that each test waits about a second rather
 * than several: the settings take whole seconds, the app any. The header and request
 * deadlines are checked every HTTP_TIMEOUT_CHECK_MS (1 s).
 */
const TIMEOUTS = { idleSeconds: 1.5, headerSeconds: 0.5, requestSeconds: 1 };
/** How long the slow route works: past the idle timeout by a second. */
const SLOW_ROUTE_MS = (TIMEOUTS.idleSeconds + 1) * 1000;
/** Generous bound on every wait: the timeouts are 0.5–1.5 s, checked every second. */
const CLOSE_WAIT_MS = 15_000;

let h: Harness;
let port: number;

beforeAll(async () => {
  h = await startHarness({ timeouts: TIMEOUTS });
  // A request that works past the idle timeout before it answers (a long compaction would).
  h.app.get('/test/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, SLOW_ROUTE_MS));
    return { done: true };
  });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as net.AddressInfo).port;
  // Far more than the socket buffers hold, so a reader that stops reading stalls the stream.
  const many = Array.from({ length: 20_000 }, (_, i) => ({ i, text: 'x'.repeat(400) }));
  for (let at = 0; at < many.length; at += 1_000) {
    await h.app.inject({
      method: 'POST',
      url: '/collections/big/bulk',
      payload: many.slice(at, at + 1_000),
    });
  }
});

afterAll(async () => {
  await h.close();
});

/** Opens a socket, writes `text`, and resolves with what came back once the node closed it. */
function closedBy(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${CLOSE_WAIT_MS} ms; received ${received.slice(0, 200)}`));
    }, CLOSE_WAIT_MS);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => {});
  });
}

async function healthy(): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  expect(response.status).toBe(200);
}

describe('connection timeouts', () => {
  it('closes a connection that never sends a byte', async () => {
    const [received] = await Promise.all([closedBy(''), healthy()]);
    expect(received).not.toContain('200 OK');
  });

  it('closes a slow-loris client that never finishes its headers', async () => {
    const [received] = await Promise.all([
      closedBy('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: '),
      healthy(),
    ]);
    expect(received).not.toContain('200 OK');
  });

  it('answers 408 to a request whose body never arrives', async () => {
    const received = await closedBy(
      'POST /collections/slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    expect(received).toMatch(/^HTTP\/1\.1 408/);
    expect(received).toContain('"code":"ERR_REQUEST_TIMEOUT"');
    await healthy();
  });

  it('closes a reader that stopped reading a stream, and keeps serving others', async () => {
    const body = JSON.stringify({ sql: 'SELECT * FROM big' });
    const request =
      'POST /query?stream=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    // A reader that stopped reading does not see the close either, so watch the node's side.
    const serverSide = new Promise<void>((resolve, reject) => {
      h.app.server.once('connection', (socket: net.Socket) => {
        const timer = setTimeout(
          () => reject(new Error('the node kept the socket')),
          CLOSE_WAIT_MS,
        );
        socket.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    });
    const reader = net.connect(port, '127.0.0.1', () => reader.write(request));
    reader.pause();
    reader.on('error', () => {});
    await serverSide;
    reader.destroy();
    await healthy();
  });

  it('does not cut a request that works past the idle timeout', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/test/slow`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
  });

  it('refuses a header timeout longer than the request timeout', async () => {
    let error: unknown;
    try {
      await startHarness({ timeouts: { idleSeconds: 5, headerSeconds: 10, requestSeconds: 5 } });
    } catch (caught) {
      error = caught;
    }
    expect(isDbError(error, 'ERR_CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain('header timeout (10 s)');
  });
});

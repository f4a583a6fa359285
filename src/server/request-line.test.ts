/**
 * Proves how the first process reads a connection's first request line before it chooses
 * where to serve it (issue 25): which bytes are a request line, a cut one or one past the
 * limit; that a connection peeked and put back (`unshift`) is answered by Node's HTTP server
 * byte for byte as one never peeked, the line split over packets and a body sent after a
 * pause included; and that a connection silent past the timeout, or ending before its line,
 * is closed.
 */

import * as http from 'node:http';
import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Peeked,
  peekRequestLine,
  REQUEST_LINE_BYTES_MAX,
  requestLineOf,
} from './request-line.js';

describe('requestLineOf', () => {
  it('reads the method and target of a request line', () => {
    expect(requestLineOf(Buffer.from('GET /collections/c/1 HTTP/1.1\r\nHost: x\r\n'))).toEqual({
      method: 'GET',
      url: '/collections/c/1',
    });
    expect(requestLineOf(Buffer.from('POST /query?stream=true HTTP/1.0\r\n'))).toEqual({
      method: 'POST',
      url: '/query?stream=true',
    });
  });

  it('asks for more until the line ends, up to the limit', () => {
    expect(requestLineOf(Buffer.from(''))).toBe('more');
    expect(requestLineOf(Buffer.from('GET /collections/c/1 HTTP/1.1\r'))).toBe('more');
    const long = Buffer.from(`GET /${'a'.repeat(REQUEST_LINE_BYTES_MAX - 6)}`);
    expect(long.length).toBe(REQUEST_LINE_BYTES_MAX - 1);
    expect(requestLineOf(long)).toBe('more');
    expect(requestLineOf(Buffer.concat([long, Buffer.from('a')]))).toBeUndefined();
  });

  it('takes nothing else for a request line', () => {
    for (const text of [
      '\r\nGET / HTTP/1.1\r\n',
      'get / HTTP/1.1\r\n',
      'GET  / HTTP/1.1\r\n',
      'GET / HTTP/1.1\n',
      'GET /\r\n',
      'GET / HTTP/2\r\n',
      '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n',
    ]) {
      expect(requestLineOf(Buffer.from(text, 'latin1')), JSON.stringify(text)).toBeUndefined();
    }
  });
});

/** An HTTP server that echoes each request's method, URL, headers and body. */
function echoServer(): http.Server {
  return http.createServer({ keepAliveTimeout: 5_000 }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      response.setHeader('date', 'fixed');
      response.end(JSON.stringify({ method: request.method, url: request.url, body }));
    });
  });
}

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  for (const server of servers.splice(0)) {
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

/**
 * A listening socket that peeks each connection's request line (pauseOnConnect, as
 * readers.ts) and then hands it to `echo`, the bytes read put back; `seen` gets each peek.
 */
async function peekingServer(echo: http.Server, seen: Peeked[], timeoutMs = 5_000) {
  const front = net.createServer({ pauseOnConnect: true }, (socket) => {
    peekRequestLine(socket, timeoutMs, (peeked) => {
      seen.push(peeked);
      socket.unshift(peeked.head);
      echo.emit('connection', socket);
      socket.resume();
    });
  });
  return listen(front);
}

/**
 * Sends `parts` on a new connection, waiting `pauseMs` between them, and resolves with
 * every byte that comes back until the server closes the connection, or 2 s passed.
 */
function exchange(port: number, parts: string[], pauseMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    sockets.add(socket);
    setTimeout(() => socket.destroy(), 2_000).unref();
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.once('error', reject);
    socket.once('close', () => resolve(text));
    socket.once('connect', async () => {
      for (const part of parts) {
        socket.write(part);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}

describe('peekRequestLine', () => {
  const body = JSON.stringify({
    sql: 'SELECT * FROM c WHERE a = ?',
    params: ['x'.repeat(100_000)],
  });
  const post = `POST /query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  // Two requests on one kept-alive connection, the second closing it.
  const requests = [
    `GET /collections/c/1 HTTP/1.1\r\nHost: x\r\n\r\n`,
    `${post}${body.slice(0, 1000)}`,
    `${body.slice(1000)}`,
    'GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
  ];

  it('hands over a connection that its HTTP server answers as one never peeked', async () => {
    const direct = await listen(echoServer());
    const seen: Peeked[] = [];
    const peeked = await peekingServer(echoServer(), seen);
    const want = await exchange(direct, requests, 30);
    expect(want).toContain('"url":"/last"');
    expect(want.match(/HTTP\/1\.1 200/g)).toHaveLength(3);
    expect(await exchange(peeked, requests, 30)).toBe(want);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.line).toEqual({ method: 'GET', url: '/collections/c/1' });
  });

  it('reads on until the line ends when it comes in pieces', async () => {
    const seen: Peeked[] = [];
    const peeked = await peekingServer(echoServer(), seen);
    const parts = [
      'PO',
      'ST /query HT',
      'TP/1.1\r',
      `\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    ];
    const answer = await exchange(peeked, parts, 30);
    expect(answer).toContain('{"method":"POST","url":"/query","body":"{}"}');
    expect(seen[0]?.line).toEqual({ method: 'POST', url: '/query' });
  });

  it('hands over bytes that are no request line, unread, for the server to refuse', async () => {
    const seen: Peeked[] = [];
    const peeked = await peekingServer(echoServer(), seen);
    const answer = await exchange(peeked, ['HELLO\r\n\r\n']);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(seen[0]?.line).toBeUndefined();
  });

  it('closes a connection that sends nothing within the timeout, or ends before its line', async () => {
    const seen: Peeked[] = [];
    const peeked = await peekingServer(echoServer(), seen, 100);
    expect(await exchange(peeked, [])).toBe('');
    const ended = await new Promise<string>((resolve) => {
      const socket = net.connect(peeked, '127.0.0.1', () => socket.end('GET / HT'));
      sockets.add(socket);
      socket.once('error', () => {});
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
      });
      socket.once('close', () => resolve(text));
    });
    expect(ended).toBe('');
    expect(seen).toHaveLength(0);
  });
});

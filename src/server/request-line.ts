/**
 * Reads the request line of a connection's first request before any server takes the
 * connection, so that a node's first process can choose which process serves it (issue 25,
 * readers.ts). It reads no further than the end of that line (or REQUEST_LINE_BYTES_MAX
 * bytes), then stops reading, so the bytes read can be put back (`unshift`) or handed over
 * with the connection; it parses nothing but the line.
 */

import type * as net from 'node:net';

/** Bytes read at most while looking for the end of the request line. */
export const REQUEST_LINE_BYTES_MAX = 8 * 1024;

/** The method and target of a request line. */
export interface RequestLine {
  method: string;
  url: string;
}

/**
 * A request line as Node's parser takes it: a method of capitals, one space, a target without
 * spaces, one space, the version, CRLF. Anything else (leading empty lines included) is left
 * for the serving process to answer.
 */
const REQUEST_LINE = /^([A-Z]+) ([^ \r\n]+) HTTP\/\d\.\d\r$/;

/**
 * The request line at the start of `head`: `more` while its end has not arrived (and the bytes
 * are still within REQUEST_LINE_BYTES_MAX), undefined for bytes that are not a request line.
 */
export function requestLineOf(head: Buffer): RequestLine | 'more' | undefined {
  const end = head.indexOf(0x0a);
  if (end < 0) return head.length < REQUEST_LINE_BYTES_MAX ? 'more' : undefined;
  const match = REQUEST_LINE.exec(head.toString('latin1', 0, end));
  if (!match) return undefined;
  return { method: match[1] as string, url: match[2] as string };
}

/** What peekRequestLine read: every byte of it, and the request line when they hold one. */
export interface Peeked {
  head: Buffer;
  line: RequestLine | undefined;
}

/**
 * Reads `socket` (as `pauseOnConnect` hands it: paused, nothing read) until its first request
 * line ends, or REQUEST_LINE_BYTES_MAX bytes came, then calls `done` with the bytes read and
 * the socket paused and no longer read from: the caller puts the bytes back or passes them on.
 * A socket that sends no line within `timeoutMs` (the node's header timeout), or that ends or
 * fails before it does, is destroyed and `done` is not called.
 */
export function peekRequestLine(
  socket: net.Socket,
  timeoutMs: number,
  done: (peeked: Peeked) => void,
): void {
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
    const line = requestLineOf(head);
    if (line === 'more') return;
    stop();
    stopReading(socket);
    done({ head, line });
  };
  const onGone = () => {
    stop();
    socket.destroy();
  };
  const stop = () => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('end', onGone);
    socket.off('error', onGone);
  };
  socket.on('data', onData);
  socket.once('end', onGone);
  socket.once('error', onGone);
  // A socket paused on connect stays paused when a `data` listener comes: it is started here.
  socket.resume();
}

/**
 * Pauses `socket` and stops its handle reading. Pausing alone leaves the handle reading into
 * the stream's buffer (net.Socket stops it only once the buffer is full), and a handle sent to
 * another process drops what it reads in between: the rest of a request's body would be lost.
 * Node has no public call for it; `_handle.readStop` is what its own `pause` uses for sockets
 * read into a caller's buffer. `reading` false lets a later `resume` start it again.
 */
function stopReading(socket: net.Socket): void {
  socket.pause();
  const handle = (socket as unknown as { _handle?: { reading?: boolean; readStop?(): number } })
    ._handle;
  if (handle?.reading && handle.readStop) {
    handle.reading = false;
    handle.readStop();
  }
}

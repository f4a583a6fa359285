/**
 * What Node's HTTP parser refuses before Fastify sees a request: headers past Node's size
 * limit (431), a request not received whole within the request timeout (408), and bytes that
 * are not HTTP/1.1 (400). Each is answered with docdb's error body and a request id, then the
 * connection ends (the parser cannot go on after them), where Fastify's default answered
 * `{"error":"Bad Request","message":"Client Error"}` with no code, no id and no reason.
 */

import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type DbError, dbError } from '../errors/index.js';

/** An error of Node's HTTP parser (llhttp): its code and, for malformed bytes, its reason. */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The DbError a parser's refusal stands for. */
function refusalOf(error: ParserError, requestSeconds: number): DbError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return dbError('ERR_HEADERS_TOO_LARGE', 'tooLarge', { limit: maxHeaderSize });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return dbError('ERR_REQUEST_TIMEOUT', 'notReceived', { seconds: requestSeconds });
    default: {
      const reason = (error.reason ?? error.message).replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
      return dbError('ERR_BAD_REQUEST', 'notHttp', {
        reason: error.code ? `${reason} (${error.code})` : reason,
      });
    }
  }
}

/** The whole HTTP answer to a refused request, ready for the socket. */
export function clientErrorAnswer(
  error: ParserError,
  requestId: string,
  requestSeconds: number,
): string {
  const refusal = refusalOf(error, requestSeconds);
  const body = JSON.stringify({ error: refusal.message, code: refusal.code });
  return (
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** Fastify's `clientErrorHandler`: answers the refusal when the socket can still take it. */
export function clientErrorHandler(
  nextRequestId: () => string,
  requestSeconds: number,
): (error: ParserError, socket: Duplex) => void {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(error, nextRequestId(), requestSeconds));
  };
}

/**
 * NDJSON over a byte stream: one parsed value per line, as the chunks arrive, so a stream of
 * any length needs memory for one line only. Pure; it knows no HTTP, and runs in a browser
 * too (bytes as Uint8Array, not Node's Buffer).
 */

import { type DbError, dbError } from '../errors/index.js';
// The limit itself, not util's index: that also holds file helpers a browser cannot load.
import { BODY_BYTES_MAX } from '../util/limits.js';

/**
 * The longest line taken, in bytes: a node's largest body, so any document a node can
 * store fits, and a stream that never ends a line cannot use unbounded memory.
 */
export const NDJSON_LINE_BYTES_MAX = BODY_BYTES_MAX;

const NEWLINE = 0x0a;

/** Decodes each whole line; a broken sequence reads as U+FFFD, as Buffer's toString does. */
const utf8 = new TextDecoder();

/**
 * Yields each line of `chunks` parsed as JSON; empty lines are skipped. `where` names the
 * source in errors. A line that is not JSON, or longer than `lineBytesMax`, throws
 * ERR_CLIENT_PROTOCOL.
 */
export async function* ndjsonValues(
  chunks: AsyncIterable<Uint8Array>,
  where: string,
  lineBytesMax = NDJSON_LINE_BYTES_MAX,
): AsyncGenerator<unknown, void, undefined> {
  // Bytes of the line not yet ended; decoded only whole, so a character split across two
  // chunks stays intact.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      const line = pendingBytes === 0 ? piece : concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      if (line.length > lineBytesMax) throw tooLong(where, lineBytesMax);
      if (line.length > 0) yield parseLine(line, where);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > lineBytesMax) throw tooLong(where, lineBytesMax);
    }
  }
  if (pendingBytes > 0) yield parseLine(concat(pending), where);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((bytes, part) => bytes + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

function parseLine(line: Uint8Array, where: string): unknown {
  const text = utf8.decode(line);
  try {
    return JSON.parse(text);
  } catch {
    throw dbError('ERR_CLIENT_PROTOCOL', 'lineNotJson', { where, text: text.slice(0, 200) });
  }
}

function tooLong(where: string, lineBytesMax: number): DbError {
  return dbError('ERR_CLIENT_PROTOCOL', 'lineTooLong', { where, limit: lineBytesMax });
}

/**
 * Proves the NDJSON splitter: lines cut anywhere across chunks (inside a multi-byte
 * character too) come out whole, empty lines are skipped, a last line without a newline
 * counts, and a line of exactly the limit passes while one byte past it, or a line that is
 * not JSON, is ERR_CLIENT_PROTOCOL.
 */

import { describe, expect, it } from 'vitest';
import { isDbError } from '../errors/index.js';
import { ndjsonValues } from './ndjson.js';

async function* chunksOf(...parts: Array<string | Buffer>): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.isBuffer(part) ? part : Buffer.from(part);
}

async function all(source: AsyncIterable<unknown>): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const value of source) values.push(value);
  return values;
}

async function failure(source: AsyncIterable<unknown>): Promise<unknown> {
  try {
    await all(source);
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('ndjsonValues', () => {
  it('joins lines cut across chunks, inside a character too', async () => {
    const text = Buffer.from('{"a":"é€"}\n\n{"b":2}\n[3]');
    const cuts = [1, 7, 8, 9, 12];
    const parts = [0, ...cuts].map((start, i) => text.subarray(start, cuts[i] ?? text.length));
    expect(await all(ndjsonValues(chunksOf(...parts), 'test'))).toEqual([
      { a: 'é€' },
      { b: 2 },
      [3],
    ]);
  });

  it('takes a line of exactly the limit, refuses one byte more', async () => {
    const line = `"${'x'.repeat(8)}"`; // 10 bytes
    expect(await all(ndjsonValues(chunksOf(`${line}\n`), 'test', 10))).toEqual(['xxxxxxxx']);
    const longer = `"${'x'.repeat(9)}"`;
    const ended = await failure(ndjsonValues(chunksOf(`${longer}\n`), 'test', 10));
    expect(isDbError(ended, 'ERR_CLIENT_PROTOCOL')).toBe(true);
    // A line that never ends is refused as soon as it passes the limit.
    const open = await failure(ndjsonValues(chunksOf('"xxxxx', 'xxxxxx'), 'test', 10));
    expect((open as Error).message).toContain('longer than 10 bytes');
  });

  it('refuses a line that is not JSON, naming the source', async () => {
    const error = await failure(ndjsonValues(chunksOf('{"a":1}\nnope\n'), 'http://x/query'));
    expect(isDbError(error, 'ERR_CLIENT_PROTOCOL')).toBe(true);
    expect((error as Error).message).toContain('http://x/query');
  });
});

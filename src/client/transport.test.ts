/**
 * Proves how a transport words an answer too large for one JavaScript string: a client error
 * that says to stream it, asked once (a lost connection is asked again; this answer would only
 * arrive again).
 */

import { describe, expect, it } from 'vitest';
import { type Call, type OpenAnswer, Transport } from './transport.js';

/** A transport whose every answer arrives and is too large for a string, as V8 reports it. */
class TooLargeAnswers extends Transport {
  opened = 0;

  async open(_call: Call): Promise<OpenAnswer> {
    this.opened++;
    return {
      status: 200,
      headers: {},
      body: {
        async *[Symbol.asyncIterator]() {},
        destroy() {},
        text: () => Promise.reject(new RangeError('Invalid string length')),
      },
      settle() {},
    };
  }

  async close(): Promise<void> {}
}

describe('an answer larger than a string holds', () => {
  it('is ERR_CLIENT_PROTOCOL naming the stream, not a lost connection asked again', async () => {
    const transport = new TooLargeAnswers('http://127.0.0.1:1', { retries: 2 });
    await expect(transport.json({ method: 'GET', path: '/collections/t' })).rejects.toMatchObject({
      code: 'ERR_CLIENT_PROTOCOL',
      message: expect.stringContaining('read it as a stream'),
    });
    expect(transport.opened).toBe(1);
  });
});

/**
 * Framing: any chunking of a stream of frames (split inside the header, inside the body,
 * several frames in one chunk) decodes to the same messages in order; an oversize frame and
 * bytes that are not MessagePack are refused with ERR_REPLICATION_PROTOCOL.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder } from './frames.js';

/** Splits `bytes` at the given cut points. */
function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let start = 0;
  for (const point of points) {
    out.push(bytes.subarray(start, point));
    start = point;
  }
  out.push(bytes.subarray(start));
  return out;
}

const message = fc.record({
  t: fc.constantFrom('ack', 'entries', 'heartbeat'),
  seq: fc.nat(),
  text: fc.string(),
  blob: fc.uint8Array({ maxLength: 300 }),
  list: fc.array(fc.integer(), { maxLength: 20 }),
});

describe('frames', () => {
  it('decodes every message of a stream whatever its chunking', () => {
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 10 }),
        fc.array(fc.nat()),
        (messages, cuts) => {
          const stream = Buffer.concat(messages.map((m) => encodeFrame(m)));
          const decoder = new FrameDecoder();
          const got: unknown[] = [];
          for (const chunk of chunks(stream, cuts)) got.push(...decoder.push(chunk));
          expect(got.map(normalize)).toEqual(messages.map(normalize));
          expect(decoder.bufferedBytes).toBe(0);
        },
      ),
    );
  });

  it('gives coalesced frames one by one, in order', () => {
    const decoder = new FrameDecoder();
    const both = Buffer.concat([
      encodeFrame({ t: 'ack', seq: 1 }),
      encodeFrame({ t: 'ack', seq: 2 }),
    ]);
    expect(decoder.push(both)).toEqual([
      { t: 'ack', seq: 1 },
      { t: 'ack', seq: 2 },
    ]);
  });

  it('waits for the rest of a frame split in its header', () => {
    const decoder = new FrameDecoder();
    const frame = encodeFrame({ t: 'ack', seq: 7 });
    expect(decoder.push(frame.subarray(0, 2))).toEqual([]);
    expect(decoder.push(frame.subarray(2, 6))).toEqual([]);
    expect(decoder.push(frame.subarray(6))).toEqual([{ t: 'ack', seq: 7 }]);
  });

  it('refuses a frame that announces more than the limit, before reading it', () => {
    const decoder = new FrameDecoder(1024);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(1025, 0);
    expect(() => decoder.push(header)).toThrow(/announces 1025 bytes, more than the limit of 1024/);
  });

  it('refuses bytes that are not MessagePack', () => {
    const decoder = new FrameDecoder();
    const garbage = Buffer.from([0, 0, 0, 2, 0xc1, 0xc1]);
    expect(() => decoder.push(garbage)).toThrow(
      expect.objectContaining({ code: 'ERR_REPLICATION_PROTOCOL' }),
    );
  });

  it('refuses an HTTP request sent to the replication port', () => {
    const decoder = new FrameDecoder();
    expect(() => decoder.push(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))).toThrow(
      /does not speak this protocol/,
    );
  });
});

/** A message with its bytes as a plain array (a Buffer and a Uint8Array compare unequal). */
function normalize(m: unknown): unknown {
  const record = m as Record<string, unknown>;
  return { ...record, blob: [...(record.blob as Uint8Array)] };
}

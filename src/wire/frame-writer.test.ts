/**
 * The wire's writes (issue 25, the router's hop): the frames sent during one turn of the event
 * loop leave in one socket write, in order, once the turn's I/O is done; `flush` sends them at
 * once; a socket that ended or was destroyed drops them. A router connection's requests of one
 * turn go out so too.
 */

import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder } from '../replication/frames.js';
import { WireConnection } from './connection.js';
import { FrameWriter } from './frame-writer.js';

/** A socket that keeps what is written to it, one entry per write. */
function recordingSocket(): Duplex & { writes: Buffer[] } {
  const writes: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk);
      done();
    },
  });
  return Object.assign(socket, { writes });
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('FrameWriter', () => {
  it('sends the frames of one turn in one write, in order', async () => {
    const socket = recordingSocket();
    const out = new FrameWriter(socket);
    for (let i = 1; i <= 3; i++) out.write(encodeFrame({ i }));
    expect(socket.writes).toHaveLength(0);
    await nextTurn();
    expect(socket.writes).toHaveLength(1);
    expect(new FrameDecoder().push(socket.writes[0] as Buffer)).toEqual([
      { i: 1 },
      { i: 2 },
      { i: 3 },
    ]);
    out.write(encodeFrame({ i: 4 }));
    await nextTurn();
    expect(socket.writes).toHaveLength(2);
  });

  it('sends at once on flush, and nothing after the socket ended', async () => {
    const socket = recordingSocket();
    const out = new FrameWriter(socket);
    out.write(encodeFrame({ i: 1 }));
    out.flush();
    expect(socket.writes).toHaveLength(1);
    socket.end();
    out.write(encodeFrame({ i: 2 }));
    await nextTurn();
    expect(socket.writes).toHaveLength(1);
  });
});

describe('a router connection', () => {
  it('sends the requests of one turn in one write', async () => {
    const socket = recordingSocket();
    const connection = new WireConnection(socket, 'http://node', Buffer.alloc(0), () => {});
    const timeout = () => new Error('timeout') as never;
    const calls = [1, 2, 3].map((n) =>
      connection.call('collections', `[${n}]`, 60_000, timeout).catch(() => undefined),
    );
    await nextTurn();
    expect(socket.writes).toHaveLength(1);
    const sent = new FrameDecoder().push(socket.writes[0] as Buffer) as { a: string }[];
    expect(sent.map((m) => m.a)).toEqual(['[1]', '[2]', '[3]']);
    connection.close();
    await Promise.all(calls);
  });
});

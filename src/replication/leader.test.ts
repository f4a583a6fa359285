/**
 * The leader's handshake against hand-made followers on a real socket: the right proof is
 * welcomed; a proof replayed from an earlier session, a wrong one and a missing one are refused
 * with a reason; another protocol version is refused naming both; garbage, an oversize frame
 * and an HTTP request close the connection; and the leader keeps serving followers after each.
 * It keeps the entries a connected follower has not acknowledged, up to four times the log's
 * byte bound.
 */

import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, open } from '../engine/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { encodeFrame } from './frames.js';
import { newNonce, proofOf } from './handshake.js';
import { ReplicationLeader } from './leader.js';
import { newCounters, SILENT_LOG } from './log.js';
import { Peer } from './peer.js';
import { type Message, type MessageOf, PROTOCOL_VERSION } from './protocol.js';

const SECRET = 'leader-secret';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function leader(changeLogRetainBytes?: number): Promise<{ port: number; db: Database }> {
  const { dir, cleanup } = makeTempDir('docdb-leader-');
  const db = await open(dir, changeLogRetainBytes ? { changeLogRetainBytes } : {});
  const server = await ReplicationLeader.listen({
    db,
    nodeName: 'L',
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    log: SILENT_LOG,
    counters: newCounters(),
    onHigherTerm: () => {},
  });
  cleanups.push(async () => {
    await server.close();
    await db.close();
    cleanup();
  });
  return { port: server.port, db };
}

async function connect(port: number): Promise<Peer> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const peer = new Peer(socket, 'leader');
  cleanups.push(() => peer.close());
  return peer;
}

function hello(nonce: Uint8Array, protocol = PROTOCOL_VERSION): Message {
  return { t: 'hello', protocol, node: 'F', seq: 0, lastTerm: 0, term: 1, nonce };
}

/** Runs a handshake with `answer` computing the proof from the leader's challenge. */
async function handshake(
  port: number,
  answer: (challenge: MessageOf<'challenge'>) => Uint8Array | undefined,
): Promise<Message> {
  const peer = await connect(port);
  await peer.send(hello(newNonce()));
  const challenge = (await peer.receive(['challenge'], 5000)) as MessageOf<'challenge'>;
  expect(challenge).toMatchObject({ node: 'L', term: 1, secret: true });
  const proof = answer(challenge);
  await peer.send({ t: 'auth', ...(proof && { proof }) });
  return peer.receive(['welcome', 'refused'], 5000);
}

/** True once the leader closed the connection. */
function closedBy(peer: Peer): Promise<boolean> {
  return new Promise((resolve) => peer.onEnd(() => resolve(true)));
}

describe('the leader handshake', () => {
  it('welcomes the right proof and refuses a replayed, wrong or missing one', async () => {
    const { port } = await leader();
    let earlier: Uint8Array | undefined;
    const welcome = await handshake(port, (challenge) => {
      earlier = proofOf(SECRET, 'follower', challenge.nonce);
      return earlier;
    });
    expect(welcome).toMatchObject({ t: 'welcome', node: 'L', catchUp: 'log' });
    const replayed = await handshake(port, () => earlier);
    expect(replayed).toMatchObject({ t: 'refused', code: 'ERR_REPLICATION_AUTH' });
    expect((replayed as MessageOf<'refused'>).reason).toContain('does not match');
    const wrong = await handshake(port, (c) => proofOf('guess', 'follower', c.nonce));
    expect(wrong).toMatchObject({ t: 'refused', code: 'ERR_REPLICATION_AUTH' });
    const missing = await handshake(port, () => undefined);
    expect((missing as MessageOf<'refused'>).reason).toContain('requires the replication secret');
    const reflected = await handshake(port, (c) => proofOf(SECRET, 'leader', c.nonce));
    expect(reflected).toMatchObject({ t: 'refused' });
  });

  it('proves itself over the follower nonce', async () => {
    const { port } = await leader();
    const peer = await connect(port);
    const nonce = newNonce();
    await peer.send(hello(nonce));
    const challenge = (await peer.receive(['challenge'], 5000)) as MessageOf<'challenge'>;
    await peer.send({ t: 'auth', proof: proofOf(SECRET, 'follower', challenge.nonce) });
    const welcome = (await peer.receive(['welcome'], 5000)) as MessageOf<'welcome'>;
    expect(Buffer.from(welcome.proof as Uint8Array)).toEqual(proofOf(SECRET, 'leader', nonce));
  });

  it('refuses another protocol version, naming both', async () => {
    const { port } = await leader();
    const peer = await connect(port);
    await peer.send(hello(newNonce(), 9));
    const refused = (await peer.receive(['refused'], 5000)) as MessageOf<'refused'>;
    expect(refused.reason).toBe(
      `this leader speaks replication protocol ${PROTOCOL_VERSION}; the follower speaks 9`,
    );
  });

  it('closes on garbage, an oversize frame or HTTP, and keeps serving', async () => {
    const { port } = await leader();
    const payloads = [
      Buffer.from([0, 0, 0, 3, 0xc1, 0xc1, 0xc1]),
      Buffer.from([0xff, 0xff, 0xff, 0xff]),
      Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      encodeFrame({ t: 'ack', seq: 1 }),
    ];
    for (const payload of payloads) {
      const peer = await connect(port);
      const closed = closedBy(peer);
      peer.socket.write(payload);
      expect(await closed).toBe(true);
    }
    const welcome = await handshake(port, (c) => proofOf(SECRET, 'follower', c.nonce));
    expect(welcome.t).toBe('welcome');
  });

  it('keeps what a connected follower has not acknowledged, within four times the bound', async () => {
    const bound = 64 * 1024;
    const { port, db } = await leader(bound);
    const welcome = await handshake(port, (c) => proofOf(SECRET, 'follower', c.nonce));
    expect(welcome.t).toBe('welcome');
    // The follower never acknowledges: its hold stays at seq 0.
    const text = 'x'.repeat(1000);
    const write = async (count: number) => {
      for (let i = 0; i < count; i++) await db.collection('c').insert({ i, text });
    };
    await write(150);
    expect(db.nodeState().seqFloor).toBe(0);
    await write(300);
    expect(db.nodeState().seqFloor).toBeGreaterThan(0);
  });
});

/**
 * The leader's handshake against hand-made followers on a real socket: the right proof is
 * welcomed; a proof replayed from an earlier session, a wrong one and a missing one are refused
 * with a reason; another protocol version (a version-1 and a version-2 hello too) is refused
 * naming both; it streams the bytes its log stores, after the shared structures they need;
 * garbage, an oversize frame and an HTTP request close the connection; and the leader keeps
 * serving followers after each. A newer term fences it only from a node that proved the
 * secret, and a promoted node's notice is answered and fences it with where the new leader
 * is. A follower that watches it is written to the lease record before its welcome, armed by
 * the heartbeats, and renews the lease with echoed stamps. Only entries a session sent and
 * the follower acknowledged count for syncFollowers. It keeps the entries a connected
 * follower has not acknowledged, up to four times the log's byte bound.
 */

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { open } from '../engine/index.js';
import { readPeerEntry } from '../storage/index.js';
import { encodeFrame } from './frames.js';
import { newNonce, proofOf } from './handshake.js';
import { type NoticeFrom, ReplicationLeader } from './leader.js';
import { LEASE_FILE, Lease } from './lease.js';
import { newCounters, SILENT_LOG } from './log.js';
import { Peer } from './peer.js';
import { type Message, type MessageOf, PROTOCOL_VERSION } from './protocol.js';

const SECRET = 'leader-secret';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function leader(changeLogRetainBytes?: number) {
  const { dir, cleanup } = makeTempDir('docdb-leader-');
  const db = await open(dir, changeLogRetainBytes ? { changeLogRetainBytes } : {});
  const fenced: Array<{ term: number; by: string; notice?: NoticeFrom }> = [];
  const lease = new Lease(dir);
  const server = await ReplicationLeader.listen({
    storage: db.store,
    nodeName: 'L',
    host: '127.0.0.1',
    port: 0,
    secret: SECRET,
    log: SILENT_LOG,
    counters: newCounters(),
    lease,
    onHigherTerm: (term, by, notice) => fenced.push({ term, by, ...(notice && { notice }) }),
  });
  cleanups.push(async () => {
    await server.close();
    await db.close();
    cleanup();
  });
  return { port: server.port, db, server, lease, fenced, dir };
}

async function connect(port: number): Promise<Peer> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const peer = new Peer(socket, 'leader');
  cleanups.push(() => peer.close());
  return peer;
}

function hello(
  nonce: Uint8Array,
  protocol = PROTOCOL_VERSION,
  more: Partial<MessageOf<'hello'>> = {},
): Message {
  return {
    t: 'hello',
    protocol,
    node: 'F',
    seq: 0,
    runs: [],
    term: 1,
    tag: 7,
    silenceMs: 0,
    nonce,
    ...more,
  };
}

/** Runs a handshake with `answer` computing the proof from the leader's challenge. */
async function handshake(
  port: number,
  answer: (challenge: MessageOf<'challenge'>) => Uint8Array | undefined,
  more: Partial<MessageOf<'hello'>> = {},
): Promise<Message> {
  const { reply } = await session(port, answer, more);
  return reply;
}

/** A handshake that keeps its connection, for what comes after the welcome. */
async function session(
  port: number,
  answer: (challenge: MessageOf<'challenge'>) => Uint8Array | undefined,
  more: Partial<MessageOf<'hello'>> = {},
): Promise<{ peer: Peer; reply: Message }> {
  const peer = await connect(port);
  await peer.send(hello(newNonce(), PROTOCOL_VERSION, more));
  const challenge = (await peer.receive(['challenge'], 5000)) as MessageOf<'challenge'>;
  expect(challenge).toMatchObject({ node: 'L', term: 1, secret: true });
  const proof = answer(challenge);
  await peer.send({ t: 'auth', ...(proof && { proof }) });
  return { peer, reply: await peer.receive(['welcome', 'refused', 'noticed'], 5000) };
}

const right = (c: MessageOf<'challenge'>) => proofOf(SECRET, 'follower', c.nonce);

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
      `this leader speaks replication protocol ${PROTOCOL_VERSION}; the follower speaks 9: run the same docdb version on both`,
    );
    // A follower of version 1 says a hello without this version's fields: refused the same way.
    const old = await connect(port);
    await old.send({
      t: 'hello',
      protocol: 1,
      node: 'F',
      seq: 0,
      lastTerm: 0,
      term: 1,
      nonce: newNonce(),
    } as unknown as Message);
    const refusedOld = (await old.receive(['refused'], 5000)) as MessageOf<'refused'>;
    expect(refusedOld).toMatchObject({ code: 'ERR_REPLICATION_PROTOCOL' });
    expect(refusedOld.reason).toContain('the follower speaks 1');
    // Version 2 had this version's hello, but sent entries in another form: refused too.
    expect(PROTOCOL_VERSION).toBe(3);
    const two = await connect(port);
    await two.send(hello(newNonce(), 2));
    const refusedTwo = (await two.receive(['refused'], 5000)) as MessageOf<'refused'>;
    expect(refusedTwo).toMatchObject({ code: 'ERR_REPLICATION_PROTOCOL' });
    expect(refusedTwo.reason).toBe(
      'this leader speaks replication protocol 3; the follower speaks 2: run the same docdb version on both',
    );
  });

  it('streams the bytes its log stores, after the shared structures their documents need', async () => {
    const { port, db } = await leader();
    await db.collection('c').insertMany([
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ]);
    const { peer, reply } = await session(port, right);
    expect(reply).toMatchObject({ t: 'welcome', catchUp: 'log' });
    // Heartbeats come between; everything else comes in this order.
    const next = async <T extends Message['t']>(type: T): Promise<MessageOf<T>> => {
      for (;;) {
        const message = await peer.receive(undefined, 5000);
        if (message.t === 'heartbeat') continue;
        expect(message.t).toBe(type);
        return message as MessageOf<T>;
      }
    };
    const structures = await next('structures');
    expect(structures).toEqual({ t: 'structures', from: 0, structures: [['a', 'b']] });
    const first = await next('entries');
    const stored = [...db.store.storedChangesAfter(0)].map((e) => Buffer.from(e.bytes));
    expect(first.entries.map((e) => Buffer.from(e))).toEqual(stored);
    // A new shape: only the structure it adds goes before the entry that uses it.
    await db.collection('c').insert({ c: true });
    expect(await next('structures')).toEqual({ t: 'structures', from: 1, structures: [['c']] });
    const second = await next('entries');
    expect(second.entries).toHaveLength(1);
    expect(readPeerEntry(second.entries[0] as Uint8Array).entry).toMatchObject({ seq: 2 });
  });

  it('is fenced by a newer term only from a node that proved the secret', async () => {
    const { port, fenced } = await leader();
    const wrong = await handshake(port, (c) => proofOf('guess', 'follower', c.nonce), { term: 99 });
    expect(wrong).toMatchObject({ t: 'refused', code: 'ERR_REPLICATION_AUTH' });
    expect(fenced).toEqual([]);
    const newer = await handshake(port, right, { term: 99 });
    expect(newer).toMatchObject({ t: 'refused', code: 'ERR_REPLICATION_STALE_LEADER' });
    expect(fenced).toMatchObject([{ term: 99 }]);
    expect(fenced[0]?.notice).toBeUndefined();
  });

  it("answers a promoted node's notice with its term and proof, and is fenced by a newer one", async () => {
    const { port, fenced } = await leader();
    const nonce = newNonce();
    const peer = await connect(port);
    const notice = { port: 4321, httpUrl: 'http://127.0.0.1:4000', silenceMs: 2000 };
    await peer.send(hello(nonce, PROTOCOL_VERSION, { term: 99, notice }));
    const challenge = (await peer.receive(['challenge'], 5000)) as MessageOf<'challenge'>;
    await peer.send({ t: 'auth', proof: right(challenge) });
    const noticed = (await peer.receive(['noticed'], 5000)) as MessageOf<'noticed'>;
    expect(noticed).toMatchObject({ t: 'noticed', term: 1, fenced: true });
    expect(Buffer.from(noticed.proof as Uint8Array)).toEqual(proofOf(SECRET, 'leader', nonce));
    expect(fenced).toEqual([
      {
        term: 99,
        by: 'F (its notice)',
        notice: { address: '127.0.0.1:4321', httpUrl: 'http://127.0.0.1:4000', silenceMs: 2000 },
      },
    ]);
    // An advertised address stands; an older term is answered and fences nothing.
    const older = await handshake(port, right, {
      term: 0,
      notice: { ...notice, address: 'b.example:5500' },
    });
    expect(older).toMatchObject({ t: 'noticed', term: 1, fenced: false });
    expect(fenced).toHaveLength(1);
  });

  it('records a watching follower before its welcome, arms it, and takes its echoes as the lease', async () => {
    const { port, lease, dir } = await leader();
    expect(lease.view()).toEqual({ required: false, valid: true, holders: [] });
    const { peer, reply } = await session(port, right, { silenceMs: 4000 });
    expect(reply.t).toBe('welcome');
    expect(JSON.parse(fs.readFileSync(path.join(dir, LEASE_FILE), 'utf8'))).toEqual({
      holders: [{ name: 'F', silenceMs: 4000 }],
    });
    // Lapsed until the follower answers a heartbeat with its stamp.
    expect(lease.lapsed()?.message).toContain('has not heard from its auto-failover follower F');
    const beat = (await peer.receive(['heartbeat'], 5000)) as MessageOf<'heartbeat'>;
    expect(beat.held).toBe(true);
    await peer.send({ t: 'ack', seq: 0, silenceMs: 4000, echoMs: beat.stampMs });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lease.lapsed()).toBeUndefined();
    // 4 s of silence, a 1 s margin: the lease runs about 3 s from the heartbeat's stamp.
    const validForMs = lease.view().holders[0]?.validForMs ?? 0;
    expect(validForMs).toBeGreaterThan(2500);
    expect(validForMs).toBeLessThanOrEqual(3000);
    // The follower stops watching: released, and the record goes.
    await peer.send({ t: 'ack', seq: 0, silenceMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lease.view().required).toBe(false);
    expect(fs.existsSync(path.join(dir, LEASE_FILE))).toBe(false);
  });

  it('counts for syncFollowers only entries the session sent and the follower acknowledged', async () => {
    const { port, db, server } = await leader();
    for (let i = 0; i < 3; i++) await db.collection('c').insert({ i });
    const runs = [...db.store.termRuns()];
    const lastChain = db.store.chainAt(3);
    // A follower that holds seqs 1-3 (its history agrees) joins after them.
    const { peer, reply } = await session(port, right, {
      seq: 3,
      runs,
      ...(lastChain && { lastChain }),
    });
    expect(reply).toMatchObject({ t: 'welcome', catchUp: 'log' });
    await peer.send({ t: 'ack', seq: 3, silenceMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    // What it held when it joined does not count; what it applies from this session does.
    expect(server.ackedBy(3)).toBe(0);
    await db.collection('c').insert({ i: 3 });
    await peer.send({ t: 'ack', seq: 4, silenceMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.ackedBy(4)).toBe(1);
    expect(server.ackedBy(3)).toBe(0);
  });

  it('closes on garbage, an oversize frame or HTTP, and keeps serving', async () => {
    const { port } = await leader();
    const payloads = [
      Buffer.from([0, 0, 0, 3, 0xc1, 0xc1, 0xc1]),
      Buffer.from([0xff, 0xff, 0xff, 0xff]),
      Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'),
      encodeFrame({ t: 'ack', seq: 1, silenceMs: 0 }),
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

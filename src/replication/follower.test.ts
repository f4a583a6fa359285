/**
 * The follower against a scripted leader (a real socket speaking the protocol from this
 * test): entries apply in seq order only; a seq past the next one is a gap, counted, never
 * applied, and asked for again from the last applied seq; entries delivered twice change
 * nothing; the follower acknowledges what it applied; a leader of an older term is refused
 * before anything is taken from it; idle heartbeats keep the leader's contact time fresh and
 * are answered with acks that echo their stamp and carry the follower's silence; it is armed
 * only while the leader says it holds its lease; it answers probes with its hash-chain links,
 * draws a new term tag when told its own is taken, and tells the leader when it stops
 * watching on its way out. A leader of another protocol version (2) is refused, or refuses
 * it, with a reason naming both versions.
 */

import * as net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { type ChangeEntry, type Database, open } from '../engine/index.js';
import { encodeStoredEntry } from '../storage/index.js';
import { ReplicationFollower } from './follower.js';
import { newCounters, SILENT_LOG } from './log.js';
import { Peer } from './peer.js';
import { type Message, type MessageOf, PROTOCOL_VERSION } from './protocol.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function insert(seq: number, term = 1): ChangeEntry {
  const id = `0193a4f2-7c1e-7d3a-9b2e-${String(seq).padStart(12, '0')}`;
  return { op: 'insert', collection: 'c', documents: [{ id, doc: { seq } }], seq, term, atMs: 1 };
}

/** A leader played by the test: accepts one follower and hands its peer over. */
async function scriptedLeader(
  term: number,
  welcome: Partial<MessageOf<'welcome'>> = {},
  protocol = PROTOCOL_VERSION,
) {
  const server = net.createServer();
  const peers: Peer[] = [];
  const connected: Array<(peer: Peer) => void> = [];
  server.on('connection', (socket) => {
    const peer = new Peer(socket, 'follower');
    peers.push(peer);
    connected.shift()?.(peer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const peer of peers) peer.close();
        server.close(() => resolve());
      }),
  );
  return {
    port: (server.address() as net.AddressInfo).port,
    /**
     * Waits for the follower, plays the handshake (asking for its links at `probe` first,
     * when given), answers its hello.
     */
    async accept(probe?: number[]): Promise<{
      peer: Peer;
      hello: MessageOf<'hello'>;
      chains?: MessageOf<'chains'>;
    }> {
      const peer =
        peers.find((p) => p.open && !(p as { used?: boolean }).used) ??
        (await new Promise<Peer>((resolve) => connected.push(resolve)));
      (peer as { used?: boolean }).used = true;
      const hello = (await peer.receive(['hello'], 5000)) as MessageOf<'hello'>;
      await peer.send({
        t: 'challenge',
        protocol,
        node: 'scripted',
        term,
        tag: 5,
        nonce: new Uint8Array(32),
        secret: false,
      });
      await peer.receive(['auth'], 5000);
      let chains: MessageOf<'chains'> | undefined;
      if (probe) {
        await peer.send({ t: 'probe', seqs: probe });
        chains = (await peer.receive(['chains'], 5000)) as MessageOf<'chains'>;
      }
      await peer.send({
        t: 'welcome',
        node: 'scripted',
        term,
        lastSeq: 0,
        catchUp: 'log',
        ...welcome,
      });
      return { peer, hello, ...(chains && { chains }) };
    },
  };
}

async function follower(port: number, db?: Database, silence = { ms: 0 }) {
  const { dir, cleanup } = makeTempDir('docdb-follower-');
  const database = db ?? (await open(dir));
  const counters = newCounters();
  const f = new ReplicationFollower({
    storage: database.store,
    nodeName: 'f',
    host: '127.0.0.1',
    port,
    log: SILENT_LOG,
    counters,
    onLeaderUrl: () => {},
    silenceMs: () => silence.ms,
  });
  cleanups.push(async () => {
    await f.stop();
    await database.close();
    cleanup();
  });
  f.start();
  return { f, db: database, counters };
}

/** The next message of a type from the follower, skipping acks when asked for another. */
async function next<T extends Message['t']>(peer: Peer, type: T): Promise<MessageOf<T>> {
  for (;;) {
    const message = await peer.receive(undefined, 5000);
    if (message.t === type) return message as MessageOf<T>;
  }
}

/** Waits for the follower's acknowledgement of `seq` (earlier acks may come first). */
async function ackOf(peer: Peer, seq: number): Promise<void> {
  for (;;) {
    const ack = await next(peer, 'ack');
    expect(ack.seq).toBeLessThanOrEqual(seq);
    if (ack.seq === seq) return;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the follower', () => {
  it('applies in seq order only: a gap is counted and asked for again, duplicates change nothing', async () => {
    const leader = await scriptedLeader(1);
    const { f, db, counters } = await follower(leader.port);
    const { peer, hello } = await leader.accept();
    expect(hello).toMatchObject({ seq: 0, runs: [], term: 1, node: 'f', silenceMs: 0 });
    await next(peer, 'ack');
    await peer.send({
      t: 'entries',
      entries: [encodeStoredEntry(insert(1)), encodeStoredEntry(insert(3))],
    });
    expect(await next(peer, 'resend')).toEqual({ t: 'resend', after: 1 });
    await until(() => db.nodeState().lastSeq === 1, 'seq 1 applied');
    expect(f.status().gaps).toBe(1);
    expect(counters.gaps).toBe(1);
    // Seq 3 was never applied: only 1 is there.
    expect(db.collection('c').count()).toBe(1);
    // The leader sends again from 2, with 1 once more (a duplicate delivery).
    await peer.send({
      t: 'entries',
      entries: [1, 2, 3].map((seq) => encodeStoredEntry(insert(seq))),
    });
    await ackOf(peer, 3);
    expect(db.nodeState().lastSeq).toBe(3);
    expect(db.collection('c').count()).toBe(3);
    await peer.send({
      t: 'entries',
      entries: [encodeStoredEntry(insert(3)), encodeStoredEntry(insert(2))],
    });
    await peer.send({ t: 'entries', entries: [encodeStoredEntry(insert(4))] });
    await ackOf(peer, 4);
    expect(db.collection('c').count()).toBe(4);
    expect(f.status().gaps).toBe(1);
  });

  it('applies the entries of one write together', async () => {
    const leader = await scriptedLeader(1);
    const { db } = await follower(leader.port);
    const { peer } = await leader.accept();
    await next(peer, 'ack');
    const group = [insert(1), insert(2)].map((e) => ({ ...e, endSeq: 2 }));
    await peer.send({ t: 'entries', entries: [encodeStoredEntry(group[0] as ChangeEntry)] });
    // Half a write is held back until its last entry arrives.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(db.nodeState().lastSeq).toBe(0);
    await peer.send({ t: 'entries', entries: [encodeStoredEntry(group[1] as ChangeEntry)] });
    await ackOf(peer, 2);
  });

  it('speaks to a leader of its own protocol version only, naming both', async () => {
    // A leader of version 2 refuses the hello itself, in docdb 2's words.
    const server = net.createServer((socket) => {
      const peer = new Peer(socket, 'follower');
      (async () => {
        const hello = (await peer.receive(['hello'], 5000)) as MessageOf<'hello'>;
        await peer.finish({
          t: 'refused',
          code: 'ERR_REPLICATION_PROTOCOL',
          reason: `this leader speaks replication protocol 2; the follower speaks ${hello.protocol}: run the same docdb version on both`,
        });
      })().catch(() => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const first = await follower((server.address() as net.AddressInfo).port);
    await until(() => (first.f.status().lastError ?? '').includes('refused'), 'the refusal');
    expect(first.f.status().lastError).toContain(
      'refused this one: this leader speaks replication protocol 2; the follower speaks 3: run the same docdb version on both',
    );
    await first.f.stop();
    // A listener that answers with a challenge of another version is not spoken to further.
    const other = await scriptedLeader(1, {}, 2);
    const second = await follower(other.port);
    void other.accept().catch(() => {});
    await until(() => (second.f.status().lastError ?? '').includes('protocol'), 'the refusal');
    expect(second.f.status().lastError).toContain(
      'speaks replication protocol 2; this node speaks 3: run the same docdb version on both',
    );
    expect(second.db.nodeState().lastSeq).toBe(0);
  });

  it('refuses a leader of an older term before taking anything, once it has proved itself to it', async () => {
    const leader = await scriptedLeader(1);
    const { dir, cleanup } = makeTempDir('docdb-follower-');
    const db = await open(dir);
    await db.store.setTerm(3);
    cleanups.push(cleanup);
    const { f } = await follower(leader.port, db);
    // The stale leader gets the hello and the proof (so it can turn read-only), then the
    // follower hangs up: the welcome and whatever follows it are never read (sending them
    // may fail on the closed connection).
    const accepted = leader.accept().then(
      ({ hello }) => hello.term,
      () => 'cut',
    );
    await until(() => (f.status().lastError ?? '').includes('stale leader'), 'the refusal');
    expect([3, 'cut']).toContain(await accepted);
    expect(f.status().lastError).toContain("term 1, older than this node's term 3");
    expect(db.nodeState().lastSeq).toBe(0);
  });

  it('keeps the leader contact fresh from heartbeats, answers each with its echo, and is armed only while the leader holds its lease', async () => {
    const leader = await scriptedLeader(1);
    const silence = { ms: 3000 };
    const { f } = await follower(leader.port, undefined, silence);
    const { peer, hello } = await leader.accept();
    expect(hello.silenceMs).toBe(3000);
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 3000 });
    const before = f.lastContactMs;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(f.armed).toBe(false);
    await peer.send({
      t: 'heartbeat',
      seq: 7,
      term: 1,
      atMs: Date.now(),
      stampMs: 1234,
      held: true,
    });
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 3000, echoMs: 1234 });
    expect(f.lastContactMs).toBeGreaterThan(before);
    expect(f.armed).toBe(true);
    expect(f.status()).toMatchObject({ leaderSeq: 7, lagEntries: 7, connected: true });
    // The watch is off: the next ack says so, and a heartbeat without the lease disarms it.
    silence.ms = 0;
    await peer.send({
      t: 'heartbeat',
      seq: 7,
      term: 1,
      atMs: Date.now(),
      stampMs: 1300,
      held: false,
    });
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 0, echoMs: 1300 });
    expect(f.armed).toBe(false);
  });

  it('answers heartbeats during a snapshot load too, claiming no seq while its data is partial', async () => {
    const leader = await scriptedLeader(1, { catchUp: 'snapshot', lastSeq: 5 });
    const { f } = await follower(leader.port, undefined, { ms: 2000 });
    const { peer } = await leader.accept();
    await peer.send({
      t: 'snapshot',
      seq: 5,
      term: 1,
      lastTerm: 1,
      runs: [{ term: 1, from: 1 }],
      collections: [{ name: 'c', indexes: [] }],
    });
    await peer.send({ t: 'heartbeat', seq: 5, term: 1, atMs: Date.now(), stampMs: 77, held: true });
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 2000, echoMs: 77 });
    expect(f.status().state).toBe('snapshot');
    await peer.send({ t: 'snapshotEnd', seq: 5 });
    await until(() => f.status().state === 'streaming', 'the load to finish');
    expect(await next(peer, 'ack')).toMatchObject({ seq: 5 });
  });

  it('answers probes with its links, and draws a new term tag when told its own is taken', async () => {
    const leader = await scriptedLeader(1, { tagTaken: true });
    const { dir, cleanup } = makeTempDir('docdb-follower-');
    cleanups.push(cleanup);
    const db = await open(dir);
    for (let i = 0; i < 3; i++) await db.collection('c').insert({ i });
    await db.store.setTermTag(5);
    const { f } = await follower(leader.port, db);
    const { peer, hello, chains } = await leader.accept([0, 2, 3, 9]);
    expect(hello).toMatchObject({ seq: 3, tag: 5, runs: [{ term: 1, from: 1 }] });
    expect(hello.lastChain).toBe(db.store.chainAt(3));
    expect(chains?.samples).toEqual([
      { seq: 0 },
      { seq: 2, chain: db.store.chainAt(2) },
      { seq: 3, chain: db.store.chainAt(3) },
      { seq: 9 },
    ]);
    await next(peer, 'ack');
    await until(() => db.store.termTag() !== 5, 'a new tag');
    expect(f.status().connected).toBe(true);
  });

  it('tells the leader at once when it starts or stops watching, without waiting for a heartbeat', async () => {
    const leader = await scriptedLeader(1);
    const silence = { ms: 0 };
    const { f } = await follower(leader.port, undefined, silence);
    const { peer } = await leader.accept();
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 0 });
    silence.ms = 1000;
    f.silenceChanged();
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 1000 });
    silence.ms = 0;
    f.silenceChanged();
    expect(await next(peer, 'ack')).toEqual({ t: 'ack', seq: 0, silenceMs: 0 });
  });

  it('tells the leader it no longer watches it when it stops on its way out', async () => {
    const leader = await scriptedLeader(1);
    const { f } = await follower(leader.port, undefined, { ms: 2000 });
    const { peer } = await leader.accept();
    await next(peer, 'ack');
    const goodbye = next(peer, 'ack');
    await f.stop({ release: true });
    expect(await goodbye).toMatchObject({ t: 'ack', silenceMs: 0 });
  });
});

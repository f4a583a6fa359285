/**
 * Proves how real `docdb serve` nodes recover and refuse: a fresh follower of a leader whose
 * log was trimmed catches up from one snapshot; a restarted follower catches up from the log
 * (no snapshot), and a follower reconnects by itself to a restarted leader; a wrong or missing
 * replication secret is refused with a reason and lets no data through, a matching one works,
 * and no node prints the secret; a node of a newer term fences a stale leader (read-only, 503),
 * which then follows the new leader and writes what it alone had to `rollback/`, counted in
 * its metrics; a promoted node's notice fences the leader it replaced at once, which with
 * --auto-rejoin follows it by itself; replication runs over TLS, where the replication port
 * answers a plain hello with no challenge.
 */

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, FrameDecoder, PROTOCOL_VERSION } from '../../src/replication/index.js';
import { termRound } from '../../src/replication/terms.js';
import { makeTempDir } from '../support/temp-dir.js';
import { selfSignedCert } from '../support/tls-cert.js';
import {
  call,
  caughtUp,
  type DocdbNode,
  dataOf,
  expectSameData,
  expectStatus,
  followerFlags,
  insert,
  leaderFlags,
  Nodes,
  post,
  status,
  stop,
  waitForStatus,
} from './replication-support.js';
import { freePort, stopAll, withTimeout } from './support.js';

let dir: string;
let nodes: Nodes;
let cleanup: () => void;

beforeAll(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-repl-recovery-'));
  nodes = new Nodes(dir);
});
afterEach(stopAll);
afterAll(() => cleanup());

/** Some documents and an index, so two nodes' data has something to differ in. */
async function someWrites(node: DocdbNode, from: number, count: number): Promise<void> {
  const docs = Array.from({ length: count }, (_, i) => ({
    n: from + i,
    tag: `t${(from + i) % 3}`,
  }));
  expect((await post(node, '/collections/items/bulk', docs)).status).toBe(200);
}

describe('catch-up', () => {
  it('sends a fresh follower one snapshot once the leader trimmed its log', async () => {
    const replicationPort = await freePort();
    // The leader keeps 1 MiB of change log (--change-log-retain-mib): with no follower
    // holding it, writes past that trim its oldest entries.
    const leader = await nodes.start('snap-leader', {
      args: [...leaderFlags(replicationPort), '--change-log-retain-mib', '1'],
    });
    await someWrites(leader, 0, 20);
    expectStatus(
      await post(leader, '/index', { collection: 'items', path: 'tag', name: 'by_tag' }),
      201,
    );
    const blob = 'b'.repeat(64 * 1024);
    let writes = 0;
    while ((await status(leader)).seqFloor === 0) {
      expect(writes++, 'writes before the log was trimmed').toBeLessThan(64);
      await insert(leader, 'blobs', { n: writes, blob });
    }
    expectStatus(
      await call(leader, '/collections/blobs', {
        method: 'DELETE',
        headers: { 'x-confirm': 'true' },
      }),
      200,
    );
    await someWrites(leader, 20, 10);
    expectStatus(await post(leader, '/admin/checkpoint'), 200);
    const trimmed = await status(leader);
    expect(trimmed.seqFloor).toBeGreaterThan(0);
    expect(trimmed.counters.snapshotsSent).toBe(0);

    const follower = await nodes.start('snap-follower', { args: followerFlags(replicationPort) });
    await expectSameData(leader, follower);
    const followed = await status(follower);
    // The follower's own log starts where the snapshot put it.
    expect(followed.seqFloor).toBeGreaterThanOrEqual(trimmed.lastSeq);
    expect(follower.proc.stdout()).toContain('catching up from a snapshot');
    expect((await status(leader)).counters.snapshotsSent).toBe(1);
    // Entries after the snapshot stream as usual.
    await someWrites(leader, 30, 5);
    await expectSameData(leader, follower);
    expect((await status(leader)).counters.snapshotsSent).toBe(1);
    expect(await dataOf(follower)).toMatchObject({ items: { count: 35 } });
  });

  it('catches a restarted follower up from the log; a follower reconnects to a restarted leader', async () => {
    const replicationPort = await freePort();
    const leader = await nodes.start('rs-leader', { args: leaderFlags(replicationPort) });
    const follower = await nodes.start('rs-follower', { args: followerFlags(replicationPort) });
    await someWrites(leader, 0, 10);
    await expectSameData(leader, follower);

    await stop(follower);
    await someWrites(leader, 10, 10);
    await insert(leader, 'other', { while: 'the follower was down' });
    const back = await nodes.restart(follower);
    await expectSameData(leader, back);
    expect(back.proc.stdout()).toContain('catching up from the log');
    expect((await status(leader)).counters.snapshotsSent).toBe(0);

    const before = (await status(back)).leader?.reconnects ?? 0;
    await stop(leader);
    await waitForStatus(back, 'it to notice the leader left', (s) => s.leader?.connected === false);
    const again = await nodes.restart(leader);
    await someWrites(again, 20, 10);
    const reconnected = await waitForStatus(back, 'it to reconnect', (s) => !!s.leader?.connected);
    expect(reconnected.leader?.reconnects).toBeGreaterThan(before);
    await expectSameData(again, back);
    expect(await dataOf(back)).toMatchObject({ items: { count: 30 }, other: { count: 1 } });
    expect((await status(again)).counters.snapshotsSent).toBe(0);
  });
});

/** What a plain TCP client that sends a hello hears back: the messages it could decode. */
async function plainHello(port: number): Promise<unknown[]> {
  const socket = net.connect({ host: '127.0.0.1', port });
  const decoder = new FrameDecoder();
  const messages: unknown[] = [];
  const heard = new Promise<unknown[]>((resolve) => {
    socket.on('connect', () => {
      const hello = {
        t: 'hello',
        protocol: PROTOCOL_VERSION,
        node: 'plain-probe',
        seq: 0,
        runs: [],
        term: 0,
        tag: 0,
        silenceMs: 0,
        nonce: randomBytes(16),
      };
      socket.write(encodeFrame(hello));
    });
    socket.on('data', (chunk: Buffer) => {
      try {
        messages.push(...decoder.push(chunk));
      } catch {
        // Not frames of this protocol (a TLS alert): nothing it could read.
      }
      if (messages.length > 0) socket.destroy();
    });
    socket.on('close', () => resolve(messages));
    socket.on('error', () => {});
  });
  return withTimeout(heard, 10_000, () => `no answer and no close from port ${port}`);
}

describe('the shared secret', () => {
  const SECRET = 'e2e-replication-secret-4f1c';
  const WRONG = 'e2e-wrong-secret-9a7d';

  it('refuses a wrong or missing secret with a reason, works with the right one, never prints it', async () => {
    const replicationPort = await freePort();
    const leader = await nodes.start('sec-leader', {
      args: [...leaderFlags(replicationPort), '--replication-secret', SECRET],
    });
    await someWrites(leader, 0, 10);
    const [wrong, missing, matching, byVariable] = await Promise.all([
      nodes.start('sec-wrong', {
        args: [...followerFlags(replicationPort), '--replication-secret', WRONG],
      }),
      nodes.start('sec-missing', { args: followerFlags(replicationPort) }),
      nodes.start('sec-matching', {
        args: [...followerFlags(replicationPort), '--replication-secret', SECRET],
      }),
      nodes.start('sec-variable', {
        args: followerFlags(replicationPort),
        env: { DOCDB_REPLICATION_SECRET: SECRET },
      }),
    ]);
    await expectSameData(leader, matching);
    await expectSameData(leader, byVariable);
    const refused = await waitForStatus(wrong, 'a refusal', (s) => !!s.leader?.lastError);
    expect(refused.leader?.lastError).toMatch(/secret does not match/);
    const unproven = await waitForStatus(missing, 'a refusal', (s) => !!s.leader?.lastError);
    expect(unproven.leader?.lastError).toMatch(/requires the replication secret/);
    for (const node of [wrong, missing]) {
      const s = await status(node);
      expect(s).toMatchObject({ lastSeq: 0, leader: { connected: false } });
      expect(await dataOf(node)).toEqual({});
    }
    // Only the two that proved the secret stay (a refused one shows while its handshake runs).
    await waitForStatus(
      leader,
      'two followers',
      (s) =>
        s.followers
          .map((f) => f.name)
          .sort()
          .join() === 'sec-matching,sec-variable',
    );
    // A plain connection is heard (this is what TLS changes below).
    expect(await plainHello(replicationPort)).toEqual([
      expect.objectContaining({ t: 'challenge', secret: true }),
    ]);
    for (const node of [leader, wrong, missing, matching, byVariable]) {
      const output = node.proc.stdout() + node.proc.stderr();
      expect(output, node.name).not.toContain(SECRET);
      expect(output, node.name).not.toContain(WRONG);
    }
  });
});

describe('terms', () => {
  it('fences a stale leader; it then follows the new one and rolls back what only it had', async () => {
    const [oldPort, newPort, nowhere] = [await freePort(), await freePort(), await freePort()];
    const oldLeader = await nodes.start('t-old', { args: leaderFlags(oldPort) });
    const follower = await nodes.start('t-new', { args: followerFlags(oldPort) });
    await someWrites(oldLeader, 0, 10);
    await expectSameData(oldLeader, follower);
    // The follower goes down; back, it follows an address where no leader answers, so once
    // promoted it cannot tell the old leader, which goes on taking writes it never gets.
    await stop(follower);
    const lost = await insert(oldLeader, 'items', { n: 'only on the old leader' });
    const promoted = await nodes.restart(follower, { args: followerFlags(nowhere) });
    const { term } = expectStatus<{ term: number }>(
      await post(promoted, '/replication/promote', { port: newPort }),
      200,
    );
    expect(termRound(term)).toBe(1);
    await someWrites(promoted, 10, 5);

    // A third node learns the new term from the new leader, then is pointed at the old one.
    const third = await nodes.start('t-third', { args: followerFlags(newPort) });
    await expectSameData(promoted, third);
    await stop(third);
    const misled = await nodes.restart(third, { args: followerFlags(oldPort) });
    const fenced = await waitForStatus(oldLeader, 'it to be fenced', (s) => s.fenced !== null);
    expect(fenced).toMatchObject({ role: 'leader', readOnly: true, term: 1, fenced: { term } });
    const refused = await post(oldLeader, '/collections/items', { n: 'refused' });
    expect(expectStatus(refused, 503)).toMatchObject({ code: 'ERR_NODE_READ_ONLY' });
    const explained = await waitForStatus(misled, 'a refusal', (s) => !!s.leader?.lastError);
    expect(explained.leader?.lastError).toMatch(
      new RegExp(`is in term 1, older than this node's term ${term} \\(round 1`),
    );
    expect(explained).toMatchObject({ term, lastSeq: (await status(promoted)).lastSeq });
    // Fenced, it cannot take writes again by itself.
    expect((await post(oldLeader, '/replication/read-write')).status).toBe(409);

    // It is read-only: it may follow the new leader without a restart.
    const following = await post(oldLeader, '/replication/start-follower', {
      host: '127.0.0.1',
      port: newPort,
    });
    expect(expectStatus(following, 200)).toMatchObject({ role: 'follower', replicationPort: null });
    await expectSameData(promoted, oldLeader);
    const rolledBack = await status(oldLeader);
    expect(rolledBack.term).toBe(term);
    expect(rolledBack.leader?.rollbacks).toHaveLength(1);
    expect(rolledBack.divergences).toBe(1);
    const metrics = (await call(oldLeader, '/metrics')).text;
    expect(metrics).toMatch(/^docdb_replication_divergences_total 1$/m);
    const rollbackDir = path.join(oldLeader.dataDir, 'rollback');
    const files = fs.readdirSync(rollbackDir);
    expect(files).toHaveLength(1);
    const lines = fs
      .readFileSync(path.join(rollbackDir, files[0] as string), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ rollback: { node: 't-old', entries: 1, after: 1 } });
    expect(JSON.stringify(lines.slice(1))).toContain(lost);
    expect(JSON.stringify(lines.slice(1))).toContain('only on the old leader');
    expect((await status(promoted)).counters.snapshotsSent).toBe(1);
  });

  it("fences the leader a promotion replaced by the new leader's notice; with --auto-rejoin it follows by itself", async () => {
    const [oldPort, newPort] = [await freePort(), await freePort()];
    const oldLeader = await nodes.start('n-old', {
      args: [...leaderFlags(oldPort), '--auto-rejoin'],
    });
    const follower = await nodes.start('n-new', {
      args: [
        ...followerFlags(oldPort),
        '--auto-failover-seconds',
        '2',
        '--auto-failover-new-port',
        String(newPort),
      ],
    });
    // A write is refused (503) from the follower's hello until its first ack renews the lease:
    // wait for the lease to hold before writing.
    await waitForStatus(follower, 'its watch to arm', (s) => s.autoFailover.armed);
    await waitForStatus(oldLeader, 'the lease to hold', (s) => s.lease?.valid === true);
    await someWrites(oldLeader, 0, 10);
    await expectSameData(oldLeader, follower);
    expect((await status(oldLeader)).lease).toMatchObject({
      required: true,
      valid: true,
      holders: [{ name: 'n-new', silenceSeconds: 2, marginMs: 500 }],
    });
    expect((await call(oldLeader, '/metrics')).text).toMatch(/^docdb_replication_lease_valid 1$/m);
    // Promoted by hand while the old leader still runs: its notice comes at once.
    const { term } = expectStatus<{ term: number }>(
      await post(follower, '/replication/promote', { port: newPort }),
      200,
    );
    const rejoined = await waitForStatus(
      oldLeader,
      'it to follow the new leader by itself',
      (s) => s.role === 'follower' && s.leader?.state === 'streaming',
    );
    expect(rejoined).toMatchObject({
      term,
      fenced: null,
      lease: null,
      leader: { leader: `127.0.0.1:${newPort}`, leaderName: 'n-new' },
      autoFailover: { enabled: true, silenceSeconds: 2, newLeaderPort: oldPort },
    });
    expect(oldLeader.proc.stdout()).toContain('follows the new leader at 127.0.0.1:');
    const refused = expectStatus<{ code: string; leader: string }>(
      await post(oldLeader, '/collections/items', { n: 'refused' }),
      503,
    );
    expect(refused).toMatchObject({ code: 'ERR_NODE_READ_ONLY', leader: follower.url });
    await someWrites(follower, 10, 5);
    await expectSameData(follower, oldLeader);
    await waitForStatus(follower, 'the lease of its new follower', (s) =>
      (s.lease?.holders ?? []).some((h) => h.name === 'n-old'),
    );
  });
});

describe('TLS', () => {
  const SECRET = 'e2e-tls-replication-secret';

  it('replicates over TLS with a secret; the replication port speaks only TLS', async () => {
    const certs = path.join(dir, 'certs');
    fs.mkdirSync(certs, { recursive: true });
    const { cert, key } = selfSignedCert(certs);
    const pem = path.join(certs, 'node.pem');
    fs.writeFileSync(pem, cert + key);
    const replicationPort = await freePort();
    const config = (name: string, replication: Record<string, unknown>) => ({
      nodeName: name,
      port: 1,
      dataDir: 'unused',
      security: { replicationSecret: SECRET, tls: { certPath: pem } },
      replication,
    });
    const [leader, follower] = await Promise.all([
      nodes.start('tls-leader', {
        ca: cert,
        config: config('tls-leader', { role: 'leader', port: replicationPort }),
      }),
      nodes.start('tls-follower', {
        ca: cert,
        config: config('tls-follower', {
          role: 'follower',
          leaderHost: '127.0.0.1',
          leaderPort: replicationPort,
        }),
      }),
    ]);
    expect(leader.url).toMatch(/^https:/);
    await someWrites(leader, 0, 10);
    await expectSameData(leader, follower);
    expect((await status(follower)).leader).toMatchObject({ connected: true, lastError: null });
    const refused = await post(follower, '/collections/items', { n: 1 });
    expect(expectStatus<{ leader: string }>(refused, 503).leader).toBe(leader.url);
    // A plain client's hello gets no challenge (let alone a welcome): the port wants TLS.
    expect(await plainHello(replicationPort)).toEqual([]);
    expect(await status(leader)).toMatchObject({ followerCount: 1 });
    await caughtUp(leader, follower);
    for (const node of [leader, follower]) {
      expect(node.proc.stdout() + node.proc.stderr()).not.toContain(SECRET);
    }
  });
});

/**
 * Proves every row of the spec's state table (§3) on real `docdb serve` processes: a single
 * node becomes a leader and a follower through flags, the config file, DOCDB_* variables and
 * the REST call, and the pair replicates; read-only refuses writes (503, /health says so)
 * until read-write; promote raises the term by one, takes writes and is followed on its new
 * port; auto-failover (by flags and by the REST call) promotes a follower once the killed
 * leader is silent and binds the new port (by default the old leader's), while a follower
 * whose watch was disabled stays a follower. Transitions that do not fit the role answer 409
 * with a message, and bad bodies 400 naming the field.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicationStatus } from '../../src/replication/index.js';
import { termRound } from '../../src/replication/terms.js';
import { makeTempDir } from '../support/temp-dir.js';
import {
  call,
  type DocdbNode,
  expectSameData,
  expectStatus,
  followerFlags,
  insert,
  kill,
  leaderFlags,
  listening,
  type NodeOptions,
  Nodes,
  post,
  status,
  waitForStatus,
} from './replication-support.js';
import { freePort, stopAll } from './support.js';

let nodes: Nodes;
let cleanup: () => void;

beforeAll(() => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir('docdb-e2e-repl-states-'));
  nodes = new Nodes(dir);
});
afterAll(async () => {
  await stopAll();
  cleanup();
});

/** A leader and its follower, reached one way. */
interface Pair {
  leader: DocdbNode;
  follower: DocdbNode;
  replicationPort: number;
}

describe('single node → leader and → follower, each way the spec offers', () => {
  type Way = 'flags' | 'file' | 'env' | 'rest';
  const pairs = {} as Record<Way, Pair>;
  let single: DocdbNode;

  beforeAll(async () => {
    const ports = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    const [flagsPort, filePort, envPort, restPort] = ports as [number, number, number, number];
    const startPair = async (
      way: Way,
      port: number,
      leader: NodeOptions,
      follower: NodeOptions,
    ) => {
      const [l, f] = await Promise.all([
        nodes.start(`${way}-leader`, leader),
        nodes.start(`${way}-follower`, follower),
      ]);
      pairs[way] = { leader: l, follower: f, replicationPort: port };
    };
    // The file's port and dataDir are required; the flags every node gets override them.
    const file = (replication: Record<string, unknown>): NodeOptions => ({
      config: { nodeName: 'from-file', port: 1, dataDir: 'unused', replication },
    });
    await Promise.all([
      startPair(
        'flags',
        flagsPort,
        { args: leaderFlags(flagsPort) },
        { args: followerFlags(flagsPort) },
      ),
      startPair(
        'file',
        filePort,
        file({ role: 'leader', port: filePort }),
        file({ role: 'follower', leaderHost: '127.0.0.1', leaderPort: filePort }),
      ),
      startPair(
        'env',
        envPort,
        { env: { DOCDB_REPLICATION_ROLE: 'leader', DOCDB_REPLICATION_PORT: String(envPort) } },
        {
          env: {
            DOCDB_REPLICATION_ROLE: 'follower',
            DOCDB_LEADER_HOST: '127.0.0.1',
            DOCDB_LEADER_PORT: String(envPort),
          },
        },
      ),
      startPair('rest', restPort, {}, {}),
      nodes.start('single').then((node) => {
        single = node;
      }),
    ]);
  });
  afterAll(stopAll);

  async function expectPairReplicates({ leader, follower, replicationPort }: Pair) {
    const leading = await status(leader);
    expect(leading).toMatchObject({ role: 'leader', readOnly: false, replicationPort });
    expect(await listening(replicationPort)).toBe(true);
    const following = await waitForStatus(follower, 'it to connect', (s) => !!s.leader?.connected);
    expect(following).toMatchObject({
      role: 'follower',
      replicationPort: null,
      leader: { leader: `127.0.0.1:${replicationPort}`, leaderName: leader.name },
    });
    await insert(leader, 'people', { name: 'Ada', via: leader.name });
    await expectSameData(leader, follower);
  }

  it('by flags (--replication-role, --replication-port, --leader-host, --leader-port)', async () => {
    expect(pairs.flags.leader.proc.startLine).toContain('replication=leader (flag)');
    expect(pairs.flags.follower.proc.startLine).toContain('replication=follower (flag)');
    await expectPairReplicates(pairs.flags);
  });

  it('by the config file (replication.role, port, leaderHost, leaderPort)', async () => {
    expect(pairs.file.leader.proc.startLine).toContain('replication=leader (file)');
    expect(pairs.file.follower.proc.startLine).toContain('replication=follower (file)');
    await expectPairReplicates(pairs.file);
  });

  it('by variables (DOCDB_REPLICATION_ROLE, _PORT, DOCDB_LEADER_HOST, _PORT)', async () => {
    expect(pairs.env.leader.proc.startLine).toContain('replication=leader (env)');
    expect(pairs.env.follower.proc.startLine).toContain('replication=follower (env)');
    await expectPairReplicates(pairs.env);
  });

  it('by POST /replication/start-leader and /replication/start-follower', async () => {
    const { leader, follower, replicationPort } = pairs.rest;
    expect((await status(leader)).role).toBe('none');
    const led = await post(leader, '/replication/start-leader', { port: replicationPort });
    expect(expectStatus(led, 200)).toMatchObject({ role: 'leader', replicationPort });
    const followed = await post(follower, '/replication/start-follower', {
      host: '127.0.0.1',
      port: replicationPort,
    });
    expect(expectStatus(followed, 200)).toMatchObject({
      role: 'follower',
      leader: { leader: `127.0.0.1:${replicationPort}` },
    });
    await expectPairReplicates(pairs.rest);
  });

  it('read-write → read-only → read-write: writes get 503 meanwhile, /health shows it', async () => {
    const { leader, follower } = pairs.flags;
    const health = async () =>
      expectStatus<{ readOnly: boolean }>(await call(leader, '/health'), 200);
    expect((await health()).readOnly).toBe(false);
    const readOnly = expectStatus(await post(leader, '/replication/read-only'), 200);
    expect(readOnly).toMatchObject({ role: 'leader', readOnly: true });
    expect((await health()).readOnly).toBe(true);
    const refused = await post(leader, '/collections/people', { name: 'refused' });
    expect(expectStatus(refused, 503)).toMatchObject({ code: 'ERR_NODE_READ_ONLY' });
    const sql = await post(leader, '/query', { sql: 'INSERT INTO people VALUES {"name": "x"}' });
    expect(expectStatus(sql, 503)).toMatchObject({ code: 'ERR_NODE_READ_ONLY' });
    // Reads still work while read-only.
    expect((await call(leader, '/collections/people?limit=10')).status).toBe(200);
    const readWrite = expectStatus(await post(leader, '/replication/read-write'), 200);
    expect(readWrite).toMatchObject({ role: 'leader', readOnly: false });
    expect((await health()).readOnly).toBe(false);
    await insert(leader, 'people', { name: 'after read-write' });
    await expectSameData(leader, follower);
    const names = (await call(follower, '/collections/people/by/name/refused')).json;
    expect(names).toMatchObject({ documents: [] });
  });

  it('answers 409 with a message to a transition that does not fit the role', async () => {
    const conflicts: Array<[DocdbNode, string, unknown, RegExp]> = [
      [single, '/replication/promote', { port: await freePort() }, /only a follower is promoted/],
      [
        single,
        '/replication/auto-failover/enable',
        { silenceSeconds: 1, newLeaderPort: 9 },
        /only a follower/,
      ],
      [
        pairs.flags.leader,
        '/replication/start-leader',
        { port: await freePort() },
        /already leads/,
      ],
      [pairs.flags.leader, '/replication/promote', { port: await freePort() }, /already leads/],
      // The role is checked before the body: a leader hears 409, not that a port is missing.
      [pairs.flags.leader, '/replication/promote', {}, /already leads/],
      [
        pairs.flags.follower,
        '/replication/read-write',
        {},
        /follower: it takes writes only once it leads/,
      ],
      [
        pairs.flags.leader,
        '/replication/start-follower',
        { host: '127.0.0.1', port: pairs.env.replicationPort },
        /turn it read-only first/,
      ],
      [
        pairs.flags.follower,
        '/replication/start-follower',
        { host: '127.0.0.1', port: pairs.env.replicationPort },
        /already follows/,
      ],
      [pairs.flags.follower, '/replication/start-leader', { port: await freePort() }, /promote/],
    ];
    for (const [node, route, body, message] of conflicts) {
      const answer = expectStatus<{ code: string; error: string }>(
        await post(node, route, body),
        409,
      );
      expect(answer.code, `${node.name} ${route}`).toBe('ERR_REPLICATION_STATE');
      expect(answer.error, `${node.name} ${route}`).toMatch(message);
    }
    // Nothing moved.
    expect(await status(single)).toMatchObject({ role: 'none', replicationPort: null });
    expect(await status(pairs.flags.leader)).toMatchObject({
      role: 'leader',
      replicationPort: pairs.flags.replicationPort,
    });
    expect((await status(pairs.flags.follower)).role).toBe('follower');
  });

  it('answers 400 naming the field of a bad body', async () => {
    const port = await freePort();
    const bad: Array<[string, unknown, RegExp]> = [
      ['/replication/start-leader', { port: 0 }, /'port'/],
      ['/replication/start-leader', { port: 70000 }, /'port'/],
      ['/replication/start-leader', {}, /missing field 'port'/],
      ['/replication/start-leader', { port, extra: true }, /unknown field 'extra'/],
      ['/replication/start-leader', { port, sharedSecret: '' }, /'sharedSecret'/],
      ['/replication/start-follower', { port }, /missing field 'host'/],
      ['/replication/start-follower', { host: 'http://x/', port }, /'host'/],
      ['/replication/start-follower', { host: '127.0.0.1', port: 'x' }, /'port'/],
      ['/replication/promote', { port: 0 }, /'port'/],
      [
        '/replication/auto-failover/enable',
        { silenceSeconds: 0, newLeaderPort: port },
        /'silenceSeconds'/,
      ],
      [
        '/replication/auto-failover/enable',
        { silenceSeconds: 1, newLeaderPort: 0 },
        /'newLeaderPort'/,
      ],
    ];
    for (const [route, body, field] of bad) {
      const answer = expectStatus<{ code: string; error: string }>(
        await post(single, route, body),
        400,
      );
      expect(answer.error, `${route} ${JSON.stringify(body)}`).toMatch(field);
    }
    // The replication port must differ from the HTTP port: 400 too.
    const same = await post(single, '/replication/start-leader', { port: single.port });
    expect(expectStatus<{ error: string }>(same, 400).error).toMatch(/differ from the HTTP port/);
    expect(await status(single)).toMatchObject({ role: 'none', replicationPort: null });
  });
});

describe('follower → leader', () => {
  afterEach(stopAll);

  it('by POST /replication/promote: a term of the next round, takes writes, followed on the new port', async () => {
    const replicationPort = await freePort();
    const leader = await nodes.start('p-leader', { args: leaderFlags(replicationPort) });
    const follower = await nodes.start('p-follower', { args: followerFlags(replicationPort) });
    await insert(leader, 'things', { n: 1 });
    await expectSameData(leader, follower);
    const before = await status(follower);
    const newPort = await freePort();
    const promoted = expectStatus(
      await post(follower, '/replication/promote', { port: newPort }),
      200,
    );
    expect(promoted).toMatchObject({
      role: 'leader',
      readOnly: false,
      replicationPort: newPort,
      leader: null,
    });
    const { term } = promoted as { term: number };
    expect(termRound(term)).toBe(termRound(before.term) + 1);
    await insert(follower, 'things', { n: 2 });
    const next = await nodes.start('p-next', { args: followerFlags(newPort) });
    await expectSameData(follower, next);
    expect((await status(next)).term).toBe(term);
    expect(await status(follower)).toMatchObject({
      followerCount: 1,
      followers: [{ name: 'p-next' }],
    });
  });

  it('by auto-failover (flags or POST enable) once the leader is killed; a disabled watch stays a follower', async () => {
    const [leaderPort, otherLeaderPort] = [await freePort(), await freePort()];
    const [flagsPort, restPort, unusedPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const watch = (leader: number, newPort?: number) => [
      ...followerFlags(leader),
      '--auto-failover-seconds',
      '1',
      ...(newPort === undefined ? [] : ['--auto-failover-new-port', String(newPort)]),
    ];
    // The follower that binds the old leader's port follows a leader of its own, so the
    // disabled follower never finds a new leader on its leader's port.
    const [leader, otherLeader] = await Promise.all([
      nodes.start('af-leader', { args: leaderFlags(leaderPort) }),
      nodes.start('af-other-leader', { args: leaderFlags(otherLeaderPort) }),
    ]);
    const [byFlags, byRest, byDefault, disabled] = await Promise.all([
      nodes.start('af-flags', { args: watch(leaderPort, flagsPort) }),
      nodes.start('af-rest', { args: followerFlags(leaderPort) }),
      nodes.start('af-default', { args: watch(otherLeaderPort) }),
      nodes.start('af-disabled', { args: watch(leaderPort, unusedPort) }),
    ]);
    expect((await status(byFlags)).autoFailover).toMatchObject({
      enabled: true,
      silenceSeconds: 1,
      newLeaderPort: flagsPort,
      state: 'watching',
    });
    expect((await status(byDefault)).autoFailover).toMatchObject({
      newLeaderPort: otherLeaderPort,
      state: 'watching',
    });
    expect((await status(byRest)).autoFailover).toMatchObject({ enabled: false, state: 'off' });
    const enabled = await post(byRest, '/replication/auto-failover/enable', {
      silenceSeconds: 1,
      newLeaderPort: restPort,
    });
    expect(expectStatus(enabled, 200)).toMatchObject({
      autoFailover: {
        enabled: true,
        silenceSeconds: 1,
        newLeaderPort: restPort,
        state: 'watching',
      },
    });
    const off = await post(disabled, '/replication/auto-failover/disable');
    expect(expectStatus(off, 200)).toMatchObject({
      role: 'follower',
      autoFailover: { enabled: false, state: 'off' },
    });
    // A leader refuses writes (503) from a watching follower's hello until that follower's
    // first ack renews its lease: wait for each lease to hold, from the watches still on.
    const holding = (names: string[]) => (s: ReplicationStatus) =>
      s.lease?.valid === true &&
      s.lease.holders
        .map((holder) => holder.name)
        .sort()
        .join() === names.join();
    await waitForStatus(leader, 'its lease to hold', holding(['af-flags', 'af-rest']));
    await waitForStatus(otherLeader, 'its lease to hold', holding(['af-default']));
    await insert(leader, 'things', { n: 1 });
    await insert(otherLeader, 'things', { n: 1 });
    for (const follower of [byFlags, byRest, disabled]) await expectSameData(leader, follower);
    await expectSameData(otherLeader, byDefault);
    // A watch arms once its leader holds its lease; a disabled one never does.
    for (const watcher of [byFlags, byRest, byDefault]) {
      await waitForStatus(watcher, 'its watch to arm', (s) => s.autoFailover.armed);
    }
    expect((await status(disabled)).autoFailover.armed).toBe(false);
    const { term } = await status(leader);

    await Promise.all([kill(leader), kill(otherLeader)]);
    const killedAt = Date.now();
    for (const [node, port] of [
      [byFlags, flagsPort],
      [byRest, restPort],
      [byDefault, otherLeaderPort],
    ] as const) {
      const promoted = await waitForStatus(
        node,
        'auto-failover to promote it',
        (s) => s.role === 'leader',
      );
      expect(promoted).toMatchObject({
        readOnly: false,
        replicationPort: port,
        autoFailover: { state: 'promoted' },
      });
      expect(termRound(promoted.term)).toBe(termRound(term) + 1);
      expect(await listening(port)).toBe(true);
      await insert(node, 'things', { n: 2, by: node.name });
    }
    // The disabled follower: still a follower, with its watch off, 3 s after its leader died
    // (three times the silence that promoted the others).
    while (Date.now() - killedAt < 3000) {
      expect(await status(disabled)).toMatchObject({
        role: 'follower',
        autoFailover: { enabled: false, state: 'off' },
        leader: { connected: false },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await listening(unusedPort)).toBe(false);
    expect(expectStatus(await post(disabled, '/collections/things', { n: 3 }), 503)).toMatchObject({
      code: 'ERR_NODE_READ_ONLY',
    });
  }, 60_000);
});

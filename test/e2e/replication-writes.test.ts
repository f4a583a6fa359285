/**
 * Proves, with real `docdb serve` processes, that every write path reaches a follower and
 * leaves it with the leader's data (documents with their _ids, index definitions and states,
 * counts): REST insert, bulk (plain, atomic, skipIndexes then rebuild), by-key and by-_id
 * PUT and DELETE, SQL INSERT/UPDATE/DELETE/CREATE INDEX/DROP INDEX, POST /index, both index
 * rebuilds, a dropped collection and POST /seed. A follower answers each client write with
 * 503 naming the leader's HTTP URL; the leader's /metrics counts entries sent and a lag per
 * follower. With --sync-followers 1 a write returns once the follower has it, and without a
 * follower it answers 503 ERR_REPLICATION_TIMEOUT saying it is committed on the leader.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import {
  call,
  caughtUp,
  type DocdbNode,
  dataOf,
  documents,
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
import { freePort, type Response, stopAll } from './support.js';

let nodes: Nodes;
let cleanup: () => void;

beforeAll(() => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir('docdb-e2e-repl-writes-'));
  nodes = new Nodes(dir);
});
afterAll(async () => {
  await stopAll();
  cleanup();
});

/** Expects a 2xx answer (200 or 201, as each write path gives) and answers its JSON body. */
function expectOk<T = Record<string, unknown>>(response: Response): T {
  expect([200, 201], `${response.status} ${response.text}`).toContain(response.status);
  return response.json as T;
}

function put(node: DocdbNode, route: string, body: unknown) {
  return call(node, route, { method: 'PUT', body });
}

function del(node: DocdbNode, route: string, headers: Record<string, string> = {}) {
  return call(node, route, { method: 'DELETE', headers });
}

function sql(node: DocdbNode, text: string) {
  return post(node, '/query', { sql: text });
}

describe('a leader and a follower', () => {
  let leader: DocdbNode;
  let follower: DocdbNode;

  beforeAll(async () => {
    const replicationPort = await freePort();
    [leader, follower] = await Promise.all([
      nodes.start('w-leader', { args: leaderFlags(replicationPort) }),
      nodes.start('w-follower', { args: followerFlags(replicationPort) }),
    ]);
  });
  afterAll(stopAll);

  it('replicates every write path; the follower then has the same data', async () => {
    // REST insert and bulk inserts: plain, atomic, and atomic with a failure (nothing written).
    const ada = await insert(leader, 'people', { name: 'Ada', age: 36, tags: ['math'] });
    const bulk = await post(leader, '/collections/people/bulk', [
      { name: 'Bob', age: 41 },
      { name: 'Cy', age: 29 },
      { name: 'Di', age: 52 },
    ]);
    expect(expectOk(bulk)).toMatchObject({ errors: [] });
    const atomic = await post(leader, '/collections/people/bulk?atomic=true', [
      { name: 'Ed', age: 33 },
      { name: 'Flo', age: 47 },
    ]);
    expect(expectOk<{ ids: string[] }>(atomic).ids).toHaveLength(2);
    // Index creation: POST /index (plain and unique) and SQL CREATE INDEX, then DROP INDEX.
    expectOk(await post(leader, '/index', { collection: 'people', path: 'age', name: 'by_age' }));
    const unique = { collection: 'people', path: 'name', name: 'by_name', unique: true };
    expectOk(await post(leader, '/index', unique));
    const refusedAtomic = await post(leader, '/collections/people/bulk?atomic=true', [
      { name: 'Gus', age: 60 },
      { name: 'Ada', age: 1 },
    ]);
    expect(refusedAtomic.status).toBeGreaterThanOrEqual(400);
    expectOk(await sql(leader, 'CREATE INDEX by_tag ON people (tags[*])'));
    expectOk(await sql(leader, 'CREATE INDEX doomed ON people (age, name)'));
    expectOk(await sql(leader, 'DROP INDEX doomed ON people'));
    // By key and by _id: replace and delete.
    expectOk(await put(leader, '/collections/people/by/name/Bob', { name: 'Bob', age: 42 }));
    expectOk(await del(leader, '/collections/people/by/name/Cy'));
    expectOk(
      await put(leader, `/collections/people/${ada}`, {
        name: 'Ada',
        age: 37,
        tags: ['math', 'engines'],
      }),
    );
    const doomed = await insert(leader, 'people', { name: 'Hal', age: 9 });
    expectOk(await del(leader, `/collections/people/${doomed}`));
    // SQL writes.
    expectOk(await sql(leader, 'INSERT INTO people VALUES {"name": "Ivy", "age": 24}'));
    expectOk(await sql(leader, 'UPDATE people SET senior = true WHERE age >= 45'));
    expectOk(await sql(leader, "DELETE FROM people WHERE name = 'Di'"));
    // A cold load without index maintenance: the index goes stale on both, then rebuilt.
    await insert(leader, 'cold', { k: 0 });
    expectOk(await post(leader, '/index', { collection: 'cold', path: 'k', name: 'cold_k' }));
    const cold = Array.from({ length: 50 }, (_, k) => ({ k: k + 1, pad: 'x'.repeat(k) }));
    expectOk(await post(leader, '/collections/cold/bulk?skipIndexes=true', cold));
    await expectSameData(leader, follower);
    const stale = expectStatus<Array<{ name: string; state: string }>>(
      await call(follower, '/indexes/cold'),
      200,
    );
    expect(stale).toEqual([expect.objectContaining({ name: 'cold_k', state: 'stale' })]);
    expectOk(await post(leader, '/admin/rebuild-indexes/cold'));
    expectOk(await post(leader, '/admin/rebuild-index/people/by_age'));
    // A dropped collection, and the demo data set.
    await insert(leader, 'scratch', { gone: true });
    expectOk(await del(leader, '/collections/scratch', { 'x-confirm': 'true' }));
    expectOk(await post(leader, '/seed', { orders: 200 }));

    await expectSameData(leader, follower);
    const data = await dataOf(follower);
    expect(Object.keys(data).sort()).toEqual(['cold', 'orders', 'people']);
    expect(data.orders).toMatchObject({ count: 200 });
    expect(data.cold).toMatchObject({ count: 51, indexes: [{ name: 'cold_k', state: 'ready' }] });
    const people = (await documents(follower, 'people')) as Array<{ name: string }>;
    expect(people.map((p) => p.name).sort()).toEqual(['Ada', 'Bob', 'Ed', 'Flo', 'Ivy']);
    // The follower answers an indexed query with the replicated index.
    const query = await sql(follower, 'SELECT * FROM people WHERE age = 37');
    expect(query.headers['x-docdb-plan']).toBe('INDEX_SCAN(by_age)');
    expect(expectOk(query)).toMatchObject({ documents: [{ _id: ada, name: 'Ada' }] });
  });

  it('answers client writes on the follower with 503 naming the leader', async () => {
    const [someone] = (await documents(follower, 'people')) as Array<{ _id: string }>;
    const id = someone?._id as string;
    const writes: Array<[string, () => ReturnType<typeof call>]> = [
      ['insert', () => post(follower, '/collections/people', { name: 'Zed' })],
      ['bulk', () => post(follower, '/collections/people/bulk', [{ name: 'Zed' }])],
      ['put by key', () => put(follower, '/collections/people/by/name/Bob', { name: 'B' })],
      ['delete by key', () => del(follower, '/collections/people/by/name/Bob')],
      ['put by _id', () => put(follower, `/collections/people/${id}`, { name: 'Q' })],
      ['delete by _id', () => del(follower, `/collections/people/${id}`)],
      ['sql insert', () => sql(follower, 'INSERT INTO people VALUES {"name": "Zed"}')],
      ['sql update', () => sql(follower, 'UPDATE people SET age = 0')],
      ['sql delete', () => sql(follower, 'DELETE FROM people')],
      ['sql create index', () => sql(follower, 'CREATE INDEX z ON people (z)')],
      ['post index', () => post(follower, '/index', { collection: 'people', path: 'z' })],
      ['drop', () => del(follower, '/collections/people', { 'x-confirm': 'true' })],
      ['seed', () => post(follower, '/seed', { orders: 1 })],
    ];
    for (const [what, write] of writes) {
      const answer = expectStatus<{ code: string; error: string; leader: string }>(
        await write(),
        503,
      );
      expect(answer.code, what).toBe('ERR_NODE_READ_ONLY');
      expect(answer.error, what).toContain(leader.url);
      expect(answer.leader, what).toBe(leader.url);
    }
    await expectSameData(leader, follower);
  });

  it("shows the entries sent and each follower's lag in the leader's /metrics", async () => {
    await caughtUp(leader, follower);
    const metrics = (await call(leader, '/metrics')).text;
    const sent = /^docdb_replication_entries_sent_total (\d+)$/m.exec(metrics);
    expect(Number(sent?.[1])).toBeGreaterThan(0);
    expect(metrics).toMatch(/^docdb_replication_lag_entries\{peer="w-follower"\} 0$/m);
    expect(metrics).toMatch(/^docdb_replication_lag_seconds\{peer="w-follower"\} 0$/m);
  });
});

describe('--sync-followers 1', () => {
  afterEach(stopAll);

  it('returns a write once the follower has it, and answers 503 without a follower', async () => {
    const replicationPort = await freePort();
    const leader = await nodes.start('sync-leader', {
      args: [
        ...leaderFlags(replicationPort),
        '--sync-followers',
        '1',
        '--sync-timeout-seconds',
        '1',
      ],
    });
    const follower = await nodes.start('sync-follower', { args: followerFlags(replicationPort) });
    await waitForStatus(leader, 'the follower to join', (s) =>
      s.followers.some((f) => f.state === 'streaming'),
    );
    expect((await status(leader)).syncFollowers).toBe(1);
    for (let n = 1; n <= 5; n++) {
      const id = await insert(leader, 'events', { n });
      // The follower has it the moment the leader answered.
      const read = await call(follower, `/collections/events/${id}`);
      expect(expectStatus(read, 200)).toMatchObject({ _id: id, n });
    }
    await stop(follower);
    await waitForStatus(leader, 'the follower to leave', (s) => s.followerCount === 0);
    const started = Date.now();
    const answer = await post(leader, '/collections/events', { n: 6, tag: 'alone' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const body = expectStatus<{ code: string; error: string; committedLocally: boolean }>(
      answer,
      503,
    );
    expect(body.code).toBe('ERR_REPLICATION_TIMEOUT');
    expect(body.error).toMatch(/committed on this node/);
    expect(body.committedLocally).toBe(true);
    const onLeader = await call(leader, '/collections/events/by/tag/alone');
    expect(expectStatus(onLeader, 200)).toMatchObject({ documents: [{ n: 6, tag: 'alone' }] });
    // The follower gets it when it comes back.
    const back = await nodes.restart(follower);
    await expectSameData(leader, back);
  });
});

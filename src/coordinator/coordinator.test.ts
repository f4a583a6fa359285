/**
 * Proves leadership by an etcd lease against a real etcd (one per file, on free loopback
 * ports): an unreachable or silent etcd fails fast naming the URL; of three concurrent
 * campaigners exactly one wins; terms are etcd revisions × 2^24 + the tag and strictly
 * increase across elections; members lists live members; the election loop elects the most
 * caught-up member; resign hands over to the named member; observeLeader follows it all.
 */

import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startEtcd, type TestEtcd } from '../../test/support/etcd.js';
import { NetProxy } from '../../test/support/net-proxy.js';
import { DbError } from '../errors/index.js';
import { TERM_TAGS } from '../util/index.js';
import {
  Coordinator,
  type LeaderInfo,
  type Leadership,
  type LeaseTiming,
  type MemberIdentity,
} from './index.js';

let etcd: TestEtcd;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

const FAST: Partial<LeaseTiming> = {
  ttlSeconds: 2,
  marginMs: 1000,
  callTimeoutMs: 500,
  publishIntervalMs: 50,
  settleMs: 200,
};

const identity = (name: string, tag: number): MemberIdentity => ({
  name,
  url: `http://127.0.0.1:1${tag}`,
  replication: `127.0.0.1:2${tag}`,
  tag,
});

/** Resolves once `check` is true, polling; fails after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function refusal(work: Promise<unknown>): Promise<DbError> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(DbError);
    return error as DbError;
  }
  throw new Error('expected a refusal');
}

describe('opening a coordinator', () => {
  it('loads etcd3 only when a coordinator is opened, not when the module is imported', () => {
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('/etcd3/'));
      const { Coordinator } = await import(${JSON.stringify(new URL('./index.ts', import.meta.url).pathname)});
      const before = loaded();
      await Coordinator.open('etcd://127.0.0.1:1', { callTimeoutMs: 200 }).catch(() => {});
      console.log(JSON.stringify({ before, after: loaded() }));`;
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ before: false, after: true });
  });

  it('fails with ERR_COORDINATOR_UNREACHABLE naming the URL when nothing listens', async () => {
    const url = `etcd://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const error = await refusal(Coordinator.open(url, FAST));
    expect(error.code).toBe('ERR_COORDINATOR_UNREACHABLE');
    expect(error.message).toContain(`the coordinator ${url} did not complete a status request`);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('does not hang on an etcd that accepts connections and never answers', async () => {
    const proxy = new NetProxy(etcd.clientPort);
    await proxy.listen();
    proxy.blackhole();
    try {
      const started = Date.now();
      const error = await refusal(Coordinator.open(`etcd://127.0.0.1:${proxy.port}`, FAST));
      expect(error.code).toBe('ERR_COORDINATOR_UNREACHABLE');
      expect(error.message).toContain('no answer within 500 ms');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a bad URL before connecting', async () => {
    const error = await refusal(Coordinator.open('http://127.0.0.1:2379', FAST));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('the scheme is http://');
  });
});

describe('campaigns', () => {
  it('refuses a set name, member name or tag that cannot go into etcd', async () => {
    const node = await Coordinator.open(etcd.url, FAST);
    try {
      const start = { term: 0, seq: 0 };
      const cases: Array<[string, MemberIdentity, string]> = [
        ['a/b', identity('n', 1), 'a replica set name is 1 to 64 letters'],
        ['set', identity('../x', 1), 'a member name is 1 to 64 letters'],
        [
          'set',
          { ...identity('n', 1), tag: TERM_TAGS },
          `a term tag is an integer below ${TERM_TAGS}`,
        ],
        ['set', { ...identity('n', 1), url: '' }, 'member n needs its url address'],
      ];
      for (const [set, who, what] of cases) {
        const error = await refusal(node.join(set, who, start));
        expect(error.code).toBe('ERR_BAD_ARGUMENT');
        expect(error.message).toContain(what);
      }
      expect(await node.members('set')).toEqual([]);
    } finally {
      await node.close();
    }
  });

  it('elects exactly one of three concurrent campaigners, and gives it the term of its put', async () => {
    const nodes = await Promise.all([1, 2, 3].map(() => Coordinator.open(etcd.url, FAST)));
    try {
      const members = await Promise.all(
        nodes.map((node, i) => node.join('race', identity(`n${i}`, 100 + i), { term: 0, seq: 0 })),
      );
      const results = await Promise.all(members.map((member) => member.campaign()));
      const winners = results.filter((won): won is Leadership => won !== undefined);
      expect(winners).toHaveLength(1);
      const [won] = winners as [Leadership];
      expect(won.canAcknowledge()).toBe(true);
      expect(won.term).toBe(won.revision * TERM_TAGS + won.identity.tag);
      const leader = await nodes[0]?.leader('race');
      expect(leader).toMatchObject({ name: won.identity.name, term: won.term, set: 'race' });
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });

  it('makes terms that strictly increase across elections, whoever wins', async () => {
    const nodes = await Promise.all([1, 2].map(() => Coordinator.open(etcd.url, FAST)));
    try {
      const [a, b] = await Promise.all(
        nodes.map((node, i) => node.join('terms', identity(`t${i}`, 7 - i), { term: 0, seq: 0 })),
      );
      const terms: number[] = [];
      for (const member of [a, b, a, b, b]) {
        const won = await member?.campaign();
        if (won === undefined) throw new Error('the leader key was not free');
        terms.push(won.term);
        expect(await won.resign()).toBe(true);
        expect(won.canAcknowledge()).toBe(false);
      }
      for (let i = 1; i < terms.length; i += 1) {
        expect(terms[i]).toBeGreaterThan(terms[i - 1] as number);
      }
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });

  it('lists live members with their positions, and forgets one that leaves', async () => {
    const nodes = await Promise.all([1, 2].map(() => Coordinator.open(etcd.url, FAST)));
    try {
      const [a, b] = await Promise.all(
        nodes.map((node, i) => node.join('listed', identity(`l${i}`, i), { term: 5, seq: i })),
      );
      a?.report({ term: 6, seq: 40 });
      const reader = nodes[0] as Coordinator;
      let listed = await reader.members('listed');
      const deadline = Date.now() + 5000;
      while (!listed.some((member) => member.seq === 40) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        listed = await reader.members('listed');
      }
      expect(listed.map(({ name, term, seq }) => ({ name, term, seq }))).toEqual([
        { name: 'l0', term: 6, seq: 40 },
        { name: 'l1', term: 5, seq: 1 },
      ]);
      await b?.leave();
      expect((await reader.members('listed')).map((m) => m.name)).toEqual(['l0']);
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });
});

describe('the election loop', () => {
  it('elects the most caught-up member, hands over to a named one, and is observed', async () => {
    const nodes = await Promise.all([1, 2, 3].map(() => Coordinator.open(etcd.url, FAST)));
    const seen: Array<LeaderInfo | undefined> = [];
    const observer = await nodes[0]?.observeLeader('loop', (leader) => seen.push(leader));
    try {
      const positions = [10, 15, 12];
      const members = await Promise.all(
        nodes.map((node, i) =>
          node.join('loop', identity(`m${i}`, 20 + i), { term: 3, seq: positions[i] as number }),
        ),
      );
      const elected: string[] = [];
      const leaderships: Leadership[] = [];
      for (const member of members) {
        await member.startElections({
          onElected: (leadership) => {
            elected.push(leadership.identity.name);
            leaderships.push(leadership);
          },
        });
      }
      await until(() => elected.length === 1);
      // Give the others time to (wrongly) win too.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(elected).toEqual(['m1']);

      const first = leaderships[0] as Leadership;
      expect(await first.resign('m2')).toBe(true);
      await until(() => elected.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(elected).toEqual(['m1', 'm2']);
      const second = leaderships[1] as Leadership;
      expect(second.term).toBeGreaterThan(first.term);
      expect(second.canAcknowledge()).toBe(true);

      await until(() => seen.at(-1)?.name === 'm2');
      const names = seen.map((leader) => leader?.name ?? 'none');
      expect(names[0]).toBe('none');
      expect(names.slice(1)).toEqual(['m1', 'none', 'm2']);
      expect(seen.at(-1)?.term).toBe(second.term);
    } finally {
      await observer?.close();
      await Promise.all(nodes.map((node) => node.close()));
    }
  });
});

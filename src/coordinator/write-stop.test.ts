/**
 * Proves the write-stop against a real etcd: a leader whose lease renewals cannot reach etcd
 * (a blackholed link through a proxy, or a hung etcd) reports `lost` and stops acknowledging
 * by its local deadline, and before etcd expires the lease: another member, campaigning
 * without pause over a healthy link, wins only after the first stopped. Times are recorded
 * with one monotonic clock (both members live in this process). After the link heals, the
 * cut-off member's record and its observer's view of the leader come back.
 */

import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type TestEtcd } from '../../test/support/etcd.js';
import { NetProxy } from '../../test/support/net-proxy.js';
import { Coordinator, type Leadership, type LeadershipLost, type LeaseTiming } from './index.js';

const TTL_MS = 2000;
const MARGIN_MS = 1000;
const TIMING: Partial<LeaseTiming> = {
  ttlSeconds: TTL_MS / 1000,
  marginMs: MARGIN_MS,
  callTimeoutMs: 500,
  publishIntervalMs: 50,
  settleMs: 100,
};

let etcd: TestEtcd;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

const identity = (name: string, tag: number) => ({
  name,
  url: `http://127.0.0.1:1${tag}`,
  replication: `127.0.0.1:2${tag}`,
  tag,
});

/** Resolves once `check` resolves true, polling; fails after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs = 4 * TTL_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Samples `leadership.canAcknowledge()` every few ms: when it was last true, when first false. */
function sampleAcknowledging(leadership: Leadership): {
  lastTrueAt: () => number;
  firstFalseAt: () => number | undefined;
  stop: () => void;
} {
  let lastTrue = performance.now();
  let firstFalse: number | undefined;
  const timer = setInterval(() => {
    const now = performance.now();
    if (leadership.canAcknowledge()) {
      expect(firstFalse, 'canAcknowledge came back after it went false').toBeUndefined();
      lastTrue = now;
    } else {
      firstFalse ??= now;
    }
  }, 2);
  return {
    lastTrueAt: () => lastTrue,
    firstFalseAt: () => firstFalse,
    stop: () => clearInterval(timer),
  };
}

describe('the write-stop', () => {
  it('stops a leader cut off from etcd before another member can win', async () => {
    const proxy = new NetProxy(etcd.clientPort);
    await proxy.listen();
    const cut = await Coordinator.open(`etcd://127.0.0.1:${proxy.port}`, TIMING);
    const healthy = await Coordinator.open(etcd.url, TIMING);
    try {
      const a = await cut.join('cut', identity('a', 1), { term: 0, seq: 0 });
      const b = await healthy.join('cut', identity('b', 2), { term: 0, seq: 0 });
      const leader = await a.campaign();
      if (leader === undefined) throw new Error('a did not win an uncontested election');
      // An observer behind the same link (as a router would be) sees b once the link heals.
      let observed: string | undefined;
      const observation = await cut.observeLeader('cut', (now) => {
        observed = now?.name;
      });
      let lost: (LeadershipLost & { at: number }) | undefined;
      leader.onLost((event) => {
        lost = { ...event, at: performance.now() };
      });
      const sampler = sampleAcknowledging(leader);

      // Renewals go through for a while, then the link drops every byte.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(leader.canAcknowledge()).toBe(true);
      const cutAt = performance.now();
      proxy.blackhole();

      // b campaigns without pause; the time each winning attempt started bounds when it led.
      let won: { leadership: Leadership; startedAt: number; at: number } | undefined;
      while (won === undefined && performance.now() - cutAt < 4 * TTL_MS) {
        const startedAt = performance.now();
        const leadership = await b.campaign();
        if (leadership) won = { leadership, startedAt, at: performance.now() };
        else await new Promise((resolve) => setTimeout(resolve, 10));
      }
      sampler.stop();
      if (won === undefined) throw new Error('b never won after a lost its link');
      const stoppedAt = sampler.firstFalseAt();
      if (stoppedAt === undefined || lost === undefined) throw new Error('a never stopped');

      // a stopped, and said so, before b's winning campaign even started.
      expect(stoppedAt).toBeLessThan(won.startedAt);
      expect(lost.at).toBeLessThan(won.startedAt);
      expect(sampler.lastTrueAt()).toBeLessThan(won.startedAt);
      expect(leader.canAcknowledge()).toBe(false);
      expect(lost.reason).toContain('was not renewed within its TTL');
      // a stopped no later than TTL − margin after its last renewal (sent before the cut)…
      expect(stoppedAt - cutAt).toBeLessThanOrEqual(TTL_MS - MARGIN_MS + 50);
      // …and b needed the whole lease to run out on etcd.
      expect(won.at - cutAt).toBeGreaterThan(TTL_MS - MARGIN_MS);
      expect(won.leadership.term).toBeGreaterThan(leader.term);

      // a's member record lapsed with its own lease, and comes back once the link heals.
      const names = async () => (await healthy.members('cut')).map((member) => member.name);
      await until(async () => !(await names()).includes('a'));
      proxy.up();
      await until(async () => (await names()).includes('a'));
      await until(async () => observed === 'b');
      await observation.close();
      expect(await a.campaign()).toBeUndefined();
      expect(leader.canAcknowledge()).toBe(false);
      console.log(
        `write-stop: a stopped ${Math.round(stoppedAt - cutAt)} ms after the cut, b won ${Math.round(won.at - cutAt)} ms after it (lease ${TTL_MS} ms, margin ${MARGIN_MS} ms)`,
      );
    } finally {
      proxy.up();
      await Promise.all([cut.close(), healthy.close()]);
      await proxy.close();
    }
  });

  it('stops a leader whose etcd hangs, by its local deadline, and the lease is gone afterwards', async () => {
    const own = await startEtcd();
    const coordinator = await Coordinator.open(own.url, TIMING);
    try {
      const member = await coordinator.join('hung', identity('h', 3), { term: 0, seq: 0 });
      const leader = await member.campaign();
      if (leader === undefined) throw new Error('h did not win an uncontested election');
      const lost = new Promise<number>((resolve) =>
        leader.onLost(() => resolve(performance.now())),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const deadlineBefore = leader.validUntil;
      const pausedAt = performance.now();
      own.pause();
      const lostAt = await lost;
      expect(leader.canAcknowledge()).toBe(false);
      // The deadline was set by a renewal sent before the pause, so it is within TTL − margin.
      expect(leader.validUntil).toBeLessThanOrEqual(pausedAt + TTL_MS - MARGIN_MS);
      expect(leader.validUntil).toBeGreaterThanOrEqual(deadlineBefore);
      expect(lostAt).toBeGreaterThanOrEqual(leader.validUntil);
      expect(lostAt - leader.validUntil).toBeLessThan(100);
      own.resume();
      // Once etcd runs again, it expires the lease and the leader key with it.
      const deadline = performance.now() + 3 * TTL_MS;
      while ((await coordinator.leader('hung')) !== undefined) {
        if (performance.now() > deadline) throw new Error('the lapsed leader key stayed');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      own.resume();
      await coordinator.close();
      await own.stop();
    }
  });
});

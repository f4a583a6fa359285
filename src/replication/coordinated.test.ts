/**
 * Coordinated mode on real databases in one process, against a real etcd: a lone member wins
 * the election and leads in the won term (above its own), taking writes while its lease holds;
 * a member whose own term is above the one it won refuses to lead, resigns and says so, and
 * stays read-only; the transitions by request are refused while a coordinator decides; a
 * handover goes to the named follower or the one that applied most. The
 * cross-node behaviour (following, failover, handover, the write-stop) is proved with real
 * processes in test/e2e/coordinated.test.ts.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../test/e2e/support.js';
import { startEtcd, type TestEtcd } from '../../test/support/etcd.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { Coordinator } from '../coordinator/index.js';
import { type Database, open } from '../engine/index.js';
import { TERM_TAGS } from '../util/index.js';
import type { FollowerLink } from '../types/index.js';
import { handoverTarget } from './coordinated.js';
import { Replication } from './replication.js';

let etcd: TestEtcd;
beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await etcd?.stop();
});

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// A lease long enough that a loaded machine's pauses do not lapse it while a test looks.
const TIMING = { ttlSeconds: 6, marginMs: 1000, callTimeoutMs: 500, settleMs: 100 };

/** A coordinated node of set `set` on a fresh database, with what it logged. */
async function member(
  set: string,
  name: string,
  prepare?: (db: Database) => Promise<void>,
): Promise<{ db: Database; replication: Replication; logged: string[] }> {
  const { dir, cleanup } = makeTempDir(`docdb-coordinated-${name}-`);
  const db = await open(dir);
  await prepare?.(db);
  const logged: string[] = [];
  const log = (message: string) => logged.push(message);
  const replication = new Replication({
    port: { storage: db.store, gate: db.gate },
    nodeName: name,
    httpPort: 1,
    httpUrl: 'http://127.0.0.1:1',
    log: { info: log, warn: log, error: log },
  });
  cleanups.push(async () => {
    await replication.close();
    await db.close();
    cleanup();
  });
  const coordinator = await Coordinator.open(etcd.url, TIMING);
  await replication.startCoordinated({ coordinator, replicaSet: set, port: await freePort() });
  return { db, replication, logged };
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('coordinated mode', () => {
  it('leads in the won term once elected, and takes writes while the lease holds', async () => {
    const { db, replication, logged } = await member('alone', 'a');
    expect(replication.status()).toMatchObject({ role: 'none', readOnly: true });
    await until(() => replication.status().role === 'leader', 'the election');
    const status = replication.status();
    expect(status.readOnly).toBe(false);
    expect(status.coordinator).toMatchObject({
      url: etcd.url,
      replicaSet: 'alone',
      lease: { valid: true },
    });
    expect(status.term % TERM_TAGS).toBe(db.store.termTag());
    expect(logged.some((line) => line.includes('elected leader of replica set alone'))).toBe(true);
    await db.insert('items', { n: 1 });
    expect(replication.status().lastSeq).toBe(1);
  });

  it('refuses to lead in a won term not above its own, resigns and stays read-only', async () => {
    const highTerm = 1_000_000 * TERM_TAGS + 5;
    const { replication, logged } = await member('behind', 'b', async (db) => {
      await db.store.setTerm(highTerm);
    });
    await until(
      () => logged.some((line) => line.includes('refuses to lead')),
      'the refusal to lead',
    );
    const refusal = logged.find((line) => line.includes('refuses to lead')) as string;
    expect(refusal).toContain('elected leader of replica set behind, but refuses to lead');
    expect(refusal).toContain('is not above this node');
    expect(refusal).toContain('it resigns');
    const status = replication.status();
    expect(status).toMatchObject({ role: 'none', readOnly: true, term: highTerm });
    expect(status.coordinator?.lease).toBeNull();
  });

  it('refuses the transitions by request, naming the coordinator', async () => {
    const { replication } = await member('asked', 'c');
    const port = await freePort();
    const requests = [
      () => replication.startLeader({ port }),
      () => replication.startFollower({ host: '127.0.0.1', port }),
      () => replication.promote({ port }),
      () => replication.readOnly(),
      () => replication.readWrite(),
      () => replication.enableAutoFailover({ silenceSeconds: 5 }),
      () => replication.disableAutoFailover(),
    ];
    for (const request of requests) {
      await expect(request()).rejects.toMatchObject({
        code: 'ERR_REPLICATION_STATE',
        message: expect.stringContaining('takes its role from the coordinator (replica set asked)'),
      });
    }
  });
});

describe('the target of a handover', () => {
  const link = (name: string, acknowledgedSeq: number, state = 'streaming'): FollowerLink => ({
    name,
    address: '127.0.0.1:1',
    connectedAt: '2026-11-27T00:00:00.000Z',
    state: state as FollowerLink['state'],
    sentSeq: acknowledgedSeq,
    acknowledgedSeq,
    gaps: 0,
  });

  it('is the named follower, or else the streaming one that applied most, ties by name', () => {
    const followers = [link('c', 9), link('b', 12), link('a', 12), link('d', 20, 'snapshot')];
    expect(handoverTarget(followers, 'x', 'c')).toBe('c');
    expect(handoverTarget(followers, 'x', undefined)).toBe('a');
  });

  it('refuses itself, a member that does not stream from it, and an empty set of followers', () => {
    const followers = [link('b', 3), link('d', 20, 'snapshot')];
    expect(() => handoverTarget(followers, 'x', 'x')).toThrow('x is this node');
    expect(() => handoverTarget(followers, 'x', 'd')).toThrow(
      'd does not follow this leader now, so it cannot be handed the leadership; these follow it: b',
    );
    expect(() => handoverTarget([], 'x', undefined)).toThrow('no follower is connected');
  });
});

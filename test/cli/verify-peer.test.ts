/**
 * `docdb verify --peer` on real files: two nodes' change logs compared as a rejoin compares
 * them. A follower that is behind passes (exit 0) and says by how much; two histories that
 * parted fail (exit 1) naming the last seq they share and what each holds beyond it, whether
 * their terms tell them apart or only the hash chain does; a peer that cannot be opened is
 * named.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { type Database, open } from '../../src/engine/index.js';
import { runDocdb } from '../support/run-docdb.js';
import { makeTempDir } from '../support/temp-dir.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function node(changeLogRetainBytes?: number): Promise<{ dir: string; db: Database }> {
  const { dir, cleanup } = makeTempDir('docdb-verify-peer-');
  cleanups.push(cleanup);
  return { dir, db: await open(dir, changeLogRetainBytes ? { changeLogRetainBytes } : {}) };
}

/** Applies every entry of `from` after `after` to `to`, as a follower would. */
async function follow(from: Database, to: Database, after = to.nodeState().lastSeq) {
  for (const entry of from.changesSince(after)) await to.store.applyEntries([entry]);
}

describe('docdb verify --peer', () => {
  it('passes a follower that is behind, saying by how much', async () => {
    const leader = await node();
    const follower = await node();
    await leader.db.collection('c').insertMany([{ n: 1 }, { n: 2 }]);
    await leader.db.collection('c').insert({ n: 3 });
    await follow(leader.db, follower.db);
    await leader.db.collection('c').insert({ n: 4 });
    await leader.db.close();
    await follower.db.close();
    const json = runDocdb(['verify', leader.dir, '--peer', follower.dir, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      peer: {
        verdict: 'behind',
        sharedThrough: 2,
        lastSeq: 3,
        peerLastSeq: 2,
        foundBy: 'chain',
        message: `the logs agree through seq 2; ${follower.dir} is 1 entries behind`,
      },
    });
    const text = runDocdb(['verify', follower.dir, '--peer', follower.dir]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('peer     the logs agree through seq 2, where both end');
  });

  it('fails two histories that parted, naming the fork, by terms or by the chain alone', async () => {
    const a = await node();
    const b = await node();
    await a.db.collection('c').insert({ shared: true });
    await follow(a.db, b.db);
    // Both wrote on their own after seq 1, in the same term: only the chain tells them apart.
    await a.db.collection('c').insert({ only: 'a' });
    await b.db.collection('c').insert({ only: 'b' });
    await b.db.collection('c').insert({ only: 'b' });
    await a.db.close();
    await b.db.close();
    const r = runDocdb(['verify', a.dir, '--peer', b.dir, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      problemCount: 0,
      peer: { verdict: 'diverged', sharedThrough: 1, lastSeq: 2, peerLastSeq: 3, foundBy: 'chain' },
    });
    const text = runDocdb(['verify', a.dir, '--peer', b.dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `the logs part after seq 1: ${a.dir} holds 1 entries ${b.dir} never had, and ${b.dir} 2 that ${a.dir} never had`,
    );
  });

  it('finds a fork by the terms where a log no longer holds the links', async () => {
    const a = await node();
    const b = await node(64 * 1024);
    await a.db.collection('c').insert({ shared: true });
    await follow(a.db, b.db);
    // Each went on in a term of its own; b's log, kept to 64 KiB, lost the shared entry.
    await a.db.store.setTerm(a.db.nodeState().term + 1);
    await b.db.store.setTerm(b.db.nodeState().term + 2);
    for (let i = 0; i < 3; i++) await a.db.collection('c').insert({ a: i });
    const blob = 'b'.repeat(40 * 1024);
    for (let i = 0; i < 4; i++) await b.db.collection('c').insert({ b: i, blob });
    expect(b.db.nodeState().seqFloor).toBeGreaterThan(1);
    await a.db.close();
    await b.db.close();
    const r = runDocdb(['verify', a.dir, '--peer', b.dir, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).peer).toMatchObject({
      verdict: 'diverged',
      sharedThrough: 1,
      foundBy: 'terms',
    });
  });

  it('names a peer that cannot be opened', async () => {
    const a = await node();
    await a.db.close();
    const r = runDocdb(['verify', a.dir, '--peer', `${a.dir}/nowhere`]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('nowhere');
  });
});

/**
 * Proves `db.changes`: the default start is the last seq (new writes only), `since` reads the
 * retained log then live commits, the collection filter compares canonical names and moves
 * the resume position past what it skips, a multi-entry write arrives whole with its endSeq,
 * bad options and a trimmed `since` throw at once, and aborting ends a waiting iteration.
 * It also runs docs/changes.md's loop (save `feed.position` after each entry) and resumes
 * from the saved seq with no entry twice, and checks that the entries the docs show have
 * the shape of real ones (`id` beside `doc`, no `_id` inside it).
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { databasePerTest } from '../../test/support/database.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { ChangeEntry } from '../storage/index.js';
import { open } from './database.js';

const db = databasePerTest();

/** Takes `n` entries from a feed's iterator. */
async function take(it: AsyncIterator<ChangeEntry>, n: number): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  while (out.length < n) {
    const next = await it.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('db.changes', () => {
  it('starts after the last seq by default, then yields each commit', async () => {
    await db().collection('a').insert({ n: 1 });
    const stop = new AbortController();
    const feed = db().changes({ signal: stop.signal });
    expect(feed.since).toBe(1);
    const it = feed[Symbol.asyncIterator]();
    const pending = it.next();
    await db().collection('a').insert({ n: 2 });
    const { value } = await pending;
    expect(value).toMatchObject({ seq: 2, op: 'insert', collection: 'a' });
    expect((value as ChangeEntry & { op: 'insert' }).documents[0]?.doc).toMatchObject({ n: 2 });
    stop.abort();
    expect((await it.next()).done).toBe(true);
  });

  it('decodes an entry once for every feed that reads it, frozen, and not for a lone feed', async () => {
    await db()
      .collection('a')
      .insert({ n: 1, tags: ['x'] });
    const alone = db().changes({ since: 0 })[Symbol.asyncIterator]();
    const [own] = await take(alone, 1);
    await alone.return?.();
    expect(own?.seq).toBe(1);
    expect(Object.isFrozen(own)).toBe(false);
    const stop = new AbortController();
    const first = db().changes({ signal: stop.signal })[Symbol.asyncIterator]();
    const second = db().changes({ signal: stop.signal })[Symbol.asyncIterator]();
    // Both wait at the head of the log, as live feeds do, and wake to the same commit.
    const pending = [first.next(), second.next()];
    await db()
      .collection('a')
      .insertMany([{ n: 2, tags: ['y'] }]);
    const [a, b] = (await Promise.all(pending)).map((r) => r.value as ChangeEntry);
    expect(a?.seq).toBe(2);
    expect(b).toBe(a);
    const inserted = a as ChangeEntry & { op: 'insert' };
    expect(inserted.documents[0]?.doc).toEqual({ n: 2, tags: ['y'] });
    expect(Object.isFrozen(inserted.documents[0]?.doc.tags)).toBe(true);
    expect(() => {
      (inserted.documents[0]?.doc as { n: number }).n = 9;
    }).toThrow(TypeError);
    stop.abort();
    await first.return?.();
    await second.return?.();
  });

  it('reads the retained log from since, then live entries', async () => {
    for (let n = 1; n <= 3; n++) await db().collection('a').insert({ n });
    const stop = new AbortController();
    const it = db().changes({ since: 1, signal: stop.signal })[Symbol.asyncIterator]();
    expect((await take(it, 2)).map((e) => e.seq)).toEqual([2, 3]);
    const pending = it.next();
    await db().collection('a').insert({ n: 4 });
    expect((await pending).value?.seq).toBe(4);
    stop.abort();
  });

  it('filters by canonical collection name and moves its position past what it skips', async () => {
    const stop = new AbortController();
    const feed = db().changes({ since: 0, collection: 'Orders', signal: stop.signal });
    expect(feed.collection).toBe('orders');
    const it = feed[Symbol.asyncIterator]();
    await db().collection('other').insert({ n: 1 });
    await db().collection('orders').insert({ n: 2 });
    await db().collection('other').insert({ n: 3 });
    const [first] = await take(it, 1);
    expect(first).toMatchObject({ seq: 2, collection: 'orders' });
    const pending = it.next();
    await db().collection('ORDERS').insert({ n: 4 });
    expect((await pending).value).toMatchObject({ seq: 4, collection: 'orders' });
    // Entry 3 (another collection) was skipped while the feed read towards 4.
    expect(feed.position).toBeGreaterThanOrEqual(3);
    stop.abort();
  });

  it('hands out a multi-entry write whole, each entry with its endSeq', async () => {
    const c = db().collection('a');
    await c.insertMany([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const stop = new AbortController();
    const it = db().changes({ signal: stop.signal })[Symbol.asyncIterator]();
    const pending = take(it, 3);
    await db().query('UPDATE a SET k = 1');
    const entries = await pending;
    expect(entries.map((e) => [e.op, e.seq, e.endSeq])).toEqual([
      ['replace', 2, 4],
      ['replace', 3, 4],
      ['replace', 4, 4],
    ]);
    stop.abort();
  });

  it('refuses bad options at once, naming them', () => {
    for (const since of [-1, 1.5, Number.NaN, '3']) {
      expect(() => db().changes({ since: since as number })).toThrow(
        expect.objectContaining({ code: 'ERR_BAD_ARGUMENT', details: { parameter: 'since' } }),
      );
    }
    expect(() => db().changes({ since: 5 })).toThrow(/past this node's last seq 0/);
    expect(() => db().changes({ collection: 'no way' })).toThrow(
      expect.objectContaining({ code: 'ERR_COLLECTION_NAME_INVALID' }),
    );
  });

  it('a feed is iterated once', () => {
    const feed = db().changes();
    feed[Symbol.asyncIterator]();
    expect(() => feed[Symbol.asyncIterator]()).toThrow(/iterated once/);
  });
});

describe('docs/changes.md', () => {
  it('resumes from the position its loop saves with no entry twice and none missed', async () => {
    for (let n = 1; n <= 5; n++) await db().collection('a').insert({ n });
    // The docs' loop: handle an entry, then save feed.position; a crash after entry 3.
    let saved = 0;
    const handled: number[] = [];
    const first = db().changes({ since: saved });
    for await (const entry of first) {
      handled.push(entry.seq);
      saved = first.position;
      if (entry.seq === 3) break;
    }
    expect(saved).toBe(3);
    const stop = new AbortController();
    const again = db().changes({ since: saved, signal: stop.signal });
    const it = again[Symbol.asyncIterator]();
    handled.push(...(await take(it, 2)).map((entry) => entry.seq));
    stop.abort();
    expect(handled).toEqual([1, 2, 3, 4, 5]);
  });

  it('shows entries of the shape real ones have: id beside doc, no _id inside it', async () => {
    const text = readFileSync(new URL('../../docs/changes.md', import.meta.url), 'utf8');
    const shown = text
      .split('\n')
      .filter((line) => line.startsWith('{"op":'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(shown.map((entry) => entry.op)).toEqual(['insert', 'replace']);
    const id = await db().collection('orders').insert({ pnr: 'TQHS6Y' });
    await db().collection('orders').replace(id, { pnr: 'TQHS6Y', paid: true });
    const real = await take(db().changes({ since: 0 })[Symbol.asyncIterator](), 2);
    const shape = (entry: unknown): unknown =>
      JSON.parse(JSON.stringify(entry), (_key, value) =>
        value === null || typeof value === 'object' ? value : typeof value,
      );
    expect(shown.map(shape)).toEqual(real.map(shape));
  });
});

describe('db.changes over a trimmed log', () => {
  it('a since below the floor is ERR_CHANGES_TRIMMED naming the floor', async () => {
    const { dir, cleanup } = makeTempDir();
    const small = await open(dir, { changeLogRetainBytes: 64 * 1024 });
    try {
      const filler = 'x'.repeat(4000);
      for (let n = 0; n < 60; n++) await small.collection('a').insert({ n, filler });
      const { seqFloor } = small.nodeState();
      expect(seqFloor).toBeGreaterThan(0);
      expect(() => small.changes({ since: seqFloor - 1 })).toThrow(
        expect.objectContaining({
          code: 'ERR_CHANGES_TRIMMED',
          details: { since: seqFloor - 1, seqFloor },
        }),
      );
      const stop = new AbortController();
      const it = small.changes({ since: seqFloor, signal: stop.signal })[Symbol.asyncIterator]();
      expect((await it.next()).value?.seq).toBe(seqFloor + 1);
      stop.abort();
    } finally {
      await small.close();
      cleanup();
    }
  });
});

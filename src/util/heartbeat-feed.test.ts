/**
 * Proves heartbeatFeed: an opener's refusal throws from the first read; a heartbeat comes at
 * once, then the lines, then a heartbeat after a silence; a consumer that leaves after a
 * heartbeat, while a read waits, aborts the opener's signal and finishes at once; and
 * resumePoint reads a node's and a router's lines alike.
 */

import { describe, expect, it } from 'vitest';
import { heartbeatFeed } from './heartbeat-feed.js';
import { resumePoint } from './resume-point.js';

/** Lines given by `push`, ending when `signal` aborts (as a change log's follow does). */
function liveLines(signal: AbortSignal) {
  const queue: number[] = [];
  let wake: (() => void) | undefined;
  async function* lines(): AsyncGenerator<number> {
    while (!signal.aborted) {
      const next = queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }
  return {
    lines: lines(),
    push(n: number) {
      queue.push(n);
      wake?.();
    },
  };
}

describe('heartbeatFeed', () => {
  it('throws an opener’s refusal from the first read', async () => {
    const feed = heartbeatFeed(() => {
      throw new Error('refused');
    });
    await expect(feed.next()).rejects.toThrow('refused');
  });

  it('sends a heartbeat at once, the lines, then a heartbeat after a silence', async () => {
    let opened: ReturnType<typeof liveLines> | undefined;
    let beats = 0;
    const feed = heartbeatFeed(
      (signal) => {
        opened = liveLines(signal);
        return { lines: opened.lines, heartbeat: () => `beat ${++beats}` };
      },
      { heartbeatMs: 30 },
    );
    expect((await feed.next()).value).toBe('beat 1');
    opened?.push(1);
    opened?.push(2);
    expect((await feed.next()).value).toBe(1);
    expect((await feed.next()).value).toBe(2);
    expect((await feed.next()).value).toBe('beat 2');
    await feed.return();
  });

  it('a consumer that leaves after a heartbeat, while a read waits, ends it at once', async () => {
    let signalSeen: AbortSignal | undefined;
    const feed = heartbeatFeed(
      (signal) => {
        signalSeen = signal;
        return { lines: liveLines(signal).lines, heartbeat: () => 'beat' };
      },
      { heartbeatMs: 10 },
    );
    await feed.next();
    // The second heartbeat leaves a read of the lines pending: nothing was ever pushed.
    expect((await feed.next()).value).toBe('beat');
    await feed.return();
    expect(signalSeen?.aborted).toBe(true);
  });

  it('ends quietly when the caller’s signal aborts mid-read', async () => {
    const stop = new AbortController();
    const feed = heartbeatFeed(
      (signal) => ({ lines: liveLines(signal).lines, heartbeat: () => 'beat' }),
      { heartbeatMs: 60_000, signal: stop.signal },
    );
    await feed.next();
    const waiting = feed.next();
    stop.abort();
    expect(await waiting).toEqual({ done: true, value: undefined });
  });
});

describe('resumePoint', () => {
  it('is a router’s cursor, else the node’s seq as text', () => {
    const entry = { op: 'delete', collection: 'a', id: 'x', seq: 7, term: 1, atMs: 0 } as const;
    expect(resumePoint(entry)).toBe('7');
    expect(resumePoint({ heartbeat: 1, lastSeq: 9 })).toBe('9');
    expect(resumePoint({ ...entry, shard: 's1', cursor: 's1:7,s2:0' })).toBe('s1:7,s2:0');
    expect(resumePoint({ heartbeat: 1, cursor: 's1:8,s2:0' })).toBe('s1:8,s2:0');
  });
});

/**
 * Proves the set part's figures on hand-made records: an acknowledged key that is not stored
 * is lost (and in a rollback file when one holds it), a key under two `_id`s is duplicated, a
 * refused write found stored is named, an unknown one may be either; the no-leader window is
 * the widest gap between a shard's acknowledgements inside the spans the clients ran; writes
 * resume at the shard's first acknowledgement after a moment; and the two-leader window
 * places each write on the member of its term, 0 ms for a clean switch.
 */

import { describe, expect, it } from 'vitest';
import { judge, noLeaderWindows, resumedAfter, twoLeaderWindow } from './set-figures.js';
import type { Attempt, Outcome } from './set-load.js';

function attempt(key: string, outcome: Outcome): Attempt {
  return { key, client: 'c', outcome, sentMs: 0, receivedMs: 1 };
}

describe('judge', () => {
  it('finds lost, duplicated, refused-but-stored and rollback-only keys', () => {
    const figures = judge(
      [
        attempt('k1', 'acknowledged'),
        attempt('k2', 'acknowledged'),
        attempt('k3', 'acknowledged'),
        attempt('k4', 'refused'),
        attempt('k5', 'unknown'),
        attempt('k6', 'unknown'),
        attempt('k7', 'refused'),
      ],
      [
        { id: 'a', key: 'k1', shard: 's1' },
        { id: 'b', key: 'k1', shard: 's2' },
        { id: 'c', key: 'k4', shard: 's1' },
        { id: 'd', key: 'k5', shard: 's2' },
      ],
      new Set(['k2', 'k6']),
    );
    expect(figures).toEqual({
      acknowledged: 3,
      refused: 2,
      unknown: 2,
      unknownStored: 1,
      lost: ['k2', 'k3'],
      lostInRollback: ['k2'],
      duplicated: ['k1'],
      refusedStored: ['k4'],
      rollbackOnly: ['k2', 'k6'],
    });
  });

  it('finds nothing wrong when every acknowledged key is stored once', () => {
    const figures = judge(
      [attempt('k1', 'acknowledged'), attempt('k2', 'unknown')],
      [{ id: 'a', key: 'k1', shard: 's1' }],
      new Set(),
    );
    expect(figures).toMatchObject({
      lost: [],
      duplicated: [],
      refusedStored: [],
      unknownStored: 0,
    });
  });
});

describe('noLeaderWindows', () => {
  const acks = [
    { shard: 's1', receivedMs: 100 },
    { shard: 's1', receivedMs: 200 },
    { shard: 's1', receivedMs: 1_700 },
    { shard: 's2', receivedMs: 150 },
    { shard: 's2', receivedMs: 900 },
    // Outside the span: the clients were paused then.
    { shard: 's2', receivedMs: 5_000 },
  ];

  it('is the widest gap of each shard, from the span start to its end', () => {
    const windows = noLeaderWindows(acks, ['s1', 's2'], [{ startMs: 0, endMs: 2_000 }]);
    expect(windows.get('s1')).toBe(1_500);
    expect(windows.get('s2')).toBe(1_100);
  });

  it('is the whole span for a shard that acknowledged nothing', () => {
    const windows = noLeaderWindows([], ['s1'], [{ startMs: 10, endMs: 60 }]);
    expect(windows.get('s1')).toBe(50);
  });
});

describe('resumedAfter', () => {
  it('is the time to the first acknowledgement of the shard after the moment', () => {
    const acks = [
      { shard: 's1', receivedMs: 900 },
      { shard: 's2', receivedMs: 1_100 },
      { shard: 's1', receivedMs: 1_800 },
      { shard: 's1', receivedMs: 1_400 },
    ];
    expect(resumedAfter(acks, 's1', 1_000)).toBe(400);
    expect(resumedAfter(acks, 's2', 1_200)).toBeUndefined();
  });
});

describe('twoLeaderWindow', () => {
  const every = (member: string, from: number, to: number) =>
    Array.from({ length: (to - from) / 10 + 1 }, (_, i) => ({ member, atMs: from + i * 10 }));

  it('is 0 ms when the old leader stops before the new one starts', () => {
    expect(twoLeaderWindow([...every('a', 0, 1_000), ...every('b', 1_300, 2_000)])).toEqual({
      ms: 0,
      between: 'none',
    });
  });

  it('is the overlap of two members acknowledging at once', () => {
    expect(twoLeaderWindow([...every('a', 0, 1_000), ...every('b', 800, 2_000)])).toEqual({
      ms: 200,
      between: 'a and b',
    });
  });
});

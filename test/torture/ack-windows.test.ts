/**
 * Proves the two-leader window of the partition part on hand-made acknowledgement records: a
 * clean switch of leaders gives 0 ms and no interleaved acknowledgement, overlapping stints
 * give their overlap, one stray acknowledgement inside another node's stint counts once, and
 * a pause of STINT_GAP_MS or more splits a node's acknowledgements into two stints.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AckRecord, ackWindows, STINT_GAP_MS, stintsOf } from './ack-windows.js';

/** Acknowledgements of `node` received at each of `times` (sent 5 ms before). */
function acks(node: string, times: number[]): AckRecord[] {
  return times.map((receivedMs) => ({ node, sentMs: receivedMs - 5, receivedMs }));
}

/** `from`, `from + step`, … up to and including `to`. */
function every(step: number, from: number, to: number): number[] {
  const times: number[] = [];
  for (let at = from; at <= to; at += step) times.push(at);
  return times;
}

describe('ackWindows', () => {
  it('gives 0 ms and 0 interleaved when one leader stops before the next starts', () => {
    const records = [...acks('a', every(10, 0, 1_000)), ...acks('b', every(10, 2_200, 4_000))];
    const windows = ackWindows(records);
    expect(windows.twoLeaderMs).toBe(0);
    expect(windows.interleaved).toBe(0);
    expect(windows.widest).toBeUndefined();
    expect(windows.stints.map((s) => [s.node, s.startMs, s.endMs, s.acks])).toEqual([
      ['a', 0, 1_000, 101],
      ['b', 2_200, 4_000, 181],
    ]);
  });

  it('gives 0 for a switch closer than the stint gap, as long as the two do not overlap', () => {
    const records = [...acks('a', every(10, 0, 1_000)), ...acks('b', every(10, 1_001, 2_000))];
    expect(ackWindows(records)).toMatchObject({ twoLeaderMs: 0, interleaved: 0 });
  });

  it('gives the overlap of two stints of different nodes', () => {
    // a acknowledges from 0 to 5000; b, promoted at 1200, from 1200 to 9000: 3800 ms together.
    const records = [...acks('a', every(20, 0, 5_000)), ...acks('b', every(20, 1_200, 9_000))];
    const windows = ackWindows(records);
    expect(windows.twoLeaderMs).toBe(3_800);
    expect(windows.widest?.map((s) => s.node)).toEqual(['a', 'b']);
    // b's acknowledgements strictly inside a's stint (1200 < t < 5000), and a's inside b's.
    const bInsideA = every(20, 1_200, 5_000).filter((t) => t > 0 && t < 5_000).length;
    const aInsideB = every(20, 0, 5_000).filter((t) => t > 1_200 && t < 9_000).length;
    expect(windows.interleaved).toBe(bInsideA + aInsideB);
  });

  it('takes the largest overlap when there are several', () => {
    const records = [
      ...acks('a', every(10, 0, 1_000)),
      ...acks('b', every(10, 900, 3_000)), // 100 ms with a's first stint
      ...acks('a', every(10, 3_600, 6_000)), // a again after a pause of 2.6 s
      ...acks('b', every(10, 3_700, 4_500)), // b's second stint: 800 ms with a's second
    ];
    const windows = ackWindows(records);
    expect(windows.twoLeaderMs).toBe(800);
    expect(windows.widest?.map((s) => [s.node, s.startMs, s.endMs])).toEqual([
      ['a', 3_600, 6_000],
      ['b', 3_700, 4_500],
    ]);
  });

  it('counts one stray acknowledgement inside another node stint once, with no window', () => {
    const records = [...acks('a', every(10, 0, 1_000)), ...acks('b', [500])];
    const windows = ackWindows(records);
    expect(windows.interleaved).toBe(1);
    // The stray ack is a stint of its own, with no length: it overlaps a by 0 ms.
    expect(windows.twoLeaderMs).toBe(0);
  });

  it('never counts a node against itself', () => {
    const records = [...acks('a', every(10, 0, 1_000)), ...acks('a', every(10, 1_100, 2_000))];
    expect(ackWindows(records)).toMatchObject({ twoLeaderMs: 0, interleaved: 0 });
  });

  it('is 0 and 0 without records and with one node only', () => {
    expect(ackWindows([])).toMatchObject({ twoLeaderMs: 0, interleaved: 0, stints: [] });
    expect(ackWindows(acks('a', [3, 1, 2]))).toMatchObject({ twoLeaderMs: 0, interleaved: 0 });
  });

  it('sorts by receive time whatever order the records come in', () => {
    const records = [...acks('b', every(10, 2_200, 4_000)), ...acks('a', every(10, 0, 1_000))];
    records.reverse();
    expect(ackWindows(records)).toMatchObject({ twoLeaderMs: 0, interleaved: 0 });
  });

  it('gives 0 and 0 whenever every ack of one node comes before every ack of the next', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 50 }),
        fc.array(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 5_000 }),
        (before, after, gap) => {
          const last = Math.max(...before);
          const records = [
            ...acks('a', before),
            ...acks(
              'b',
              after.map((t) => last + gap + t),
            ),
          ];
          const windows = ackWindows(records);
          return windows.twoLeaderMs === 0 && windows.interleaved === 0;
        },
      ),
    );
  });
});

describe('stintsOf', () => {
  it('starts a new stint at a pause of STINT_GAP_MS or more, not below', () => {
    const stints = stintsOf(acks('a', [0, STINT_GAP_MS - 1, 2 * STINT_GAP_MS - 2]));
    expect(stints.map((s) => [s.startMs, s.endMs, s.acks])).toEqual([[0, 2 * STINT_GAP_MS - 2, 3]]);
    const split = stintsOf(acks('a', [0, STINT_GAP_MS, STINT_GAP_MS + 1]));
    expect(split.map((s) => [s.startMs, s.endMs, s.acks])).toEqual([
      [0, 0, 1],
      [STINT_GAP_MS, STINT_GAP_MS + 1, 2],
    ]);
  });
});

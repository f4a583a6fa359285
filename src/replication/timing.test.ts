/**
 * The follower's reconnect backoff: it doubles from the base to the cap, and each delay is
 * jittered between half and the whole step, so followers of a restarted leader spread out; a
 * follower that watches its leader caps it at a quarter of its silence.
 */

import { describe, expect, it } from 'vitest';
import { RECONNECT_BASE_MS, RECONNECT_CAP_MS, reconnectCapMs, reconnectDelayMs } from './timing.js';

describe('reconnectDelayMs', () => {
  it('doubles up to the cap, jittered between half and the whole step', () => {
    for (let attempt = 0; attempt < 40; attempt++) {
      const step = Math.min(RECONNECT_CAP_MS, RECONNECT_BASE_MS * 2 ** attempt);
      expect(reconnectDelayMs(attempt, () => 0)).toBe(step / 2);
      expect(reconnectDelayMs(attempt, () => 1)).toBe(step);
      const random = reconnectDelayMs(attempt);
      expect(random).toBeGreaterThanOrEqual(step / 2);
      expect(random).toBeLessThanOrEqual(step);
    }
    expect(reconnectDelayMs(1000, () => 1)).toBe(RECONNECT_CAP_MS);
  });
});

describe('reconnectCapMs', () => {
  it("is a quarter of a watching follower's silence, between the base and the usual cap", () => {
    expect(reconnectCapMs(0)).toBe(RECONNECT_CAP_MS);
    expect(reconnectCapMs(1000)).toBe(250);
    expect(reconnectCapMs(500)).toBe(RECONNECT_BASE_MS);
    expect(reconnectCapMs(60_000)).toBe(RECONNECT_CAP_MS);
    expect(reconnectDelayMs(1000, () => 1, reconnectCapMs(1000))).toBe(250);
  });
});

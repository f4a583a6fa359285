/**
 * Proves ClockCache: it holds `limit` entries and one more lets exactly one go; an entry used
 * since the last pass is kept over an unused one (its second chance); with every entry used,
 * the oldest goes; and a hit moves nothing, so entries keep their order.
 */

import { describe, expect, it } from 'vitest';
import { ClockCache } from './clock-cache.js';

function filled(limit: number): ClockCache<number> {
  const cache = new ClockCache<number>(limit);
  for (let n = 0; n < limit; n++) cache.set(`k${n}`, n);
  return cache;
}

describe('ClockCache', () => {
  it('holds limit entries, and one past it lets the oldest unused one go', () => {
    const cache = filled(4);
    expect(cache.size).toBe(4);
    cache.set('k4', 4);
    expect(cache.size).toBe(4);
    expect(cache.get('k0')).toBeUndefined();
    expect([1, 2, 3, 4].map((n) => cache.get(`k${n}`))).toEqual([1, 2, 3, 4]);
  });

  it('keeps an entry used since the last pass over an unused one', () => {
    const cache = filled(4);
    expect(cache.get('k0')).toBe(0);
    expect(cache.get('k2')).toBe(2);
    cache.set('k4', 4);
    expect(cache.get('k1')).toBeUndefined();
    cache.set('k5', 5);
    // k0 spent its second chance in the first pass, k2 in this one: k3 is the oldest unused.
    expect(cache.get('k3')).toBeUndefined();
    expect(cache.get('k0')).toBe(0);
  });

  it('lets the oldest go when every entry was used', () => {
    const cache = filled(3);
    for (let n = 0; n < 3; n++) cache.get(`k${n}`);
    cache.set('k3', 3);
    expect(cache.size).toBe(3);
    expect(cache.get('k0')).toBeUndefined();
  });

  it('replaces the value of a key it holds without letting anything go', () => {
    const cache = filled(2);
    cache.set('k1', 10);
    expect(cache.size).toBe(2);
    expect(cache.get('k0')).toBe(0);
    expect(cache.get('k1')).toBe(10);
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new ClockCache(0)).toThrow();
  });
});

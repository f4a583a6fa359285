/**
 * Proves the rules of the semantics module (DESIGN §4) at their edges: three-valued
 * comparison across type families, LIKE on non-strings, the find predicates (`match`,
 * `within`), sort keys with descending positions and id tie-breaks, and the group, DISTINCT
 * and join keys (1 and "1" differ; 1 and 1.0, 0 and -0 are one).
 */

import { describe, expect, it } from 'vitest';
import {
  AVG,
  canonicalJson,
  compare,
  compareSortKeys,
  distinctKey,
  GroupKeys,
  joinKey,
  like,
  MAX,
  MIN,
  matchesValue,
  SUM,
  withinBounds,
} from './index.js';

describe('compare', () => {
  it('is unknown with a null or missing side, and never true across types', () => {
    expect(compare('=', null, null)).toBeNull();
    expect(compare('!=', undefined, 1)).toBeNull();
    expect(compare('=', 30, '30')).toBe(false);
    expect(compare('!=', 30, '30')).toBe(true);
    expect(compare('>', 'a', 5)).toBe(false);
    expect(compare('<', false, true)).toBe(true);
    expect(compare('=', 1, 1.0)).toBe(true);
    expect(compare('=', [1, { a: 2 }], [1, { a: 2 }])).toBe(true);
    expect(compare('<', [1], [2])).toBe(false);
  });

  it('LIKE never matches a non-string, so NOT LIKE does', () => {
    expect(like(5, '%', false, false)).toBe(false);
    expect(like(5, '%', false, true)).toBe(true);
    expect(like('Ab', 'a_', true, false)).toBe(true);
    expect(like('Ab', 'a_', false, false)).toBe(false);
    expect(like(null, '%', false, true)).toBeNull();
  });
});

describe('find predicates', () => {
  it('match: a scalar equal to the value; null matches null (a missing value comes as null)', () => {
    expect(matchesValue([null], null)).toBe(true);
    expect(matchesValue([null], undefined)).toBe(true);
    expect(matchesValue(['30'], 30)).toBe(false);
    expect(matchesValue([[1]], [1])).toBe(false);
    expect(matchesValue(['a', 'b'], 'b')).toBe(true);
    expect(matchesValue([], null)).toBe(false);
  });

  it('within: one value satisfies every bound of its own type', () => {
    const bounds = [
      { op: '>=' as const, value: 1 },
      { op: '<' as const, value: 3 },
    ];
    expect(withinBounds([0, 5], bounds)).toBe(false);
    expect(withinBounds([0, 2], bounds)).toBe(true);
    expect(withinBounds(['2'], bounds)).toBe(false);
    expect(withinBounds([2], [{ op: '>', value: null }])).toBe(false);
    expect(withinBounds([true], [{ op: '>', value: false }])).toBe(true);
  });
});

describe('sort keys', () => {
  it('compare position by position, descending where asked, ids last and ascending', () => {
    const desc = [true, false];
    expect(compareSortKeys([2, 'a', 'id1'], [1, 'z', 'id0'], desc)).toBeLessThan(0);
    expect(compareSortKeys([1, 'a', 'id1'], [1, 'b', 'id0'], desc)).toBeLessThan(0);
    expect(compareSortKeys([1, 'a', 'id0'], [1, 'a', 'id1'], desc)).toBeLessThan(0);
    expect(compareSortKeys([null, 'a'], [false, 'a'], [false])).toBeLessThan(0);
    expect(compareSortKeys([1], [1], [false])).toBe(0);
  });
});

describe('keys', () => {
  it('group keys tell types apart and see equal numbers as one', () => {
    const keys = new GroupKeys();
    expect(keys.keyOf([1])).toBe(keys.keyOf([1.0]));
    expect(new Map([[keys.keyOf([0]), 'zero']]).get(keys.keyOf([-0]))).toBe('zero');
    expect(keys.keyOf([1])).not.toBe(keys.keyOf(['1']));
    expect(keys.keyOf([[1], 'a'])).toBe(keys.keyOf([[1], 'a']));
    expect(keys.keyOf(['[1]'])).not.toBe(keys.keyOf([[1]]));
  });

  it('join keys leave out null and missing; DISTINCT keys follow the JSON text', () => {
    expect(joinKey(null)).toBeUndefined();
    expect(joinKey(undefined)).toBeUndefined();
    expect(joinKey(1)).not.toBe(joinKey('1'));
    expect(distinctKey({ a: 1, b: [2] })).toBe(distinctKey({ a: 1.0, b: [2] }));
  });

  it('see objects with the same members in another order as one, as `=` does', () => {
    const ab = { a: 1, b: { c: [{ x: 1, y: 2 }], d: 'e' } };
    const ba = { b: { d: 'e', c: [{ y: 2, x: 1 }] }, a: 1 };
    expect(compare('=', ab, ba)).toBe(true);
    const keys = new GroupKeys();
    expect(keys.keyOf([ab])).toBe(keys.keyOf([ba]));
    expect(keys.keyOf([ab, 'k'])).toBe(keys.keyOf([ba, 'k']));
    expect(joinKey(ab)).toBe(joinKey(ba));
    expect(distinctKey({ o: ab })).toBe(distinctKey({ o: ba }));
    // Values that differ stay apart, and undefined members count as missing.
    expect(joinKey({ a: 1 })).not.toBe(joinKey({ a: '1' }));
    expect(joinKey({ a: 1, b: undefined })).toBe(joinKey({ a: 1 }));
    expect(canonicalJson([undefined, { z: 1, a: [] }])).toBe('[null,{"a":[],"z":1}]');
  });
});

describe('aggregate states', () => {
  it('merge as one pass over all the values would have', () => {
    expect(SUM.finish(SUM.merge(SUM.accumulate(SUM.init(), 2), SUM.init()))).toBe(2);
    expect(SUM.finish(SUM.accumulate(SUM.init(), 'x'))).toBeNull();
    const avg = AVG.merge(AVG.accumulate(AVG.init(), 1), AVG.accumulate(AVG.init(), 4));
    expect(avg).toEqual({ sum: 5, count: 2 });
    expect(AVG.finish(avg)).toBe(2.5);
    expect(MIN.merge(MIN.accumulate(MIN.init(), 'a'), MIN.accumulate(MIN.init(), 5))).toBe(5);
    expect(MAX.merge(MAX.init(), MAX.accumulate(MAX.init(), [1]))).toEqual([1]);
  });
});

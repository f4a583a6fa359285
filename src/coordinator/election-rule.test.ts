/**
 * Proves the election rule: only the most caught-up live member campaigns (later term first,
 * then higher seq, then the smaller name), a live handover target campaigns alone, and a
 * handover to a member that is gone is ignored.
 */

import { describe, expect, it } from 'vitest';
import {
  compareCaughtUp,
  electionChoice,
  type MemberPosition,
  mostCaughtUp,
} from './election-rule.js';

const at = (name: string, term: number, seq: number): MemberPosition => ({ name, term, seq });

describe('the election rule', () => {
  it('orders by later term, then higher seq, then smaller name', () => {
    const members = [at('c', 2, 5), at('a', 1, 99), at('b', 2, 7), at('d', 2, 7)];
    expect([...members].sort(compareCaughtUp).map((m) => m.name)).toEqual(['b', 'd', 'c', 'a']);
    expect(mostCaughtUp(members)?.name).toBe('b');
    expect(mostCaughtUp([])).toBeUndefined();
  });

  it('lets the most caught-up member campaign and makes the others stand aside', () => {
    const live = [at('a', 3, 10), at('b', 3, 15), at('c', 3, 12)];
    expect(electionChoice(at('b', 3, 15), live).campaign).toBe(true);
    const a = electionChoice(at('a', 3, 10), live);
    expect(a.campaign).toBe(false);
    expect(a.reason).toContain('b is more caught up');
    expect(electionChoice(at('c', 3, 12), live).campaign).toBe(false);
  });

  it('prefers a later term over a higher seq: a newer history beats a longer old one', () => {
    const live = [at('old', 1, 500), at('new', 2, 3)];
    expect(electionChoice(at('new', 2, 3), live).campaign).toBe(true);
    expect(electionChoice(at('old', 1, 500), live).campaign).toBe(false);
  });

  it('breaks ties by name, so equally caught-up members do not all campaign', () => {
    const live = [at('m2', 4, 8), at('m1', 4, 8)];
    expect(electionChoice(at('m1', 4, 8), live).campaign).toBe(true);
    expect(electionChoice(at('m2', 4, 8), live).campaign).toBe(false);
  });

  it('judges a member by its current position, not its own stale record', () => {
    const live = [at('a', 1, 5), at('b', 1, 7)];
    expect(electionChoice(at('a', 1, 9), live).campaign).toBe(true);
  });

  it('campaigns alone when no other member is live', () => {
    expect(electionChoice(at('a', 0, 0), []).campaign).toBe(true);
  });

  it('lets only the live handover target campaign, caught up or not', () => {
    const live = [at('a', 3, 20), at('b', 3, 15)];
    expect(electionChoice(at('b', 3, 15), live, 'b').campaign).toBe(true);
    const a = electionChoice(at('a', 3, 20), live, 'b');
    expect(a).toEqual({ campaign: false, reason: 'the leader handed over to b' });
  });

  it('ignores a handover to a member that is gone', () => {
    const live = [at('a', 3, 20), at('b', 3, 15)];
    expect(electionChoice(at('a', 3, 20), live, 'gone').campaign).toBe(true);
    expect(electionChoice(at('b', 3, 15), live, 'gone').campaign).toBe(false);
  });
});

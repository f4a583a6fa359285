/**
 * Proves the term scheme: a promotion's term is newer than every term of the round it saw,
 * two promotions from the same round with different tags never make the same term, terms
 * keep the order of their rounds whatever the tags, older small terms sit below every new
 * one, and a tag or round out of range is refused.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeTerm,
  drawTag,
  nextTerm,
  TERM_ROUND_MAX,
  TERM_TAGS,
  termRound,
  termTag,
} from './terms.js';

const tag = fc.integer({ min: 0, max: TERM_TAGS - 1 });
const term = fc
  .tuple(fc.integer({ min: 0, max: 1_000_000 }), tag)
  .map(([r, t]) => r * TERM_TAGS + t);

describe('terms', () => {
  it('a promotion makes a newer term than any of the round it saw, with its own tag', () => {
    fc.assert(
      fc.property(term, term, tag, (own, leader, mine) => {
        const next = nextTerm(Math.max(own, leader), mine);
        expect(next).toBeGreaterThan(own);
        expect(next).toBeGreaterThan(leader);
        expect(termTag(next)).toBe(mine);
        expect(termRound(next)).toBe(termRound(Math.max(own, leader)) + 1);
        expect(Number.isSafeInteger(next)).toBe(true);
      }),
    );
  });

  it('two promotions that do not see each other make different terms', () => {
    fc.assert(
      fc.property(term, tag, tag, (known, a, b) => {
        fc.pre(a !== b);
        expect(nextTerm(known, a)).not.toBe(nextTerm(known, b));
        // Whichever is larger fences the other: their order is their tags' order.
        expect(nextTerm(known, a) < nextTerm(known, b)).toBe(a < b);
      }),
    );
  });

  it('rounds order terms whatever their tags', () => {
    fc.assert(
      fc.property(term, term, (x, y) => {
        fc.pre(termRound(x) < termRound(y));
        expect(x).toBeLessThan(y);
      }),
    );
  });

  it('older small terms are round 0, below every promotion of this scheme', () => {
    expect(termRound(1)).toBe(0);
    expect(termRound(41)).toBe(0);
    expect(nextTerm(41, 0)).toBe(TERM_TAGS);
    expect(nextTerm(41, 0)).toBeGreaterThan(TERM_TAGS - 1);
    expect(describeTerm(3)).toBe('term 3');
    expect(describeTerm(nextTerm(3, 0xabc))).toBe(
      `term ${TERM_TAGS + 0xabc} (round 1, node tag 000abc)`,
    );
  });

  it('refuses a tag out of range and a round past the last', () => {
    expect(() => nextTerm(1, TERM_TAGS)).toThrow(/term tag/);
    expect(() => nextTerm(1, -1)).toThrow(/term tag/);
    expect(() => nextTerm(1, 1.5)).toThrow(/term tag/);
    expect(nextTerm((TERM_ROUND_MAX - 1) * TERM_TAGS, 5)).toBe(TERM_ROUND_MAX * TERM_TAGS + 5);
    expect(Number.isSafeInteger(TERM_ROUND_MAX * TERM_TAGS + TERM_TAGS - 1)).toBe(true);
    expect(() => nextTerm(TERM_ROUND_MAX * TERM_TAGS, 5)).toThrow(
      expect.objectContaining({ code: 'ERR_REPLICATION_STATE' }),
    );
  });

  it('draws a tag in range that none of the taken ones is', () => {
    const values = [0.5, 0.5, 0.25];
    const random = () => values.shift() as number;
    expect(drawTag(new Set([TERM_TAGS / 2]), random)).toBe(TERM_TAGS / 4);
    for (let i = 0; i < 100; i++) {
      const drawn = drawTag();
      expect(Number.isSafeInteger(drawn) && drawn >= 0 && drawn < TERM_TAGS).toBe(true);
    }
  });
});

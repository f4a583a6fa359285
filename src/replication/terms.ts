/**
 * Replication terms that cannot collide. A term is one number, `round × TERM_TAGS + tag`: the
 * round counts promotions along a history, the tag is the promoting node's (a random number
 * it keeps in its data file). Two promotions that do not see each other start from the same
 * known round and so make the same round, but with their own tags: different terms, ordered
 * like any two numbers, so every place that compares terms (fencing, the follower's check of
 * its leader, the order of entries) needs no change. Terms written before this scheme are
 * small numbers: round 0, below every term a promotion makes now. Pure functions only.
 */

import { dbError } from '../errors/index.js';
import { TERM_ROUND_MAX, TERM_TAGS } from '../util/index.js';

export { TERM_ROUND_MAX, TERM_TAGS };

/** The round of a term: how many promotions its history went through (0 for older terms). */
export function termRound(term: number): number {
  return Math.floor(term / TERM_TAGS);
}

/** The tag of the node that made a term (for older terms, the term itself). */
export function termTag(term: number): number {
  return term % TERM_TAGS;
}

/**
 * The term a node with `tag` takes when promoted, having seen terms up to `known` (its own
 * and its leader's): the next round, with its own tag. It is newer than every term of
 * `known`'s round, whoever made them.
 */
export function nextTerm(known: number, tag: number): number {
  if (!Number.isSafeInteger(tag) || tag < 0 || tag >= TERM_TAGS) {
    throw dbError('ERR_BAD_ARGUMENT', 'termTagTooLarge', { limit: TERM_TAGS, tag });
  }
  const round = termRound(known) + 1;
  if (round > TERM_ROUND_MAX) {
    throw dbError('ERR_REPLICATION_STATE', 'termRoundsSpent', { limit: TERM_ROUND_MAX });
  }
  return round * TERM_TAGS + tag;
}

/** A fresh random tag, other than those in `taken`. */
export function drawTag(taken: ReadonlySet<number> = new Set(), random = Math.random): number {
  for (;;) {
    const tag = Math.floor(random() * TERM_TAGS);
    if (!taken.has(tag)) return tag;
  }
}

/** A term as people read it in logs: the number, with its round and tag when it has them. */
export function describeTerm(term: number): string {
  const round = termRound(term);
  if (round === 0) return `term ${term}`;
  return `term ${term} (round ${round}, node tag ${termTag(term).toString(16).padStart(6, '0')})`;
}

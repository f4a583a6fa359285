/**
 * The shape of a replication term, `round × TERM_TAGS + tag` (replication's terms.ts owns the
 * rules): the two constants live here so that both replication and the coordinator, which
 * makes a term from etcd's revision, build terms of one shape. Constants only.
 */

/** Tags a term can carry: 2^24, so two nodes draw the same one with odds of 1 in 16.7 million. */
export const TERM_TAGS = 2 ** 24;

/** The largest round a term can reach and stay a safe integer (about 537 million promotions). */
export const TERM_ROUND_MAX = Math.floor(Number.MAX_SAFE_INTEGER / TERM_TAGS) - 1;

/**
 * Where a follower's catch-up starts, decided by the leader once it knows where their
 * histories part (fork.ts): when the follower's log is a prefix of the leader's, it reads
 * the leader's log after its last seq, or a snapshot when the leader trimmed past it.
 * Otherwise the follower holds entries this leader never had (a demoted leader rejoining):
 * they are rolled back after the fork and the follower starts again from a snapshot; when the
 * fork cannot be placed, after 0 (its side refuses when its own log no longer holds all of
 * it). The search itself happens over the wire (leader.ts); this is pure.
 */

import type { CatchUp } from './protocol.js';

export interface CatchUpPlan {
  catchUp: CatchUp;
  /** With `log`: stream the entries after this seq. */
  after: number;
  /** The follower's entries after this seq are not the leader's: it rolls them back. */
  rollbackAfter?: number;
}

/** What the plan needs of the follower's hello. */
export interface FollowerPosition {
  /** Its last applied seq. */
  seq: number;
  /** Its data cannot continue from its log. */
  resync?: boolean | undefined;
}

/**
 * The plan for a follower at `follower`, whose log parts from this leader's after `fork`
 * (undefined: the fork could not be placed), on a leader whose log is retained after
 * `seqFloor`.
 */
export function planCatchUp(
  seqFloor: number,
  follower: FollowerPosition,
  fork: number | undefined,
): CatchUpPlan {
  if (follower.resync) return { catchUp: 'snapshot', after: 0 };
  if (fork === undefined) return { catchUp: 'snapshot', after: 0, rollbackAfter: 0 };
  if (fork < follower.seq) return { catchUp: 'snapshot', after: 0, rollbackAfter: fork };
  return fork >= seqFloor ? { catchUp: 'log', after: fork } : { catchUp: 'snapshot', after: 0 };
}

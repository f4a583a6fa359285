/**
 * Where a follower's catch-up starts, decided by the leader from the follower's hello: its
 * last seq and the term of that entry. When the leader's entry at that seq has the same term,
 * the histories agree (one leader per term writes each seq once) and the follower reads the
 * log after it. Otherwise the follower holds entries this leader never had (a demoted leader
 * rejoining): they are rolled back after the last seq both agree on, and the follower starts
 * again from a snapshot. A follower behind the trimmed log starts from a snapshot too.
 */

import type { Database } from '../engine/index.js';
import type { CatchUp } from './protocol.js';

export interface CatchUpPlan {
  catchUp: CatchUp;
  /** With `log`: stream the entries after this seq. */
  after: number;
  /** The follower's entries after this seq are not the leader's: it rolls them back. */
  rollbackAfter?: number;
}

/** What a follower says of its log in its hello. */
export interface FollowerPosition {
  /** Its last applied seq. */
  seq: number;
  /** The term of that entry (0 before any). */
  lastTerm: number;
  /** Its data cannot continue from its log. */
  resync?: boolean;
}

export function planCatchUp(db: Database, follower: FollowerPosition): CatchUpPlan {
  const { lastSeq, seqFloor } = db.nodeState();
  const snapshot = (rollbackAfter?: number): CatchUpPlan => ({
    catchUp: 'snapshot',
    after: 0,
    ...(rollbackAfter !== undefined && rollbackAfter < follower.seq && { rollbackAfter }),
  });
  if (follower.resync) return snapshot();
  if (follower.seq === 0) return seqFloor === 0 ? { catchUp: 'log', after: 0 } : snapshot();
  if (follower.seq > lastSeq) {
    // The follower has entries past this leader's end: those it wrote as a leader of an
    // older term that this one never received.
    return snapshot(lastAgreeing(db, follower.lastTerm, lastSeq));
  }
  const term = follower.seq < seqFloor ? undefined : db.termAt(follower.seq);
  if (term === undefined) {
    // Behind the trimmed log. Terms never go down along a log, so a follower whose last term
    // is newer than this leader's at its floor holds entries this leader never had, from a
    // point that is no longer known: it rolls back everything it has (its side refuses when
    // its own log no longer holds all of it). Otherwise a snapshot brings it up to date.
    const floorTerm = db.termAt(seqFloor) ?? 0;
    return follower.lastTerm > floorTerm ? snapshot(0) : snapshot();
  }
  if (term === follower.lastTerm) return { catchUp: 'log', after: follower.seq };
  return snapshot(lastAgreeing(db, follower.lastTerm, follower.seq));
}

/**
 * The last seq at or below `upTo` whose entry is of `term` or older: terms never go down
 * along a log, so a binary search over the retained entries finds it. When even the floor's
 * term is newer, the point lies below the retained log and cannot be known: 0, so the
 * follower rolls back everything it holds.
 */
function lastAgreeing(db: Database, term: number, upTo: number): number {
  const { seqFloor } = db.nodeState();
  let low = seqFloor;
  let high = upTo;
  if ((db.termAt(low) ?? 0) > term) return 0;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if ((db.termAt(mid) ?? Number.POSITIVE_INFINITY) <= term) low = mid;
    else high = mid - 1;
  }
  return low;
}

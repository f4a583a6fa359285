/**
 * Who may campaign when a replica set has no leader: the most caught-up live member, or the
 * member a resigning leader handed over to. Pure functions over the members' published
 * positions; the etcd transaction, not this rule, makes sure there is one winner.
 */

/** A member's replication position as it publishes it. */
export interface MemberPosition {
  name: string;
  /** The term of its last entry (a later term is a newer history, whatever the seq). */
  term: number;
  /** Its last applied (or, on a leader, written) seq. */
  seq: number;
}

/** What the rule says a member should do, and why (for its log and status). */
export interface ElectionChoice {
  campaign: boolean;
  reason: string;
}

/**
 * Orders members from most to least caught up: later term first, then higher seq, then the
 * smaller name (so that equally caught-up members agree on one of them without a race).
 * Negative when `a` comes before `b`.
 */
export function compareCaughtUp(a: MemberPosition, b: MemberPosition): number {
  if (a.term !== b.term) return b.term - a.term;
  if (a.seq !== b.seq) return b.seq - a.seq;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The member the rule elects among `members`, or undefined when there are none. */
export function mostCaughtUp(members: readonly MemberPosition[]): MemberPosition | undefined {
  let best: MemberPosition | undefined;
  for (const member of members) {
    if (best === undefined || compareCaughtUp(member, best) < 0) best = member;
  }
  return best;
}

/**
 * Whether `self` campaigns for a leader key that is absent. `live` are the members whose
 * records are on live leases (self's own record may be among them, older than `self`, which
 * is its current position). `handoverTo` is the member a resigning leader named: while it is
 * live, only it campaigns, caught up or not (the leader waited for it before resigning);
 * a handover to a member that is gone is ignored. Otherwise self campaigns only if no live
 * member is more caught up than it (compareCaughtUp), so a follower that lacks writes the
 * others have never leads while one of them is there.
 */
export function electionChoice(
  self: MemberPosition,
  live: readonly MemberPosition[],
  handoverTo?: string,
): ElectionChoice {
  const others = live.filter((member) => member.name !== self.name);
  if (handoverTo !== undefined) {
    if (handoverTo === self.name) return { campaign: true, reason: 'the leader handed over to it' };
    if (others.some((member) => member.name === handoverTo)) {
      return { campaign: false, reason: `the leader handed over to ${handoverTo}` };
    }
  }
  const best = mostCaughtUp(others);
  if (best !== undefined && compareCaughtUp(best, self) < 0) {
    return {
      campaign: false,
      reason: `${best.name} is more caught up (term ${best.term}, seq ${best.seq}; this member term ${self.term}, seq ${self.seq})`,
    };
  }
  return { campaign: true, reason: 'no live member is more caught up' };
}

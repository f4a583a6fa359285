/**
 * Where a follower's catch-up starts once the fork is known: the log after its seq when its
 * log is a prefix of the leader's and the leader still holds what follows; a plain snapshot
 * when the leader trimmed past it or the follower asks for one; a snapshot with a rollback
 * after the fork when the follower holds entries past it; a rollback of everything when the
 * fork cannot be placed.
 */

import { describe, expect, it } from 'vitest';
import { planCatchUp } from './catch-up.js';

describe('planCatchUp', () => {
  it('streams the log when the follower is a prefix the leader still holds', () => {
    expect(planCatchUp(0, { seq: 0 }, 0)).toEqual({ catchUp: 'log', after: 0 });
    expect(planCatchUp(0, { seq: 5 }, 5)).toEqual({ catchUp: 'log', after: 5 });
    expect(planCatchUp(5, { seq: 5 }, 5)).toEqual({ catchUp: 'log', after: 5 });
  });

  it('sends a plain snapshot behind the trimmed log, or when the follower asks for one', () => {
    expect(planCatchUp(6, { seq: 5 }, 5)).toEqual({ catchUp: 'snapshot', after: 0 });
    expect(planCatchUp(3, { seq: 0 }, 0)).toEqual({ catchUp: 'snapshot', after: 0 });
    expect(planCatchUp(0, { seq: 5, resync: true }, 5)).toEqual({ catchUp: 'snapshot', after: 0 });
  });

  it('rolls back after the fork when the follower holds entries past it', () => {
    expect(planCatchUp(0, { seq: 7 }, 3)).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 3,
    });
    // Even behind the trimmed log: the fork comes from the term histories.
    expect(planCatchUp(10, { seq: 7 }, 3)).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 3,
    });
    expect(planCatchUp(0, { seq: 4 }, undefined)).toEqual({
      catchUp: 'snapshot',
      after: 0,
      rollbackAfter: 0,
    });
  });
});

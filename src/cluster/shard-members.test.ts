/**
 * Which follower a router may read from (freshFollower): one that streams from its leader,
 * had applied all the leader had at their last contact, and heard it within the bound.
 */

import { describe, expect, it } from 'vitest';
import type { ReplicationStatus } from '../types/index.js';
import type { MemberView } from './member-status.js';
import { freshFollower } from './shard-members.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');

function follower(link: Record<string, unknown>, role = 'follower'): MemberView {
  const status = {
    role,
    leader: {
      state: 'streaming',
      lagEntries: 0,
      lastLeaderContactAt: '2026-11-27T11:59:59.500Z',
      ...link,
    },
  } as unknown as ReplicationStatus;
  return { url: 'http://h:1', status, error: null };
}

describe('freshFollower', () => {
  it('takes a streaming follower with nothing to apply, heard within the bound', () => {
    expect(freshFollower(follower({}), 1_000, NOW)).toBe(true);
    expect(freshFollower(follower({}), 499, NOW)).toBe(false);
  });

  it.each([
    ['behind its leader', { lagEntries: 3 }],
    ['its lag unknown', { lagEntries: null }],
    ['connecting', { state: 'connecting' }],
    ['loading a snapshot', { state: 'snapshot' }],
    ['never heard from its leader', { lastLeaderContactAt: null }],
  ])('refuses a follower %s', (_, link) => {
    expect(freshFollower(follower(link), 60_000, NOW)).toBe(false);
  });

  it('refuses a leader, a node that is not replicating, and one that did not answer', () => {
    expect(freshFollower(follower({}, 'leader'), 60_000, NOW)).toBe(false);
    expect(freshFollower(follower({}, 'none'), 60_000, NOW)).toBe(false);
    expect(freshFollower({ url: 'http://h:1', status: null, error: 'down' }, 60_000, NOW)).toBe(
      false,
    );
  });
});

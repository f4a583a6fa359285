/**
 * How the Cluster screen words a shard's nodes from a router's `GET /stats`: each replica-set
 * member's role badge, and the shard's own badge with what is wrong with it (no leader, a
 * member down). Pure, so test/ui/lib.test.ts proves it without a browser.
 */

/**
 * What is read here of docdb/client's `MemberHealth` and `RouterShardStats`, spelled out
 * because the root's tests import this module without the UI's path to the client; the
 * screen passes the client's own types, so tsc holds the two in step.
 */
interface Member {
  endpoint: string;
  status: 'up' | 'down';
  role: string | null;
  readOnly: boolean | null;
}
interface Shard {
  members: Member[] | null;
  leader: string | null;
}

/** A badge's text and whether it is fine (`ok`), a warning (`warn`) or neither (`''`). */
export interface Badge {
  label: string;
  tone: 'ok' | 'warn' | '';
}

/**
 * A member's role as a badge: `down` when it did not answer, `leader` for the member the
 * router found leading, `follower`, `read-only` for any other member that refuses writes (a
 * leader in a handover, a fenced one), `stale leader` for one that says it leads while another
 * member leads in a higher term, and `not replicating` for a member with no role.
 */
export function memberBadge(member: Member, leader: string | null): Badge {
  if (member.status === 'down') return { label: 'down', tone: 'warn' };
  if (member.endpoint === leader) return { label: 'leader', tone: 'ok' };
  if (member.role === 'follower') return { label: 'follower', tone: '' };
  if (member.readOnly) return { label: 'read-only', tone: 'warn' };
  if (member.role === 'leader') return { label: 'stale leader', tone: 'warn' };
  return { label: 'not replicating', tone: 'warn' };
}

/** What is wrong with a shard's nodes, one sentence each; none for a one-endpoint shard. */
export function shardProblems(shard: Shard): string[] {
  if (shard.members === null) return [];
  const problems = shard.leader === null ? ['no member leads'] : [];
  for (const m of shard.members) {
    if (m.status === 'down') problems.push(`${m.endpoint} is down`);
  }
  return problems;
}

/**
 * A shard's health badge: `unknown` while the router's last /stats failed (the screen shows
 * the last answer), `no leader` or `degraded` (a member down) for a replica set, else `up`.
 */
export function shardBadge(shard: Shard, failed: boolean): Badge {
  if (failed) return { label: 'unknown', tone: 'warn' };
  if (shard.members !== null && shard.leader === null) return { label: 'no leader', tone: 'warn' };
  if (shardProblems(shard).length > 0) return { label: 'degraded', tone: 'warn' };
  return { label: 'up', tone: 'ok' };
}

/**
 * What a replica set's members say of themselves: each one's `GET /replication/status`,
 * asked of all at once within a deadline, the one rule for which of them leads, and each
 * member's role, term, seq and lag as `docdb health` and a router's `GET /stats` show them.
 * The router's leader discovery (shard-members.ts) and both of those read members here, so
 * they agree on who leads. Nothing here throws for a member's failure to answer.
 */

import type { DocdbClient } from '../client/index.js';
import type { MemberHealth, ReplicationStatus } from '../types/index.js';

/** What one member said when asked. */
export interface MemberView {
  url: string;
  /** Its replication status, or null when it did not answer. */
  status: ReplicationStatus | null;
  /** Why it did not answer. */
  error: string | null;
}

/**
 * Asks every member (`[url, client]`) for its replication status at once; a member that
 * fails or has not answered within `timeoutMs` is seen with its error. Answers in the order
 * given.
 */
export function askMembers(
  members: ReadonlyArray<readonly [string, DocdbClient]>,
  timeoutMs: number,
): Promise<MemberView[]> {
  return Promise.all(
    members.map(async ([url, client]): Promise<MemberView> => {
      try {
        const status = await withTimeout(client.replicationStatus(), timeoutMs);
        return { url, status, error: null };
      } catch (error) {
        return { url, status: null, error: (error as Error).message };
      }
    }),
  );
}

/**
 * The member that leads: the one that says it leads and takes writes (not read-only, not
 * fenced), with the highest term when a stale leader still says it leads too; undefined
 * when none does.
 */
export function leaderOf(seen: readonly MemberView[]): MemberView | undefined {
  return seen
    .filter((m) => m.status?.role === 'leader' && !m.status.readOnly && !m.status.fenced)
    .sort((a, b) => (b.status?.term ?? 0) - (a.status?.term ?? 0))[0];
}

/** Each member as health and stats show it; lag counts entries behind `leader`. */
export function memberHealth(
  seen: readonly MemberView[],
  leader: MemberView | undefined,
): MemberHealth[] {
  const leaderSeq = leader?.status?.lastSeq;
  return seen.map(({ url, status, error }) => ({
    endpoint: url,
    status: status === null ? 'down' : 'up',
    role: status?.role ?? null,
    readOnly: status?.readOnly ?? null,
    term: status?.term ?? null,
    seq: status?.lastSeq ?? null,
    lag:
      status === null || leaderSeq === undefined ? null : Math.max(0, leaderSeq - status.lastSeq),
    error,
  }));
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

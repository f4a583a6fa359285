/**
 * Watching who leads a replica set: the leader key read once, then an etcd watch from the
 * revision it was read at, so no change between the two is missed; re-read after the watch
 * reconnects, and every LEADER_RECHECK_MS (a read that gets no answer is also what moves the
 * watch to a fresh connection after a partition). It reports leaders; it never campaigns.
 */

import type { EtcdClient } from './etcd-client.js';
import { type LeaderInfo, readLeader, setKeys } from './set-keys.js';

/** How often an observation reads the leader key besides watching it. */
export const LEADER_RECHECK_MS = 1000;

/** A running watch; `close` ends it. */
export interface Observation {
  close(): Promise<void>;
}

/**
 * Calls `onChange` with the set's leader now, then each time it changes (another member, a
 * new term, or none: undefined). Rejects with ERR_COORDINATOR_UNREACHABLE when etcd does not
 * answer the first read or accept the watch; after that the watch retries on its own.
 */
export async function watchLeader(
  client: EtcdClient,
  set: string,
  onChange: (leader: LeaderInfo | undefined) => void,
): Promise<Observation> {
  const keys = setKeys(set);
  let last: string | undefined;
  let closed = false;
  const emit = (leader: LeaderInfo | undefined) => {
    const identity = leader ? `${leader.name}@${leader.term}` : '';
    if (closed || identity === last) return;
    last = identity;
    onChange(leader);
  };
  const first = await client.get(keys.leader);
  emit(first.stored && readLeader(set, first.stored));
  const reread = () => {
    client.get(keys.leader).then(
      (now) => emit(now.stored && readLeader(set, now.stored)),
      () => {},
    );
  };
  // Changes made while the watch was away may be compacted: read what is there on return.
  const watch = await client.watch(
    keys.leader,
    first.revision + 1,
    (change) => emit(change.kind === 'put' ? readLeader(set, change.stored) : undefined),
    reread,
  );
  const recheck = setInterval(reread, LEADER_RECHECK_MS);
  return {
    close: async () => {
      closed = true;
      clearInterval(recheck);
      await watch.close();
    },
  };
}

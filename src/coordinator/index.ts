/**
 * Leadership of a replica set by an etcd lease, Patroni's model (issue 24, ADR 0028). Talks
 * to etcd only; imports nothing of docdb but errors and util, and replication (or the router)
 * wires it to a node. The API, in the order a node uses it:
 *
 * - `Coordinator.open('etcd://127.0.0.1:2379', { ttlSeconds, marginMs, … })` connects and
 *   checks etcd answers (ERR_COORDINATOR_UNREACHABLE naming the URL; a bad URL or timing is
 *   ERR_CONFIG_INVALID). Timing defaults: lease-timing.ts (TTL 10 s, margin max(1 s, TTL/4),
 *   each etcd call 2 s at most).
 * - `coordinator.join(set, { name, url, replication, tag }, { term, seq })` → a Member whose
 *   record is under `/docdb/<set>/members/<name>` on its own lease; `member.report({ term,
 *   seq })` as the node applies entries (written at most once per publish interval).
 * - `member.startElections({ onElected })`: whenever `/docdb/<set>/leader` is absent, campaign
 *   by the election rule (election-rule.ts: the most caught-up live member, or the one a
 *   handover names). `member.campaign()` is one campaign without the rule.
 * - A won `Leadership` carries `term` (the leader key's etcd revision × 2^24 + the node's tag,
 *   so terms strictly increase across elections) and `canAcknowledge()`, false from
 *   `validUntil` = last renewal sent + TTL − margin, before etcd can expire the lease and let
 *   another member win (the argument is in leadership.ts). `onLost(listener)` hears the loss;
 *   `resign(toMember?)` stops acknowledging, deletes the key if still its own, names the
 *   member to hand over to, and revokes the lease.
 * - Followers and routers: `coordinator.leader(set)`, `coordinator.members(set)` (live ones,
 *   with positions), `coordinator.observeLeader(set, onChange)` (an etcd watch).
 * - `coordinator.close()` leaves every set (resigning a leadership) and disconnects.
 *
 * For the wiring: lead only in a won term above the node's own (a history promoted by the
 * silence timer before has rounds of its own; etcd's revision is almost always above them,
 * but a node must refuse, resign and log rather than lead backwards); call `report` as
 * entries apply; turn read-only on `onLost` and before `resign`.
 */

export {
  COORDINATOR_HOSTS_MAX,
  type CoordinatorAddress,
  type CoordinatorHost,
  ETCD_PORT_DEFAULT,
  parseCoordinatorUrl,
} from './coordinator-url.js';
export { Coordinator } from './coordinator.js';
export {
  compareCaughtUp,
  type ElectionChoice,
  electionChoice,
  type MemberPosition,
  mostCaughtUp,
} from './election-rule.js';
export type { Leadership, LeadershipLost } from './leadership.js';
export {
  CALL_TIMEOUT_MS_DEFAULT,
  LEASE_TTL_SECONDS_DEFAULT,
  LEASE_TTL_SECONDS_MAX,
  LEASE_TTL_SECONDS_MIN,
  type LeaseTiming,
  leaseTiming,
  PUBLISH_INTERVAL_MS_DEFAULT,
  SETTLE_MS_DEFAULT,
  WRITE_STOP_MARGIN_MIN_MS,
  writeStopMarginMs,
} from './lease-timing.js';
export type { ElectionHandlers, Member, Position } from './member.js';
export {
  checkName,
  type HandoverRecord,
  type LeaderInfo,
  type MemberIdentity,
  type MemberRecord,
  termOfRevision,
} from './set-keys.js';
export type { Observation } from './watch-leader.js';

/**
 * Auto-failover under load: a leader and a follower that watches it (1 s of silence, then it
 * promotes itself); each cycle reads the follower's lag on the leader, kills the leader with
 * SIGKILL, waits for the follower to promote itself and counts the acknowledged writes the
 * new leader lacks (lost). The dead leader then restarts as a follower of the new one: what
 * it wrote that the new leader never had must land in `<data-dir>/rollback/`, and once caught
 * up its documents must equal the new leader's. Roles swap each cycle. With syncFollowers 1
 * a write is acknowledged only once the follower applied it, so nothing may be lost.
 */

import { missingFrom, sameDocuments, someIds } from './checks.js';
import { DocdbNode, FailoverCheckError, type ReplicationStatus } from './cluster.js';
import { LOAD_COLLECTION, WriteLoad } from './load.js';

export interface FailoverOptions {
  root: string;
  cycles: number;
  clients: number;
  /** 0: writes are acknowledged on commit; 1: once the follower applied them too. */
  syncFollowers: 0 | 1;
  writesPerCycle: number;
  log: (line: string) => void;
}

export interface FailoverSummary {
  syncFollowers: 0 | 1;
  cycles: number;
  acknowledged: number;
  lost: number;
  /** The follower's lagEntries on the leader just before each kill. */
  lagBeforeKill: number[];
  /** From the kill to the follower showing role leader, auto-failover promoted. */
  promoteMs: number[];
  /** Entries the rejoining old leaders wrote to rollback files, in all. */
  rolledBackEntries: number;
  rollbackFiles: number;
  refused: number;
  failedConnections: number;
  documents: number;
  ms: number;
}

/** The leader silence after which the follower promotes itself. */
const SILENCE_SECONDS = 1;
/** How long a durable write waits for the follower before it answers 503. */
const SYNC_TIMEOUT_SECONDS = 2;
const WRITES_TIMEOUT_MS = 60_000;
/** From the kill to the promotion: the silence, the watch's period, and slack for a slow box. */
const PROMOTE_TIMEOUT_MS = 20_000;

function watching(status: ReplicationStatus): boolean {
  return (
    status.role === 'follower' &&
    status.leader !== null &&
    status.leader.connected &&
    status.leader.state === 'streaming' &&
    status.autoFailover.state === 'watching'
  );
}

export async function runAutoFailover(options: FailoverOptions): Promise<FailoverSummary> {
  const started = Date.now();
  const { log, syncFollowers } = options;
  const phase = `failover sync=${syncFollowers}`;
  const syncFlags =
    syncFollowers === 1
      ? ['--sync-followers', '1', '--sync-timeout-seconds', String(SYNC_TIMEOUT_SECONDS)]
      : [];
  const watchFlags = (node: DocdbNode) => [
    '--auto-failover-seconds',
    String(SILENCE_SECONDS),
    '--auto-failover-new-port',
    String(node.replicationPort),
  ];
  const x = await DocdbNode.create(options.root, `failover-sync${syncFollowers}-a`);
  const y = await DocdbNode.create(options.root, `failover-sync${syncFollowers}-b`);
  await x.start({ role: 'leader', extra: syncFlags });
  await y.start({ role: 'follower', leader: x, extra: [...watchFlags(y), ...syncFlags] });
  const load = new WriteLoad(x, options.clients, `failover-sync${syncFollowers}`);
  load.start();
  let leader = x;
  let follower = y;
  const lost = new Set<string>();
  const lagBeforeKill: number[] = [];
  const promoteMs: number[] = [];
  let rolledBackEntries = 0;
  let rollbackFiles = 0;
  try {
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const cycleStart = Date.now();
      await follower.waitForStatus('following and watching', watching);
      const ackedBefore = load.acknowledgedCount;
      await load.waitForMore(options.writesPerCycle, WRITES_TIMEOUT_MS);

      const before = await leader.status();
      const link = before.followers.find((f) => f.name === follower.name);
      if (!link) {
        throw new FailoverCheckError(
          `${leader.name} lists no follower ${follower.name} before the kill: ${JSON.stringify(before.followers)}`,
        );
      }
      lagBeforeKill.push(link.lagEntries);
      await leader.kill();
      const killedAt = Date.now();
      load.target = follower;
      const promoted = await follower.waitForStatus(
        'promoted by auto-failover',
        (s) => s.role === 'leader' && s.autoFailover.state === 'promoted',
        PROMOTE_TIMEOUT_MS,
      );
      promoteMs.push(Date.now() - killedAt);

      // Every write acknowledged until now was acknowledged before this read started.
      const acknowledged = load.acknowledgedIds();
      const onNewLeader = await follower.documents(LOAD_COLLECTION);
      const missing = missingFrom(acknowledged, onNewLeader).filter((id) => !lost.has(id));
      for (const id of missing) lost.add(id);

      const rolledBefore = leader.rolledBackIds();
      await leader.start({
        role: 'follower',
        leader: follower,
        extra: [...watchFlags(leader), ...syncFlags],
      });
      await load.pause();
      const { lastSeq } = await follower.status();
      const rejoined = await leader.waitForApplied(lastSeq);
      const rolledAfter = leader.rolledBackIds();
      const newIds = [...rolledAfter.ids].filter((id) => !rolledBefore.ids.has(id));
      const newEntries = rolledAfter.entries - rolledBefore.entries;
      const newFiles = rolledAfter.files.length - rolledBefore.files.length;
      rolledBackEntries += newEntries;
      rollbackFiles += newFiles;
      const unrolled = missing.filter((id) => !rolledAfter.ids.has(id));
      if (unrolled.length > 0) {
        throw new FailoverCheckError(
          `${leader.name} acknowledged writes the new leader ${follower.name} never had, and they are not in its rollback files: ${someIds(unrolled)}`,
        );
      }
      const documents = await sameDocuments(follower, leader);
      const kept = newIds.filter((id) => documents.has(id));
      if (kept.length > 0) {
        throw new FailoverCheckError(
          `documents ${leader.name} rolled back are still there after it rejoined: ${someIds(kept)}`,
        );
      }
      const absent = missingFrom(acknowledged, documents).filter((id) => !lost.has(id));
      if (absent.length > 0) {
        throw new FailoverCheckError(
          `acknowledged writes the new leader had are gone after ${leader.name} rejoined: ${someIds(absent)}`,
        );
      }
      log(
        `${phase} ${cycle}/${options.cycles}: killed ${leader.name} (lag ${link.lagEntries} entries), ${follower.name} promoted in ${promoteMs.at(-1)} ms (term ${promoted.term}); ` +
          `${load.acknowledgedCount - ackedBefore} writes acknowledged this cycle, ${missing.length} lost; ` +
          `${leader.name} rejoined at seq ${rejoined.leader?.appliedSeq}, rolled back ${newEntries} entries in ${newFiles} files; ${documents.size} documents agree; cycle ${Date.now() - cycleStart} ms`,
      );
      [leader, follower] = [follower, leader];
      load.resume();
    }
  } finally {
    await load.stop();
  }
  if (load.counters.unexpected > 0) {
    throw new FailoverCheckError(
      `the write load got ${load.counters.unexpected} unexpected answers: ${load.unexpectedAnswers.join('; ')}`,
    );
  }
  const { lastSeq } = await leader.status();
  await follower.waitForApplied(lastSeq);
  const documents = await sameDocuments(leader, follower);
  const acknowledged = load.acknowledgedIds();
  const absent = missingFrom(acknowledged, documents).filter((id) => !lost.has(id));
  if (absent.length > 0) {
    throw new FailoverCheckError(
      `${phase}: acknowledged writes missing at the end beyond those lost at the kills: ${someIds(absent)}`,
    );
  }
  log(
    `${phase}: ${acknowledged.size} acknowledged writes, ${lost.size} lost${lost.size > 0 ? ` (${someIds([...lost])})` : ''}; ${documents.size} documents on both ${leader.name} and ${follower.name}`,
  );
  await leader.stop();
  await follower.stop();
  return {
    syncFollowers,
    cycles: options.cycles,
    acknowledged: acknowledged.size,
    lost: lost.size,
    lagBeforeKill,
    promoteMs,
    rolledBackEntries,
    rollbackFiles,
    refused: load.counters.refused,
    failedConnections: load.counters.failedConnections,
    documents: documents.size,
    ms: Date.now() - started,
  };
}

/**
 * Planned handover under load: a leader and its follower swap roles N times while clients
 * keep writing. Each cycle turns the leader read-only, waits until the follower applied its
 * last seq, promotes the follower, and makes the old leader follow the new one, through
 * POST /replication/start-follower on odd cycles and a restart as a follower on even ones.
 * At the end every acknowledged write must be on both nodes and the nodes must agree.
 */

import { missingFrom, sameDocuments, someIds } from './checks.js';
import { DocdbNode, FailoverCheckError } from './cluster.js';
import { WriteLoad } from './load.js';

export interface HandoverOptions {
  root: string;
  cycles: number;
  clients: number;
  /** Acknowledged writes each cycle waits for before the handover starts. */
  writesPerCycle: number;
  log: (line: string) => void;
}

export interface HandoverSummary {
  cycles: number;
  acknowledged: number;
  lost: number;
  /** Writes answered 503 during the switches and retried. */
  refused: number;
  failedConnections: number;
  /** Cycles done each way. */
  viaStartFollower: number;
  viaRestart: number;
  /** From read-only to the new leader's first acknowledged write, the slowest cycle. */
  switchMsMax: number;
  documents: number;
  ms: number;
}

/** How long a cycle may wait for its share of writes. */
const WRITES_TIMEOUT_MS = 60_000;

export async function runHandover(options: HandoverOptions): Promise<HandoverSummary> {
  const started = Date.now();
  const { log } = options;
  const a = await DocdbNode.create(options.root, 'handover-a');
  const b = await DocdbNode.create(options.root, 'handover-b');
  await a.start({ role: 'leader' });
  await b.start({ role: 'follower', leader: a });
  await b.waitForApplied(0);
  const load = new WriteLoad(a, options.clients, 'handover');
  load.start();
  let leader = a;
  let follower = b;
  let switchMsMax = 0;
  let viaStartFollower = 0;
  let viaRestart = 0;
  try {
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const cycleStart = Date.now();
      const ackedBefore = load.acknowledgedCount;
      const refusedBefore = load.counters.refused;
      await load.waitForMore(options.writesPerCycle, WRITES_TIMEOUT_MS);

      const switchStart = Date.now();
      const readOnly = await leader.transition('read-only');
      if (!readOnly.readOnly) {
        throw new FailoverCheckError(`${leader.name} answered read-only with readOnly false`);
      }
      const { lastSeq } = await leader.status();
      await follower.waitForApplied(lastSeq);
      const promoted = await follower.transition('promote', { port: follower.replicationPort });
      if (promoted.role !== 'leader' || promoted.readOnly) {
        throw new FailoverCheckError(
          `${follower.name} after promote: role ${promoted.role}, readOnly ${promoted.readOnly}`,
        );
      }
      const byRestart = cycle % 2 === 0;
      if (byRestart) {
        await leader.stop();
        await leader.start({ role: 'follower', leader: follower });
        viaRestart++;
      } else {
        await leader.transition('start-follower', {
          host: '127.0.0.1',
          port: follower.replicationPort,
        });
        viaStartFollower++;
      }
      load.target = follower;
      const acksAtSwitch = load.acknowledgedCount;
      await leader.waitForApplied(lastSeq);
      const rejoined = await leader.status();
      if ((rejoined.leader?.rollbacks.length ?? 0) > 0 || leader.rolledBackIds().files.length > 0) {
        throw new FailoverCheckError(
          `${leader.name} rolled back entries after a planned handover (it was caught up): ${JSON.stringify(rejoined.leader?.rollbacks)}`,
        );
      }
      await load.waitForMore(1, WRITES_TIMEOUT_MS);
      const switchMs = Date.now() - switchStart;
      switchMsMax = Math.max(switchMsMax, switchMs);
      log(
        `handover ${cycle}/${options.cycles}: ${leader.name} → ${follower.name} via ${byRestart ? 'restart' : 'start-follower'} at seq ${lastSeq} (term ${promoted.term}); ` +
          `${acksAtSwitch - ackedBefore} writes acknowledged before the switch, ${load.counters.refused - refusedBefore} refused and retried; ` +
          `switch ${switchMs} ms, cycle ${Date.now() - cycleStart} ms`,
      );
      [leader, follower] = [follower, leader];
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
  const acknowledged = load.acknowledgedIds();
  const documents = await sameDocuments(leader, follower);
  const missing = missingFrom(acknowledged, documents);
  log(
    `handover: ${acknowledged.size} acknowledged writes, ${documents.size} documents on both ${leader.name} and ${follower.name}; ${missing.length} acknowledged writes missing${missing.length > 0 ? `: ${someIds(missing)}` : ''}`,
  );
  await leader.stop();
  await follower.stop();
  return {
    cycles: options.cycles,
    acknowledged: acknowledged.size,
    lost: missing.length,
    refused: load.counters.refused,
    failedConnections: load.counters.failedConnections,
    viaStartFollower,
    viaRestart,
    switchMsMax,
    documents: documents.size,
    ms: Date.now() - started,
  };
}

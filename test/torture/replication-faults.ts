/**
 * The torture suite's replication-faults part: a leader under a steady write load and a
 * follower that reaches it through a TCP proxy the part controls, so it can cut the network
 * and slow it down. Faults, in turn: the follower killed and started again, the network cut
 * (every connection reset and new ones refused) and restored, and the link slowed to a
 * trickle and restored. After each, with the load paused, the follower must catch up to the
 * leader's last seq, hold exactly the leader's documents (so every acknowledged write), and
 * pass `docdb verify` (its change log whole and in order: nothing applied out of order).
 */

import { spawnSync } from 'node:child_process';
import { BIN, cleanEnv } from '../e2e/support.js';
import { sameDocuments } from '../failover/checks.js';
import { DocdbNode } from '../failover/cluster.js';
import { WriteLoad } from '../failover/load.js';
import { NetProxy } from '../support/net-proxy.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const ROUNDS = { quick: 1, full: 10 };
/** Writes acknowledged under each fault before it ends. */
const WRITES_PER_FAULT = 100;
/** How long the network stays cut, and how long the link stays slow (ms). */
const CUT_MS = 2_000;
const SLOW_MS = 3_000;
const LOAD_CLIENTS = 4;

export const replicationFaults: TorturePart = {
  name: 'replication-faults',
  description:
    'a follower killed, its network cut and slowed under load: it catches up, in order, losing nothing',
  async run(context: PartContext): Promise<CheckResult[]> {
    const checks = {
      kill: new Check('follower killed and restarted'),
      cut: new Check('network cut and restored'),
      slow: new Check('slow link'),
    };
    const leader = await DocdbNode.create(context.dir, 'leader');
    const follower = await DocdbNode.create(context.dir, 'follower');
    await leader.start({ role: 'leader' });
    const link = new NetProxy(leader.replicationPort);
    await link.listen();
    // The follower knows the leader only by the proxy's port.
    const throughLink = { replicationPort: link.port } as DocdbNode;
    await follower.start({ role: 'follower', leader: throughLink });
    const load = new WriteLoad(leader, LOAD_CLIENTS, 'replication-faults');
    load.start();
    try {
      for (let round = 1; round <= (context.quick ? ROUNDS.quick : ROUNDS.full); round++) {
        for (const [fault, check] of Object.entries(checks)) {
          const outcome = await injure(fault as keyof typeof checks, {
            follower,
            throughLink,
            link,
            load,
          });
          await load.pause();
          const verdict = await settle(leader, follower, load);
          load.resume();
          check.count(
            verdict ? 'failed' : outcome,
            verdict && `round ${round}, ${fault}: ${verdict}`,
          );
        }
        context.log(
          `replication faults: round ${round}, ${load.acknowledgedCount} writes acknowledged`,
        );
      }
    } finally {
      await load.stop();
      await follower.stop().catch(() => follower.kill());
      await leader.stop().catch(() => leader.kill());
      await link.close();
    }
    return Object.values(checks).map((c) => c.done());
  },
};

async function injure(
  fault: 'kill' | 'cut' | 'slow',
  {
    follower,
    throughLink,
    link,
    load,
  }: { follower: DocdbNode; throughLink: DocdbNode; link: NetProxy; load: WriteLoad },
): Promise<string> {
  if (fault === 'kill') {
    await follower.kill();
    await load.waitForMore(WRITES_PER_FAULT, 30_000);
    await follower.start({ role: 'follower', leader: throughLink });
    return 'caught up after the restart';
  }
  if (fault === 'cut') {
    link.reset();
    await Promise.all([
      load.waitForMore(WRITES_PER_FAULT, 30_000),
      new Promise((resolve) => setTimeout(resolve, CUT_MS)),
    ]);
    link.up();
    return 'caught up after the cut';
  }
  link.slow();
  await Promise.all([
    load.waitForMore(WRITES_PER_FAULT, 30_000),
    new Promise((resolve) => setTimeout(resolve, SLOW_MS)),
  ]);
  link.up();
  return 'caught up after the slow link';
}

/** With no writes coming: the follower catches up and agrees; undefined when all is well. */
async function settle(
  leader: DocdbNode,
  follower: DocdbNode,
  load: WriteLoad,
): Promise<string | undefined> {
  try {
    const { lastSeq } = await leader.status();
    await follower.waitForApplied(lastSeq);
    const documents = await sameDocuments(leader, follower);
    const missing = [...load.acknowledgedIds()].filter((id) => !documents.has(id));
    if (missing.length > 0) return `${missing.length} acknowledged writes missing from both`;
    const verify = spawnSync(BIN, ['verify', follower.dataDir, '--json'], {
      env: cleanEnv(),
      encoding: 'utf8',
    });
    if (verify.status !== 0) return `docdb verify of the follower: ${verify.stdout.slice(0, 400)}`;
    return undefined;
  } catch (error) {
    return (error as Error).message.slice(0, 600);
  }
}

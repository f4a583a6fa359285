/**
 * The load generator of the cluster-client row (issue 25), in its own process so it never
 * shares an event loop with the harness: `callers` concurrent async callers, each sending the
 * point lookup by pnr and awaiting its answer before the next, through docdb's own typed
 * client: the cluster client over a cluster.json (the router's code in this process, straight
 * to the owning shard), or a `DocdbClient` to one URL (the node, or `docdb router`) with a
 * connection per caller. Every answer must hold exactly one row, and the cluster client's
 * plan must be one shard's. Prints a LoadOutcome as one JSON line.
 *
 * Usage: client-worker.ts '<ClientLoadSpec as JSON>'
 */

import { DOCDB_SQL } from '../embedded/system.js';
import { keyPicker, pnrAt } from '../data.js';
import { connect, connectCluster, type NodeApi } from '../engine.js';
import { percentile } from '../measure.js';
import type { LoadOutcome } from '../served/load-worker.js';

/** What to load and how hard. */
export interface ClientLoadSpec {
  /** A cluster.json for the cluster client, or a node's (or router's) URL for a DocdbClient. */
  target: { clusterFile: string } | { url: string };
  callers: number;
  durationSeconds: number;
  /** Keys are drawn from documents [0, keyBound). */
  keyBound: number;
  seed: number;
}

async function open(spec: ClientLoadSpec): Promise<NodeApi & { close(): Promise<void> }> {
  if ('clusterFile' in spec.target) return connectCluster(spec.target.clusterFile);
  return connect(spec.target.url, { connections: spec.callers });
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ClientLoadSpec;
  const api = await open(spec);
  const pick = keyPicker(spec.keyBound, spec.seed);
  const latencies: number[] = [];
  let errors = 0;
  let lastError = '';
  const started = performance.now();
  const deadline = started + spec.durationSeconds * 1000;
  let lastAnswer = started;
  const caller = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        const answer = await api.query(DOCDB_SQL.point, [pnrAt(pick())]);
        lastAnswer = performance.now();
        if (answer.count !== 1) throw new Error(`${answer.count} rows, plan ${answer.plan}`);
        if ('clusterFile' in spec.target && !answer.plan.startsWith('SINGLE_SHARD(')) {
          throw new Error(`not routed to one shard: ${answer.plan}`);
        }
        latencies.push(lastAnswer - t);
      } catch (error) {
        errors++;
        lastError = String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.callers }, caller));
  await api.close();
  if (errors > 0) console.error(`${errors} failed lookups; the last: ${lastError}`);
  latencies.sort((a, b) => a - b);
  const outcome: LoadOutcome = {
    requests: latencies.length + errors,
    elapsedMs: lastAnswer - started,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    p50MsExact: percentile(latencies, 50),
    p99MsExact: percentile(latencies, 99),
    errors,
    timeouts: 0,
    non2xx: 0,
  };
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

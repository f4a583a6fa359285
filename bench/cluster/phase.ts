/**
 * The cluster phase (issue 13): the replicated write path and the router path, each set
 * against a single docdb node in the same run. Replication: a single node, a leader with one
 * follower (`syncFollowers` 0) and a leader with one follower and `syncFollowers` 1 take
 * turns loading the same new documents by REST bulk requests. Router: `docdb router` over
 * three shard nodes against one node holding every document, for a point lookup by the
 * shard key and a GROUP BY scattered over the shards; then the same point lookup through the
 * cluster client (`docdb/client/cluster`, issue 25) against the typed client to the node and
 * to the router, from concurrent callers in a load process. Every node is its own process.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { pnrAt } from '../data.js';
import type { Measurement } from '../embedded/phase.js';
import { DOCDB_SQL } from '../embedded/system.js';
import type { Sample } from '../measure.js';
import type { Options } from '../options.js';
import {
  runJsonChild,
  type ServerChild,
  startDocdbCommand,
  startServerChild,
  tempDir,
} from '../proc.js';
import type { ServerFlags } from '../served/docdb-server.js';
import type { LoadOutcome, LoadSpec } from '../served/load-worker.js';
import { load, sampleOf } from '../served/load.js';
import { freePort } from '../served/postgres.js';
import type { WorkloadId } from '../workloads.js';
import type { ClientLoadSpec } from './client-worker.js';

/** Documents per bulk request, as in the served phase. */
const BULK_REQUEST_DOCS = 1000;
/** How long a follower may take to connect, and to catch up at the end. */
const FOLLOWER_WAIT_MS = 60_000;
/** Connections of the scattered GROUP BY (each answer reads every document). */
const GROUP_BY_CONNECTIONS = 4;
/** The shards of the router path. */
const SHARDS = 3;

/** What the phase measured. */
export interface ClusterOutcome {
  measurements: Measurement[];
  notes: string[];
}

type Record_ = (workload: WorkloadId, system: string, round: number, sample: Sample) => void;

interface Node {
  url: string;
  child: ServerChild;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A docdb node (startNode in its own process) on a fresh directory. */
async function startDocdbNode(prefix: string, flags: ServerFlags): Promise<Node> {
  const dir = tempDir(`docdb-bench-${prefix}-`);
  const port = await freePort();
  const child = await startServerChild('./served/docdb-server.ts', [
    dir,
    String(port),
    JSON.stringify(flags),
  ]);
  return { url: `http://127.0.0.1:${port}`, child };
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

async function postQuery(url: string, sql: string, params: unknown[] = []) {
  const response = await fetch(`${url}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sql, params }),
  });
  if (!response.ok) throw new Error(`POST ${url}/query answered ${response.status}`);
  return (await response.json()) as {
    plan: string;
    count: number;
    documents: Record<string, unknown>[];
  };
}

/** Waits until `done` holds, polling; throws with `what` after FOLLOWER_WAIT_MS. */
async function waitFor(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + FOLLOWER_WAIT_MS;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what} within ${FOLLOWER_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ordersCount(url: string): Promise<number> {
  const stats = await getJson<{ collections: { name: string; count: number }[] }>(`${url}/stats`);
  return stats.collections.find((c) => c.name === 'orders')?.count ?? 0;
}

/** A leader with the five indexes and one follower, streaming before it returns. */
async function startPair(name: string, syncFollowers: number): Promise<Node[]> {
  const replicationPort = await freePort();
  // Started together: a leader with syncFollowers 1 waits for its follower to apply the
  // index creations before it says ready; the follower retries until the leader listens.
  const [leader, follower] = await Promise.all([
    startDocdbNode(`${name}-leader`, {
      nodeName: `${name}-leader`,
      replicationRole: 'leader',
      replicationPort,
      syncFollowers,
      indexes: true,
    }),
    startDocdbNode(`${name}-follower`, {
      nodeName: `${name}-follower`,
      replicationRole: 'follower',
      leaderHost: '127.0.0.1',
      leaderPort: replicationPort,
    }),
  ]);
  await waitFor(`the follower of ${name} did not connect`, async () => {
    const status = await getJson<{ followers?: { state: string }[] }>(
      `${leader.url}/replication/status`,
    );
    return status.followers?.some((f) => f.state === 'streaming') ?? false;
  });
  return [leader, follower];
}

function failures(outcome: LoadOutcome): number {
  return outcome.errors + outcome.timeouts + outcome.non2xx;
}

/** One load that must not fail: a failed request would flatter the rate. */
async function loadAll(spec: LoadSpec, what: string): Promise<LoadOutcome> {
  const outcome = await load(spec);
  if (failures(outcome) > 0) {
    throw new Error(`${what}: ${failures(outcome)} of ${outcome.requests} requests failed`);
  }
  return outcome;
}

/** Bulk load through a single node and through two leaders (syncFollowers 0 and 1). */
async function runReplication(options: Options, record: Record_, notes: string[]): Promise<void> {
  log('replication: starting a single node and two leaders with a follower each…');
  const single = await startDocdbNode('single', { nodeName: 'single', indexes: true });
  const [leader0, follower0] = (await startPair('async', 0)) as [Node, Node];
  const [leader1, follower1] = (await startPair('sync', 1)) as [Node, Node];
  const targets: { name: string; node: Node; workloads: [WorkloadId, string][] }[] = [
    {
      name: 'single node',
      node: single,
      workloads: [
        ['replicated-bulk-load', 'single-node'],
        ['replicated-bulk-load-sync', 'single-node'],
      ],
    },
    { name: 'leader', node: leader0, workloads: [['replicated-bulk-load', 'leader']] },
    {
      name: 'leader, syncFollowers 1',
      node: leader1,
      workloads: [['replicated-bulk-load-sync', 'leader']],
    },
  ];
  let nextDoc = 0;
  for (let round = -1; round < options.rounds; round++) {
    const requests = round < 0 ? options.bulkConnections : options.bulkRequests;
    for (const { name, node, workloads } of targets) {
      const outcome = await loadAll(
        {
          url: node.url,
          kind: 'bulk',
          connections: Math.min(options.bulkConnections, requests),
          amount: requests,
          keyBound: 1,
          seed: 0,
          bulkStart: nextDoc,
          batchSize: BULK_REQUEST_DOCS,
          timeoutSeconds: 120,
        },
        `replicated bulk load on the ${name}`,
      );
      const sample = sampleOf(outcome, BULK_REQUEST_DOCS);
      if (round >= 0)
        for (const [workload, system] of workloads) record(workload, system, round, sample);
      log(`replication round ${round + 1}: ${name} ${Math.round(sample.opsPerSec)} docs/s`);
    }
    nextDoc += requests * BULK_REQUEST_DOCS;
  }
  // The followers must hold what their leaders acknowledged, or the path was not replicated.
  for (const [leader, follower] of [
    [leader0, follower0],
    [leader1, follower1],
  ] as const) {
    const want = await ordersCount(leader.url);
    await waitFor(`a follower did not catch up to ${want} documents`, async () => {
      return (await ordersCount(follower.url)) === want;
    });
  }
  notes.push(
    `Replication: both followers held every document their leaders loaded (${nextDoc.toLocaleString('en-US')}) at the end.`,
  );
  for (const node of [follower0, follower1, leader0, leader1, single]) await node.child.stop();
}

/** Writes the cluster.json of the shards: `orders` hash-sharded on pnr. */
function writeClusterConfig(shards: Node[], routerPort: number): string {
  const file = path.join(tempDir('docdb-bench-cluster-'), 'cluster.json');
  const config = {
    version: 1,
    router: { port: routerPort },
    shards: shards.map((shard, i) => ({ name: `s${i + 1}`, endpoint: shard.url })),
    collections: { orders: { strategy: 'hash', path: 'pnr' } },
  };
  fs.writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** The router and the single node answer the same rows before anything is timed. */
async function checkSameAnswers(router: string, node: string, docs: number): Promise<void> {
  for (const n of [0, Math.floor(docs / 2), docs - 1]) {
    const [a, b] = await Promise.all([
      postQuery(router, DOCDB_SQL.point, [pnrAt(n)]),
      postQuery(node, DOCDB_SQL.point, [pnrAt(n)]),
    ]);
    if (a.count !== 1 || b.count !== 1) {
      throw new Error(`point lookup of document ${n}: router ${a.count}, node ${b.count} rows`);
    }
    // The workload is the router's single-shard path: its plan must say so.
    if (!a.plan.startsWith('SINGLE_SHARD(')) {
      throw new Error(`the router did not route the point lookup to one shard: ${a.plan}`);
    }
  }
  const scatter = (await postQuery(router, DOCDB_SQL.groupBy)).plan;
  if (!scatter.startsWith(`SCATTER(${SHARDS})`)) {
    throw new Error(`the router did not scatter the GROUP BY over ${SHARDS} shards: ${scatter}`);
  }
  const total = async (url: string) =>
    (await postQuery(url, DOCDB_SQL.groupBy)).documents.reduce(
      (sum, row) => sum + Number(row.n),
      0,
    );
  const [a, b] = await Promise.all([total(router), total(node)]);
  if (a !== docs || b !== docs)
    throw new Error(`GROUP BY counts: router ${a}, node ${b}, want ${docs}`);
}

/** Point lookups and a scattered GROUP BY through the router against one node. */
async function runRouter(options: Options, record: Record_): Promise<void> {
  log('router: starting three shards, the router and a single node…');
  const shards: Node[] = [];
  for (let i = 1; i <= SHARDS; i++) {
    shards.push(await startDocdbNode(`shard${i}`, { nodeName: `s${i}`, indexes: true }));
  }
  const node = await startDocdbNode('node', { nodeName: 'node', indexes: true });
  const routerPort = await freePort();
  const config = writeClusterConfig(shards, routerPort);
  const router = await startDocdbCommand(
    ['router', '-c', config, '--port', String(routerPort)],
    'docdb router listening',
  );
  const routerUrl = `http://127.0.0.1:${routerPort}`;
  const docs = options.docs;
  log(
    `router: loading ${docs.toLocaleString('en-US')} documents through the router and into the node…`,
  );
  for (const url of [routerUrl, node.url]) {
    const requests = Math.ceil(docs / BULK_REQUEST_DOCS);
    await loadAll(
      {
        url,
        kind: 'bulk',
        connections: Math.min(options.bulkConnections, requests),
        amount: requests,
        keyBound: 1,
        seed: 0,
        bulkStart: 0,
        batchSize: BULK_REQUEST_DOCS,
        timeoutSeconds: 120,
      },
      `loading ${url}`,
    );
  }
  await checkSameAnswers(
    routerUrl,
    node.url,
    Math.ceil(docs / BULK_REQUEST_DOCS) * BULK_REQUEST_DOCS,
  );
  const targets = [
    { system: 'router', url: routerUrl },
    { system: 'node', url: node.url },
  ];
  const workloads: { id: WorkloadId; kind: LoadSpec['kind']; connections: number }[] = [
    { id: 'router-point-lookup', kind: 'query', connections: options.pointConnections },
    { id: 'router-group-by', kind: 'group-by', connections: GROUP_BY_CONNECTIONS },
  ];
  for (const [w, workload] of workloads.entries()) {
    for (let round = -1; round < options.rounds; round++) {
      for (const target of targets) {
        const outcome = await loadAll(
          {
            url: target.url,
            kind: workload.kind,
            connections: workload.connections,
            durationSeconds: round < 0 ? options.servedWarmupSeconds : options.routerSeconds,
            keyBound: docs,
            seed: 300 + 10 * w + round,
            timeoutSeconds: 60,
          },
          `${workload.id} on ${target.system}`,
        );
        if (round >= 0) record(workload.id, target.system, round, sampleOf(outcome, 1));
      }
    }
    log(`${workload.id}: done`);
  }
  await runClusterClient(options, record, { config, routerUrl, nodeUrl: node.url });
  await router.stop();
  for (const shard of [...shards, node]) await shard.child.stop();
}

/**
 * The point lookup by the shard key through the cluster client against the typed client to
 * the node and to the router, each from `pointConnections` concurrent callers in a
 * client-worker process (one at a time, taking turns per round).
 */
async function runClusterClient(
  options: Options,
  record: Record_,
  at: { config: string; routerUrl: string; nodeUrl: string },
): Promise<void> {
  const targets: { system: string; target: ClientLoadSpec['target'] }[] = [
    { system: 'cluster-client', target: { clusterFile: at.config } },
    { system: 'node', target: { url: at.nodeUrl } },
    { system: 'router', target: { url: at.routerUrl } },
  ];
  for (let round = -1; round < options.rounds; round++) {
    for (const { system, target } of targets) {
      const spec: ClientLoadSpec = {
        target,
        callers: options.pointConnections,
        durationSeconds: round < 0 ? options.servedWarmupSeconds : options.routerSeconds,
        keyBound: options.docs,
        seed: 400 + round,
      };
      const outcome = await runJsonChild<LoadOutcome>('./cluster/client-worker.ts', [
        JSON.stringify(spec),
      ]);
      if (failures(outcome) > 0) {
        throw new Error(`cluster-client-point-lookup on ${system}: ${failures(outcome)} failed`);
      }
      if (round >= 0) record('cluster-client-point-lookup', system, round, sampleOf(outcome, 1));
    }
  }
  log('cluster-client-point-lookup: done');
}

/** Runs the replicated write path and the router path. */
export async function runCluster(options: Options): Promise<ClusterOutcome> {
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  const record: Record_ = (workload, system, round, sample) =>
    measurements.push({ workload, system, round, sample });
  await runReplication(options, record, notes);
  await runRouter(options, record);
  return { measurements, notes };
}

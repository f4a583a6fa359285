/**
 * The served phase: docdb's REST server against PostgreSQL (behind Fastify and a `pg` pool of
 * 8) and the HTTP ceiling (bare Fastify, constant answers), each server in its own process,
 * load from wrk or autocannon (load-worker.ts) in yet another. Workload 9: GET by `_id`, point `POST /query` (by text,
 * and by the handle `POST /query/prepare` answered), NDJSON stream of the whole collection,
 * bulk insert of 1,000-document requests; docdb's GET by `_id` with its default processes
 * against one (every-core.ts), then while 8 writers run (reads-while-writing.ts).
 */

import * as fs from 'node:fs';
import { AIRPORTS, idAt, orderAt, ordersFrom, pnrAt } from '../data.js';
import { DOCDB_SQL } from '../embedded/system.js';
import type { Measurement } from '../embedded/phase.js';
import type { Sample } from '../measure.js';
import type { Options } from '../options.js';
import { type ServerChild, startServerChild, tempDir, onCleanup } from '../proc.js';
import type { WorkloadId } from '../workloads.js';
import { load, sampleOf } from './load.js';
import { runEveryCore } from './every-core.js';
import { runReadsWhileWriting } from './reads-while-writing.js';
import type { LoadOutcome } from './load-worker.js';
import {
  copyOrders,
  countOrders,
  createIndexes,
  createTables,
  findInitdb,
  freePort,
  insertAirports,
  newPool,
  type PgCluster,
  serverVersion,
  startCluster,
} from './postgres.js';

/** Documents per COPY while loading PostgreSQL's starting data (not timed). */
const PG_LOAD_CHUNK_DOCS = 10_000;
/** Documents per bulk request (workload 9). */
const BULK_REQUEST_DOCS = 1000;
/** A whole-collection stream may take this long before autocannon gives up on it. */
const STREAM_TIMEOUT_SECONDS = 600;

/** What the served phase measured, and what it learned about PostgreSQL. */
export interface ServedOutcome {
  measurements: Measurement[];
  /** Why PostgreSQL was left out, when it was. */
  postgresSkipped?: string;
  postgresVersion?: string;
  notes: string[];
}

interface Server {
  name: 'docdb' | 'postgres' | 'http-ceiling';
  url: string;
  child: ServerChild;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The install hint printed when Debian's PostgreSQL is missing. */
export const POSTGRES_INSTALL_HINT =
  'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): the PostgreSQL workloads are skipped. Install it with `apt-get install -y postgresql` (Debian) and run again.';

/**
 * Starts a private PostgreSQL cluster holding documents [0, liveDocs) with the indexes and
 * the airports (the writers phase starts its own the same way).
 */
export async function startPostgres(
  liveDocs: number,
): Promise<{ cluster: PgCluster; version: string; loadSeconds: number }> {
  const initdb = findInitdb() as string;
  const root = tempDir('docdb-bench-pg-');
  const cluster = await startCluster(initdb, root);
  onCleanup('PostgreSQL cluster', () => cluster.stop());
  const pool = newPool(cluster);
  try {
    const version = await serverVersion(pool);
    await createTables(pool);
    const started = performance.now();
    for (let start = 0; start < liveDocs; start += PG_LOAD_CHUNK_DOCS) {
      await copyOrders(pool, ordersFrom(start, Math.min(PG_LOAD_CHUNK_DOCS, liveDocs - start)));
    }
    await createIndexes(pool);
    await insertAirports(pool, AIRPORTS);
    const loadSeconds = (performance.now() - started) / 1000;
    const count = await countOrders(pool);
    if (count !== liveDocs) throw new Error(`PostgreSQL holds ${count} orders, not ${liveDocs}`);
    return { cluster, version, loadSeconds };
  } finally {
    await pool.end();
  }
}

/** Checks a server answers the benchmark's requests with the right documents. */
async function check(server: Server, liveDocs: number): Promise<void> {
  const n = Math.floor(liveDocs / 2);
  const byId = await fetch(`${server.url}/collections/orders/${idAt(n)}`);
  const doc = (await byId.json()) as { pnr?: string };
  const query = await fetch(`${server.url}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sql: DOCDB_SQL.point, params: [pnrAt(n)] }),
  });
  const answer = (await query.json()) as { documents?: { pnr?: string }[] };
  const prepared = (await (
    await fetch(`${server.url}/query/prepare`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sql: DOCDB_SQL.point }),
    })
  ).json()) as { handle: string };
  const byHandle = await fetch(`${server.url}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ handle: prepared.handle, params: [pnrAt(n)] }),
  });
  const handled = (await byHandle.json()) as { documents?: { pnr?: string }[] };
  if (process.env.BENCH_DEBUG)
    console.log(server.name, query.status, JSON.stringify(answer).slice(0, 300));
  const stream = await fetch(`${server.url}/query?stream=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sql: DOCDB_SQL.streamAll }),
  });
  const lines = (await stream.text()).split('\n').filter((l) => l.includes('"pnr"')).length;
  if (server.name === 'http-ceiling') {
    if (!byId.ok || !query.ok || !byHandle.ok || lines !== liveDocs) {
      throw new Error(`the HTTP ceiling answers wrongly (stream lines ${lines})`);
    }
    return;
  }
  const expected = orderAt(n).pnr;
  const byHandlePnr = handled.documents?.[0]?.pnr;
  if (
    doc.pnr !== expected ||
    answer.documents?.[0]?.pnr !== expected ||
    byHandlePnr !== expected ||
    lines !== liveDocs
  ) {
    throw new Error(
      `${server.name} answers wrongly: GET pnr ${doc.pnr}, query pnr ${answer.documents?.[0]?.pnr}, prepared ${byHandlePnr} (want ${expected}); stream ${lines} documents (want ${liveDocs})`,
    );
  }
}

/** Runs workload 9 against the servers. */
export async function runServed(
  options: Options,
  docdbDir: string,
  liveDocs: number,
): Promise<ServedOutcome> {
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  const servers: Server[] = [];
  let postgresSkipped: string | undefined;
  let postgresVersion: string | undefined;
  let cluster: PgCluster | undefined;

  log('served: starting docdb, the HTTP ceiling and PostgreSQL…');
  const docdbPort = await freePort();
  servers.push({
    name: 'docdb',
    url: `http://127.0.0.1:${docdbPort}`,
    child: await startServerChild('./served/docdb-server.ts', [docdbDir, String(docdbPort)]),
  });
  if (findInitdb()) {
    const pg = await startPostgres(liveDocs);
    postgresVersion = pg.version;
    cluster = pg.cluster;
    notes.push(
      `PostgreSQL's starting data (${liveDocs.toLocaleString('en-US')} documents by COPY, then the indexes) took ${pg.loadSeconds.toFixed(1)} s (not a workload).`,
    );
    const port = await freePort();
    servers.push({
      name: 'postgres',
      url: `http://127.0.0.1:${port}`,
      child: await startServerChild('./served/peer-server.ts', [
        'postgres',
        String(port),
        String(pg.cluster.port),
      ]),
    });
  } else {
    postgresSkipped = POSTGRES_INSTALL_HINT;
    log(POSTGRES_INSTALL_HINT);
  }
  const ceilingPort = await freePort();
  servers.push({
    name: 'http-ceiling',
    url: `http://127.0.0.1:${ceilingPort}`,
    child: await startServerChild('./served/peer-server.ts', [
      'ceiling',
      String(ceilingPort),
      String(liveDocs),
    ]),
  });
  for (const server of servers) await check(server, liveDocs);

  const record = (workload: WorkloadId, system: string, round: number, sample: Sample) =>
    measurements.push({ workload, system, round, sample });
  const failures = (outcome: LoadOutcome) => outcome.errors + outcome.timeouts + outcome.non2xx;

  const point = async (
    workload: WorkloadId,
    kind: 'get' | 'query' | 'query-prepared',
    seedBase: number,
  ) => {
    log(`${workload}: warm-up`);
    for (const server of servers) {
      await load({
        url: server.url,
        kind,
        connections: options.pointConnections,
        durationSeconds: options.servedWarmupSeconds,
        keyBound: liveDocs,
        seed: seedBase,
        timeoutSeconds: 30,
      });
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const server of servers) {
        const outcome = await load({
          url: server.url,
          kind,
          connections: options.pointConnections,
          durationSeconds: options.servedSeconds,
          keyBound: liveDocs,
          seed: seedBase + round + 1,
          timeoutSeconds: 30,
        });
        if (failures(outcome) > 0) {
          notes.push(
            `${workload} on ${server.name}, round ${round + 1}: ${failures(outcome)} failed requests.`,
          );
        }
        record(workload, server.name, round, sampleOf(outcome, 1));
      }
    }
  };
  await point('rest-get-by-id', 'get', 100);
  await point('rest-query-point', 'query', 200);
  await point('rest-query-point-prepared', 'query-prepared', 300);
  // Before the bulk row grows the collection: the same documents as the GET by `_id` row.
  const docdb = servers[0] as Server;
  notes.push(
    ...(await runEveryCore(
      options,
      docdb.url,
      liveDocs,
      async (flags) => {
        await docdb.child.stop();
        docdb.child = await startServerChild('./served/docdb-server.ts', [
          docdbDir,
          String(docdbPort),
          JSON.stringify(flags),
        ]);
      },
      record,
    )),
  );

  log('rest-stream-all: warm-up and rounds');
  for (let round = -1; round < options.rounds; round++) {
    for (const server of servers) {
      const outcome = await load({
        url: server.url,
        kind: 'stream',
        connections: 1,
        amount: round < 0 ? 1 : options.streamRequests,
        keyBound: liveDocs,
        seed: 0,
        timeoutSeconds: STREAM_TIMEOUT_SECONDS,
      });
      if (round >= 0) record('rest-stream-all', server.name, round, sampleOf(outcome, liveDocs));
    }
  }

  // Bulk last: it grows the collections. Each round inserts new documents (numbered past
  // --docs), the same ones on every system.
  log('rest-bulk-insert: warm-up and rounds');
  let nextDoc = options.docs;
  for (let round = -1; round < options.rounds; round++) {
    const requests = round < 0 ? options.bulkConnections : options.bulkRequests;
    for (const server of servers) {
      const outcome = await load({
        url: server.url,
        kind: 'bulk',
        // autocannon refuses more connections than requests.
        connections: Math.min(options.bulkConnections, requests),
        amount: requests,
        keyBound: liveDocs,
        seed: 0,
        bulkStart: nextDoc,
        batchSize: BULK_REQUEST_DOCS,
        timeoutSeconds: 120,
      });
      if (failures(outcome) > 0) {
        notes.push(
          `rest-bulk-insert on ${server.name}, round ${round + 1}: ${failures(outcome)} failed requests.`,
        );
      }
      if (round >= 0) {
        record('rest-bulk-insert', server.name, round, sampleOf(outcome, BULK_REQUEST_DOCS));
      }
    }
    nextDoc += requests * BULK_REQUEST_DOCS;
  }

  // After bulk too: its writers grow docdb's collection alone, which no other row may see.
  notes.push(
    ...(await runReadsWhileWriting(options, `http://127.0.0.1:${docdbPort}`, liveDocs, record)),
  );

  for (const server of servers) await server.child.stop();
  cluster?.stop();
  fs.rmSync(docdbDir, { recursive: true, force: true });
  return {
    measurements,
    notes,
    ...(postgresSkipped !== undefined && { postgresSkipped }),
    ...(postgresVersion !== undefined && { postgresVersion }),
  };
}

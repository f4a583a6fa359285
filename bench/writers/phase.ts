/**
 * The concurrent-writers phase (issue 13): 8 clients doing single-document durable writes
 * (inserts and updates in turn) for a time box, on fresh stores loaded with the documents of
 * the other phases. Embedded: docdb's 8 concurrent async callers in one process against
 * SQLite's 8 worker threads (a connection each, one write lock) and PostgreSQL's 8
 * connections committing per write. Served: docdb's REST API against the PostgreSQL Fastify
 * server, 8 connections each. The systems take turns per round with the same documents.
 */

import * as fs from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { LOAD_BATCH_DOCS, type Measurement } from '../embedded/phase.js';
import { DocdbEmbedded } from '../embedded/docdb.js';
import { SqliteEmbedded } from '../embedded/sqlite.js';
import { type Order, ordersFrom } from '../data.js';
import type { Sample } from '../measure.js';
import type { Options } from '../options.js';
import { startServerChild, startTsWorker, tempDir } from '../proc.js';
import type { LoadOutcome } from '../served/load-worker.js';
import { load, sampleOf } from '../served/load.js';
import { POSTGRES_INSTALL_HINT, startPostgres } from '../served/phase.js';
import {
  connections,
  findInitdb,
  freePort,
  insertOrder,
  newPool,
  type PgCluster,
  updateStatus,
} from '../served/postgres.js';
import type { WorkloadId } from '../workloads.js';
import {
  insertBase,
  WRITERS,
  type WriterOutcome,
  type WriterPlan,
  writeFor,
  writerOp,
  writesPerSec,
} from './plan.js';
import type { WriterMessage } from './sqlite-writer.js';

/** What the phase measured. */
export interface WritersOutcome {
  measurements: Measurement[];
  notes: string[];
  postgresSkipped?: string;
  postgresVersion?: string;
}

/** One system of the embedded writers: runs WRITERS writers side by side for a time box. */
interface WritersSystem {
  name: string;
  run(plan: WriterPlan, durationMs: number): Promise<WriterOutcome[]>;
  close(): Promise<void>;
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function docdbWriters(docdb: DocdbEmbedded): WritersSystem {
  const ops = {
    insert: (doc: Order) => docdb.insertOne(doc),
    update: (pnr: string, status: string) => docdb.update(pnr, status),
  };
  return {
    name: 'docdb',
    run: (plan, durationMs) =>
      Promise.all(
        Array.from({ length: WRITERS }, (_, w) => writeFor(durationMs, writerOp(ops, plan, w))),
      ),
    close: () => docdb.close(),
  };
}

/** SQLite's writers: one worker thread and one connection each, kept for every round. */
async function sqliteWriters(dir: string): Promise<WritersSystem> {
  const workers: Worker[] = [];
  const next = (worker: Worker) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  for (let index = 0; index < WRITERS; index++) {
    const worker = startTsWorker('./writers/sqlite-writer.ts', { dir, index });
    await next(worker);
    workers.push(worker);
  }
  return {
    name: 'sqlite',
    run: async (plan, durationMs) => {
      const answers = workers.map(next);
      const message: WriterMessage = { type: 'run', plan, durationMs };
      for (const worker of workers) worker.postMessage(message);
      return (await Promise.all(answers)).map((answer) => {
        if (!answer.ok) throw new Error(`a SQLite writer failed: ${answer.error}`);
        return answer.outcome as WriterOutcome;
      });
    },
    close: async () => {
      const closing = workers.map((w) => new Promise((resolve) => w.once('exit', resolve)));
      for (const worker of workers) worker.postMessage({ type: 'close' } satisfies WriterMessage);
      await Promise.all(closing);
    },
  };
}

/** PostgreSQL's writers: 8 connections of one pool, each committing every write. */
async function postgresWriters(cluster: PgCluster): Promise<WritersSystem> {
  const pool = newPool(cluster);
  const clients = await connections(pool, WRITERS);
  return {
    name: 'postgres',
    run: (plan, durationMs) =>
      Promise.all(
        clients.map((client, w) =>
          writeFor(
            durationMs,
            writerOp(
              {
                insert: (doc) => insertOrder(client, doc),
                update: (pnr, status) => updateStatus(client, pnr, status),
              },
              plan,
              w,
            ),
          ),
        ),
      ),
    close: async () => {
      for (const client of clients) client.release();
      await pool.end();
    },
  };
}

async function loadDocs(insert: (batch: Order[]) => unknown, docs: number): Promise<void> {
  for (let start = 0; start < docs; start += LOAD_BATCH_DOCS) {
    await insert(ordersFrom(start, Math.min(LOAD_BATCH_DOCS, docs - start)));
  }
}

function sampleOfWriters(outcomes: WriterOutcome[]): Sample {
  const ops = outcomes.reduce((sum, o) => sum + o.ops, 0);
  return { opsPerSec: writesPerSec(outcomes), p50Ms: null, p99Ms: null, ops };
}

/** Runs the concurrent-writers workloads, embedded then served. */
export async function runWriters(options: Options): Promise<WritersOutcome> {
  const measurements: Measurement[] = [];
  const notes: string[] = [];
  const record = (workload: WorkloadId, system: string, round: number, sample: Sample) =>
    measurements.push({ workload, system, round, sample });
  const docs = options.docs;

  log(`writers: loading ${docs.toLocaleString('en-US')} documents into fresh stores…`);
  const docdb = new DocdbEmbedded();
  const docdbDir = tempDir('docdb-bench-writers-docdb-');
  await docdb.open(docdbDir);
  await loadDocs((batch) => docdb.insertBatch(batch), docs);
  const sqlite = new SqliteEmbedded();
  const sqliteDir = tempDir('docdb-bench-writers-sqlite-');
  await sqlite.open(sqliteDir);
  await loadDocs((batch) => sqlite.insertBatch(batch), docs);
  await sqlite.close();
  const systems: WritersSystem[] = [docdbWriters(docdb), await sqliteWriters(sqliteDir)];
  let cluster: PgCluster | undefined;
  let postgresVersion: string | undefined;
  let postgresSkipped: string | undefined;
  if (findInitdb()) {
    const pg = await startPostgres(docs);
    cluster = pg.cluster;
    postgresVersion = pg.version;
    systems.push(await postgresWriters(pg.cluster));
  } else {
    postgresSkipped = POSTGRES_INSTALL_HINT;
  }

  for (let round = -1; round < options.rounds; round++) {
    const plan: WriterPlan = {
      start: insertBase(docs, round + 1),
      liveDocs: docs,
      seed: 500 + round,
    };
    for (const system of systems) {
      const outcomes = await system.run(
        plan,
        round < 0 ? options.writersWarmupMs : options.writersMs,
      );
      const sample = sampleOfWriters(outcomes);
      if (round >= 0) record('concurrent-writers', system.name, round, sample);
      log(
        `concurrent writers round ${round + 1}: ${system.name} ${Math.round(sample.opsPerSec)} writes/s`,
      );
    }
  }
  for (const system of systems) await system.close();
  fs.rmSync(sqliteDir, { recursive: true, force: true });

  await runServedWriters(options, docdbDir, cluster, record);
  cluster?.stop();
  fs.rmSync(docdbDir, { recursive: true, force: true });
  return { measurements, notes, postgresSkipped, postgresVersion };
}

/** docdb's REST node on the writers' store against the PostgreSQL Fastify server. */
async function runServedWriters(
  options: Options,
  docdbDir: string,
  cluster: PgCluster | undefined,
  record: (workload: WorkloadId, system: string, round: number, sample: Sample) => void,
): Promise<void> {
  log('served writers: starting docdb and the PostgreSQL server…');
  const servers: { name: string; url: string; stop: () => Promise<void> }[] = [];
  const docdbPort = await freePort();
  const docdbChild = await startServerChild('./served/docdb-server.ts', [
    docdbDir,
    String(docdbPort),
  ]);
  servers.push({ name: 'docdb', url: `http://127.0.0.1:${docdbPort}`, stop: docdbChild.stop });
  if (cluster) {
    const port = await freePort();
    const child = await startServerChild('./served/peer-server.ts', [
      'postgres',
      String(port),
      String(cluster.port),
    ]);
    servers.push({ name: 'postgres', url: `http://127.0.0.1:${port}`, stop: child.stop });
  }
  const failures = (o: LoadOutcome) => o.errors + o.timeouts + o.non2xx;
  for (let round = -1; round < options.rounds; round++) {
    for (const server of servers) {
      const outcome = await load({
        url: server.url,
        kind: 'write',
        connections: WRITERS,
        durationSeconds: round < 0 ? options.servedWarmupSeconds : options.writersServedSeconds,
        keyBound: options.docs,
        seed: 600 + round,
        insertStart: insertBase(options.docs, options.rounds + 2 + round),
        timeoutSeconds: 30,
      });
      // A failed write would flatter the rate: the run stops instead.
      if (failures(outcome) > 0) {
        throw new Error(
          `rest-concurrent-writers on ${server.name}: ${failures(outcome)} of ${outcome.requests} writes failed`,
        );
      }
      if (round >= 0) record('rest-concurrent-writers', server.name, round, sampleOf(outcome, 1));
      log(
        `served writers round ${round + 1}: ${server.name} ${Math.round(sampleOf(outcome, 1).opsPerSec)} writes/s`,
      );
    }
  }
  for (const server of servers) await server.stop();
}

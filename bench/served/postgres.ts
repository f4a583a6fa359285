/**
 * PostgreSQL as a peer: a private cluster of Debian's PostgreSQL initialised in a temp dir,
 * listening on 127.0.0.1 on a free port with default durability, a JSONB table with
 * expression indexes on the same five paths, and COPY through `pg`. It owns the cluster's
 * life (start, stop, remove) and is the only importer of `pg` and `pg-copy-streams`.
 */

import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** Where Debian puts PostgreSQL's server binaries. */
const DEBIAN_PG_ROOT = '/usr/lib/postgresql';
/** The OS user that runs the cluster when the harness runs as root (initdb refuses root). */
const PG_OS_USER = 'postgres';
/** The database role the benchmark connects as (trust authentication, loopback only). */
export const PG_ROLE = 'bench';
export const PG_DATABASE = 'postgres';
/** Connections of the pool that serves the REST peer, as issue 5 asks. */
export const PG_POOL_SIZE = 8;

/** How to reach a running cluster. */
export interface PgAddress {
  host: string;
  port: number;
  user: string;
  database: string;
}

/** A running private cluster. */
export interface PgCluster extends PgAddress {
  version: string;
  /** Stops the server and removes its directory; safe to call twice. */
  stop(): void;
}

/** The newest `initdb` of Debian's PostgreSQL packages, or undefined when none is installed. */
export function findInitdb(): string | undefined {
  if (!fs.existsSync(DEBIAN_PG_ROOT)) return undefined;
  const versions = fs
    .readdirSync(DEBIAN_PG_ROOT)
    .filter((v) => fs.existsSync(path.join(DEBIAN_PG_ROOT, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(DEBIAN_PG_ROOT, versions[0], 'bin', 'initdb');
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary, as the `postgres` OS user when we are root. */
function runPg(binary: string, args: string[], cwd: string): string {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot
    ? ['runuser', ['-u', PG_OS_USER, '--', binary, ...args]]
    : [binary, args];
  return execFileSync(file, argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Makes sure the OS user exists (Debian's package creates it; a bare image may not). */
function ensureOsUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = () => spawnSync('id', ['-u', PG_OS_USER], { encoding: 'utf8' });
  if (id().status !== 0) {
    execFileSync('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      PG_OS_USER,
    ]);
  }
  const uid = Number(id().stdout.trim());
  const gid = Number(spawnSync('id', ['-g', PG_OS_USER], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

/**
 * Initialises and starts a cluster under `root` (a fresh temp dir, removed by stop()).
 * Default settings but the address: 127.0.0.1 on a free port, the socket inside `root`.
 */
export async function startCluster(initdb: string, root: string): Promise<PgCluster> {
  const bin = path.dirname(initdb);
  const owner = ensureOsUser();
  if (owner) fs.chownSync(root, owner.uid, owner.gid);
  const data = path.join(root, 'data');
  const port = await freePort();
  runPg(
    initdb,
    ['-D', data, '-U', PG_ROLE, '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'],
    root,
  );
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${root}`;
  let running = false;
  const stop = () => {
    if (running) {
      running = false;
      try {
        runPg(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], root);
      } catch {
        // Already gone: nothing to stop.
      }
    }
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    runPg(
      path.join(bin, 'pg_ctl'),
      ['-D', data, '-l', path.join(root, 'server.log'), '-o', options, '-w', 'start'],
      root,
    );
    running = true;
  } catch (error) {
    stop();
    throw error;
  }
  const version = path.basename(path.dirname(bin));
  return { host: '127.0.0.1', port, user: PG_ROLE, database: PG_DATABASE, version, stop };
}

/** A pool of PG_POOL_SIZE connections. */
export function newPool(address: PgAddress): pg.Pool {
  return new pg.Pool({ ...address, max: PG_POOL_SIZE });
}

/** The server's `version()` string. */
export async function serverVersion(pool: pg.Pool): Promise<string> {
  return (await pool.query<{ v: string }>('SELECT version() AS v')).rows[0]?.v ?? 'unknown';
}

/** The orders and airports tables, without the secondary indexes. */
export async function createTables(pool: pg.Pool): Promise<void> {
  await pool.query('CREATE TABLE orders (id uuid PRIMARY KEY, doc jsonb NOT NULL)');
  await pool.query('CREATE TABLE airports (code text PRIMARY KEY, doc jsonb NOT NULL)');
}

/**
 * The five indexes of issue 5 as expression indexes: B-trees on the scalar paths, GIN on
 * the arrays of values that the multikey paths yield.
 */
export async function createIndexes(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE UNIQUE INDEX orders_pnr ON orders ((doc->>'pnr'))`);
  await pool.query(`CREATE INDEX orders_status ON orders ((doc->>'status'))`);
  await pool.query(
    `CREATE INDEX orders_lastname ON orders USING gin (jsonb_path_query_array(doc, '$.passengers[*].lastName'))`,
  );
  await pool.query(
    `CREATE INDEX orders_from ON orders USING gin (jsonb_path_query_array(doc, '$.flights[*].from'))`,
  );
  await pool.query(`CREATE INDEX orders_fare_total ON orders (((doc->'fare'->>'total')::numeric))`);
  await pool.query('ANALYZE orders');
}

/** One row of COPY's text format: backslashes doubled (JSON text has no tab or newline). */
function copyLine(doc: { _id: string }): string {
  return `${doc._id}\t${JSON.stringify(doc).replaceAll('\\', '\\\\')}\n`;
}

/** Inserts documents with `COPY orders (id, doc) FROM STDIN` on one pooled connection. */
export async function copyOrders(pool: pg.Pool, docs: readonly { _id: string }[]): Promise<void> {
  const client = await pool.connect();
  try {
    const stream = client.query(copyFrom('COPY orders (id, doc) FROM STDIN'));
    let text = '';
    for (const doc of docs) text += copyLine(doc);
    await pipeline(
      (async function* () {
        yield text;
      })(),
      stream,
    );
  } finally {
    client.release();
  }
}

/** The statements of the served workloads. */
export const PG_SQL = {
  getById: 'SELECT doc::text AS doc FROM orders WHERE id = $1',
  point: `SELECT doc::text AS doc FROM orders WHERE doc->>'pnr' = $1`,
  streamAll: 'SELECT doc::text FROM orders',
  insert: 'INSERT INTO orders (id, doc) VALUES ($1, $2)',
  update: `UPDATE orders SET doc = jsonb_set(doc, '{status}', to_jsonb($1::text)) WHERE doc->>'pnr' = $2`,
} as const;

/** A pool or one of its connections: both run statements. */
type Queryable = pg.Pool | pg.PoolClient;

/** Inserts one document in its own transaction (autocommit: one durable commit). */
export async function insertOrder(db: Queryable, doc: { _id: string }): Promise<void> {
  await db.query({ name: 'insert', text: PG_SQL.insert, values: [doc._id, JSON.stringify(doc)] });
}

/** Sets the status of the order with this pnr (autocommit); returns the rows changed. */
export async function updateStatus(db: Queryable, pnr: unknown, status: unknown): Promise<number> {
  const result = await db.query({ name: 'update', text: PG_SQL.update, values: [status, pnr] });
  return result.rowCount ?? 0;
}

/** Holds `count` connections of the pool, one per concurrent writer. */
export async function connections(pool: pg.Pool, count: number): Promise<pg.PoolClient[]> {
  const clients: pg.PoolClient[] = [];
  for (let i = 0; i < count; i++) clients.push(await pool.connect());
  return clients;
}

/** One document's JSON text by `_id`, or undefined. */
export async function getById(pool: pg.Pool, id: string): Promise<string | undefined> {
  const result = await pool.query<{ doc: string }>({
    name: 'get-by-id',
    text: PG_SQL.getById,
    values: [id],
  });
  return result.rows[0]?.doc;
}

/** The documents' JSON texts whose pnr equals `pnr`. */
export async function findByPnr(pool: pg.Pool, pnr: unknown): Promise<string[]> {
  const result = await pool.query<{ doc: string }>({
    name: 'point',
    text: PG_SQL.point,
    values: [pnr],
  });
  return result.rows.map((r) => r.doc);
}

/** Rows fetched from the cursor per round trip when streaming the whole table. */
const CURSOR_FETCH_ROWS = 1000;

/**
 * Every document's JSON text as NDJSON chunks, read through a cursor in one transaction (a
 * consistent snapshot, bounded memory), one chunk per fetch.
 */
export async function* streamAll(pool: pg.Pool): AsyncGenerator<string> {
  const client = await pool.connect();
  let completed = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await client.query(`DECLARE all_orders NO SCROLL CURSOR FOR ${PG_SQL.streamAll}`);
    for (;;) {
      const { rows } = await client.query<{ doc: string }>(
        `FETCH ${CURSOR_FETCH_ROWS} FROM all_orders`,
      );
      if (rows.length === 0) break;
      let chunk = '';
      for (const row of rows) chunk += `${row.doc}\n`;
      yield chunk;
    }
    await client.query('COMMIT');
    completed = true;
  } finally {
    // A client left inside the transaction (error, or the reader went away) is discarded.
    client.release(!completed);
  }
}

/** The row count of orders. */
export async function countOrders(pool: pg.Pool): Promise<number> {
  const result = await pool.query<{ n: string }>('SELECT count(*) AS n FROM orders');
  return Number(result.rows[0]?.n ?? 0);
}

/** Loads the reference collection (the served phase does not query it; kept for parity). */
export async function insertAirports(
  pool: pg.Pool,
  airports: readonly { code: string }[],
): Promise<void> {
  for (const airport of airports) {
    await pool.query('INSERT INTO airports (code, doc) VALUES ($1, $2)', [
      airport.code,
      JSON.stringify(airport),
    ]);
  }
}

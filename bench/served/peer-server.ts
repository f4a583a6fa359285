/**
 * The served peers, each in its own process (started by the served phase, stopped with
 * SIGTERM): `ceiling`, a bare Fastify server answering every benchmark route with a constant
 * body of docdb's size (the HTTP ceiling of this machine), and `postgres`, the same Fastify
 * with the routes an application would write over a `pg` pool of 8 connections. The only
 * importer of Fastify in the harness.
 *
 * Usage: peer-server.ts ceiling <port> <streamDocs> | postgres <port> <pgPort>
 */

import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { DOCDB_SQL } from '../embedded/system.js';
import { idAt, orderAt } from '../data.js';
import {
  copyOrders,
  findByPnr,
  getById,
  insertOrder,
  newPool,
  PG_DATABASE,
  PG_ROLE,
  streamAll,
  updateStatus,
} from './postgres.js';

/** docdb's own body limit (32 MiB), so both sides accept the same requests. */
const BODY_BYTES_MAX = 32 * 1024 * 1024;
/** Documents per chunk the ceiling writes when it streams. */
const STREAM_CHUNK_DOCS = 1000;

interface QueryBody {
  sql?: string;
  /** What this peer's `POST /query/prepare` answered: the benchmark statement's own name. */
  handle?: string;
  params?: unknown[];
}

/**
 * `POST /query/prepare` of a peer: the point lookup's handle is its name, `point`, which is
 * also PostgreSQL's name of its prepared statement (`findByPnr`): both the text and the
 * prepared row run PostgreSQL's prepared form, its best.
 */
const POINT_HANDLE = 'point';
const preparedPoint = { handle: POINT_HANDLE, kind: 'select', paramCount: 1 };

function app(): FastifyInstance {
  return Fastify({ logger: false, bodyLimit: BODY_BYTES_MAX });
}

/** The ceiling: constant answers of the size docdb gives, so only HTTP and JSON cost. */
function ceiling(streamDocs: number): FastifyInstance {
  const doc = JSON.stringify(orderAt(0));
  const queryAnswer = JSON.stringify({
    plan: 'INDEX_SCAN(orders_pnr)',
    count: 1,
    executionMs: 0.01,
    documents: [orderAt(0)],
  });
  const bulkAnswer = JSON.stringify({
    ids: Array.from({ length: 1000 }, (_, i) => idAt(i)),
    errors: [],
  });
  const chunk = `${doc}\n`.repeat(STREAM_CHUNK_DOCS);
  const server = app();
  server.get('/collections/:name/:id', async (_request, reply) => {
    reply.type('application/json');
    return doc;
  });
  server.post<{ Querystring: { stream?: string } }>('/query', async (request, reply) => {
    if (request.query.stream !== 'true') {
      reply.type('application/json');
      return queryAnswer;
    }
    reply.type('application/x-ndjson');
    const lines = (function* () {
      yield `${JSON.stringify({ plan: 'COLLECTION_SCAN', count: streamDocs })}\n`;
      for (let sent = 0; sent < streamDocs; sent += STREAM_CHUNK_DOCS) {
        const n = Math.min(STREAM_CHUNK_DOCS, streamDocs - sent);
        yield n === STREAM_CHUNK_DOCS ? chunk : `${doc}\n`.repeat(n);
      }
    })();
    return reply.send(Readable.from(lines));
  });
  server.post('/collections/:name/bulk', async (_request, reply) => {
    reply.type('application/json');
    return bulkAnswer;
  });
  server.post('/query/prepare', async () => preparedPoint);
  return server;
}

/** The PostgreSQL-backed routes: documents travel as JSON text, never parsed in Node. */
function postgres(pgPort: number): { server: FastifyInstance; close: () => Promise<void> } {
  const pool = newPool({ host: '127.0.0.1', port: pgPort, user: PG_ROLE, database: PG_DATABASE });
  const server = app();
  server.get<{ Params: { id: string } }>('/collections/:name/:id', async (request, reply) => {
    const doc = await getById(pool, request.params.id);
    if (doc === undefined) return reply.code(404).send({ error: 'not found' });
    reply.type('application/json');
    return doc;
  });
  server.post<{ Body: QueryBody; Querystring: { stream?: string } }>(
    '/query',
    async (request, reply) => {
      const { params = [] } = request.body;
      const sql = request.body.handle === POINT_HANDLE ? DOCDB_SQL.point : request.body.sql;
      if (request.query.stream === 'true' && sql === DOCDB_SQL.streamAll) {
        reply.type('application/x-ndjson');
        return reply.send(Readable.from(streamAll(pool)));
      }
      if (sql === DOCDB_SQL.update) {
        const affected = await updateStatus(pool, params[1], params[0]);
        return { count: 0, documents: [], affected };
      }
      if (sql !== DOCDB_SQL.point) {
        return reply.code(400).send({ error: 'this peer serves the benchmark statements only' });
      }
      const docs = await findByPnr(pool, params[0]);
      reply.type('application/json');
      return `{"count":${docs.length},"documents":[${docs.join(',')}]}`;
    },
  );
  server.post<{ Body: { sql: string } }>('/query/prepare', async (request, reply) => {
    if (request.body.sql !== DOCDB_SQL.point) {
      return reply.code(400).send({ error: 'this peer prepares the point lookup only' });
    }
    return preparedPoint;
  });
  server.post<{ Body: { _id: string } }>('/collections/:name', async (request, reply) => {
    await insertOrder(pool, request.body);
    return reply.code(201).send({ id: request.body._id });
  });
  server.post<{ Body: { _id: string }[] }>('/collections/:name/bulk', async (request) => {
    await copyOrders(pool, request.body);
    return { ids: request.body.map((d) => d._id), errors: [] };
  });
  return { server, close: () => pool.end() };
}

async function main(): Promise<void> {
  const [mode, portText, extra] = process.argv.slice(2);
  const port = Number(portText);
  let server: FastifyInstance;
  let close = async () => {};
  if (mode === 'ceiling') {
    server = ceiling(Number(extra));
  } else if (mode === 'postgres') {
    ({ server, close } = postgres(Number(extra)));
  } else {
    throw new Error(`unknown peer ${mode}; use ceiling or postgres`);
  }
  await server.listen({ port, host: '127.0.0.1' });
  process.once('SIGTERM', () => {
    server
      .close()
      .then(close)
      .finally(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

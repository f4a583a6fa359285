/**
 * POST /query: one SQL statement with optional `params`, given as its text (`sql`) or as the
 * handle POST /query/prepare answered for it (`handle`). The default answer is the whole
 * result as JSON; with `Accept: application/x-ndjson` or `?stream=true` it is NDJSON: line 1
 * the meta `{ plan, count, executionMs }`, then one document per line, sent with
 * backpressure. Every answer carries X-DOCDB-Plan, X-DOCDB-Count and X-DOCDB-ExecutionMs,
 * errors included (plan `NONE` when none was made, count 0). A router adds `shard`, the
 * ShardPlan of a shard's part (ADR 0014): `kind: 'partial'` answers an aggregate's groups as
 * `{ group, states }`; `kind: 'rows'` answers the first `top` rows, and `sortKeys` adds
 * `sortKeys` beside `documents` (NDJSON: `{ doc, sortKey }` per line).
 */

import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dbError, isDbError } from '../../errors/index.js';
import { isJsonLines, NDJSON_CHUNK_BYTES, rowJson } from '../../util/index.js';
import { sendJson } from '../json-answer.js';
import type { QueryMeta, ShardPlan } from '../../types/index.js';
import type { ApiContext } from '../route-context.js';
import { FLAG, flag } from './query-string.js';

interface QueryBody {
  /** The statement's text; or `handle`, never both. */
  sql?: string;
  /** What POST /query/prepare answered for the text (docs/rest.md, "Prepared statements"). */
  handle?: string;
  params?: unknown[];
  /** A router's plan for this shard's part of a scattered SELECT (ADR 0014). */
  shard?: ShardPlan;
}

const schema = {
  summary: 'Run one SQL statement',
  body: {
    type: 'object',
    properties: {
      sql: { type: 'string', minLength: 1 },
      handle: { type: 'string', minLength: 1 },
      params: { type: 'array' },
      shard: {
        type: 'object',
        required: ['kind'],
        properties: {
          kind: { type: 'string', enum: ['partial', 'rows'], description: "'partial' or 'rows'" },
          top: {
            type: 'integer',
            minimum: 0,
            maximum: Number.MAX_SAFE_INTEGER,
            description: 'a non-negative integer (the rows a shard answers)',
          },
          sortKeys: { type: 'boolean', description: 'true or false' },
        },
        additionalProperties: false,
      },
    },
    // One of `sql` and `handle`; statementOf refuses both.
    anyOf: [{ required: ['sql'] }, { required: ['handle'] }],
    additionalProperties: false,
  },
  // `stream=true` asks for NDJSON.
  querystring: { type: 'object', properties: { stream: FLAG } },
} as const;

const prepareSchema = {
  summary: 'Parse one SQL statement and answer the handle to run it by',
  body: {
    type: 'object',
    required: ['sql'],
    properties: { sql: { type: 'string', minLength: 1 } },
    additionalProperties: false,
  },
} as const;

/** The statement a /query body names: its text or its handle, exactly one of them. */
function statementOf(body: QueryBody): string | { handle: string } {
  const { sql, handle } = body;
  if ((sql === undefined) === (handle === undefined)) {
    const got = sql === undefined ? 'neither was given' : 'both were given';
    throw dbError('ERR_BAD_REQUEST', 'sqlOrHandle', { got });
  }
  return sql ?? { handle: handle as string };
}

const JSON_ROWS = { rows: 'json' } as const;
/** A stream's rows as NDJSON chunks where the node writes them so, else as JSON_ROWS. */
const NDJSON_ROWS = { rows: 'ndjson' } as const;

/**
 * Sets X-DOCDB-Plan, X-DOCDB-Count and X-DOCDB-ExecutionMs. The names are written in lower
 * case, as they go on the wire: Fastify lowercases every name it is given, and a name that
 * changes makes a new string to hash on every request.
 */
function setMetaHeaders(reply: FastifyReply, meta: QueryMeta): void {
  reply.header('x-docdb-plan', meta.plan);
  reply.header('x-docdb-count', String(meta.count));
  reply.header('x-docdb-executionms', meta.executionMs.toFixed(3));
}

/**
 * Sets the three headers on an error answer, which DESIGN §4 owes on every /query response:
 * the plan when one was made (a DbError raised after planning carries it as `details.plan`),
 * else `NONE`; count 0; and the time since the request reached the route. It runs only on
 * errors (a route-level onError hook), before the error handler writes the body.
 */
function setErrorMetaHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  done: () => void,
): void {
  const given = isDbError(error) ? error.details?.plan : undefined;
  const plan = typeof given === 'string' ? given : 'NONE';
  setMetaHeaders(reply, {
    plan,
    count: 0,
    executionMs: performance.now() - request.receivedAtMs,
  });
  done();
}

/**
 * Sends an NDJSON answer: the meta line, then one line per row, in chunks of about 64 KiB (one
 * stream write per row would cost more than encoding it; backpressure still holds between
 * chunks). Rows that come as JsonLines are such chunks already, sent as they are. A node and
 * a router both answer streamed queries through it.
 */
function sendNdjson(
  request: FastifyRequest,
  reply: FastifyReply,
  meta: QueryMeta,
  rows: AsyncIterable<unknown>,
): FastifyReply {
  const lines = (async function* () {
    yield `${JSON.stringify(meta)}\n`;
    let chunk = '';
    try {
      for await (const row of rows) {
        if (isJsonLines(row)) {
          if (chunk) yield chunk;
          chunk = '';
          yield row.bytes;
          continue;
        }
        chunk += `${rowJson(row)}\n`;
        if (chunk.length >= NDJSON_CHUNK_BYTES) {
          yield chunk;
          chunk = '';
        }
      }
    } catch (error) {
      // The status and meta line are already sent: all that is left is to cut the response
      // short (the client sees fewer lines than the meta's count) and say why.
      request.log.error({ err: error }, 'NDJSON stream failed after its meta line');
      throw error;
    }
    if (chunk) yield chunk;
  })();
  reply.type('application/x-ndjson');
  return reply.send(Readable.from(lines));
}

export function registerQueryRoutes(app: FastifyInstance, { api, metrics }: ApiContext): void {
  app.post<{ Body: QueryBody; Querystring: { stream?: string } }>(
    '/query',
    { schema, onError: setErrorMetaHeaders },
    async (request, reply) => {
      const { params = [], shard } = request.body;
      const statement = statementOf(request.body);
      const accept = request.headers.accept ?? '';
      const streaming = flag(request.query.stream) || accept.includes('application/x-ndjson');
      if (!streaming) {
        // Rows as JSON text where the node holds them so: spliced into the answer as they are.
        const options = shard === undefined ? JSON_ROWS : { shard, ...JSON_ROWS };
        const result = await (typeof statement === 'string'
          ? api().query(statement, params, options)
          : api().execute(statement.handle, params, options));
        setMetaHeaders(reply, result);
        metrics.countPlan(result.plan);
        return sendJson(reply, result);
      }
      const options = shard === undefined ? NDJSON_ROWS : { shard, ...NDJSON_ROWS };
      const stream =
        typeof statement === 'string'
          ? api().queryStream(statement, params, options)
          : api().executeStream(statement.handle, params, options);
      const first = await stream.next();
      const meta = first.value as QueryMeta;
      setMetaHeaders(reply, meta);
      metrics.countPlan(meta.plan);
      return sendNdjson(request, reply, meta, stream);
    },
  );

  app.post<{ Body: { sql: string } }>(
    '/query/prepare',
    { schema: prepareSchema },
    async (request) => api().prepare(request.body.sql),
  );
}

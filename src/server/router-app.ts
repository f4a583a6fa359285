/**
 * The router's HTTP face (`docdb router`): the node's REST surface (paths, bodies, statuses,
 * X-DOCDB-* headers, NDJSON) over a `Router`, so a client cannot tell it from a node. It
 * reuses the node's Fastify ground rules, error mapping and API-key check; every answer comes
 * from the Router, which talks to shards through the typed client. It never listens itself.
 */

import type { FastifyInstance } from 'fastify';
import type { Router, RouterSource } from '../cluster/index.js';
import { DbError, statusOf } from '../errors/index.js';
import type { IndexRequest } from '../client/index.js';
import type { QueryMeta } from '../types/index.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '../util/index.js';
import { VERSION } from '../version.js';
import { type BaseAppOptions, baseApp, notFound } from './app.js';
import { registerAdminUi } from './admin-ui.js';
import { bearerAuth } from './auth.js';
import { errorHandler } from './errors.js';
import { Metrics } from './metrics.js';
import { addRequestHooks } from './request-hooks.js';
import { NO_BODY } from './json-body.js';
import { confirmed, writeCondition } from './routes/documents.js';
import { registerSharedAdminRoutes } from './routes/admin.js';
import { registerRouterChangesRoutes } from './routes/changes.js';
import { INDEX_BODY } from './routes/indexes.js';
import {
  QUERY_BODY_PROPERTIES,
  QUERY_STRING,
  sendNdjson,
  setErrorMetaHeaders,
  setMetaHeaders,
} from './routes/query.js';
import { COUNT, count, FLAG, flag } from './routes/query-string.js';

/** Options of buildRouterApp. */
export interface RouterAppOptions extends BaseAppOptions {
  /** When set, every request but GET /health needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  /** The name GET /health answers (default `router`). */
  name?: string;
  /** The admin UI's build served at /ui/ (default admin-ui/out of the repository). */
  adminUiDir?: string;
  /** Silence before a change feed's heartbeat (default CHANGES_HEARTBEAT_MS; tests shorten it). */
  changesHeartbeatMs?: number;
}

type Params = { name: string };
type KeyParams = { name: string; field: string; value: string };
type IdParams = { name: string; id: string };

const QUERY_SCHEMA = {
  body: {
    type: 'object',
    required: ['sql'],
    properties: QUERY_BODY_PROPERTIES,
    additionalProperties: false,
  },
  querystring: QUERY_STRING,
} as const;

function registerQuery(app: FastifyInstance, current: () => Router): void {
  app.post<{ Body: { sql: string; params?: unknown[] }; Querystring: { stream?: string } }>(
    '/query',
    {
      schema: QUERY_SCHEMA,
      onError: setErrorMetaHeaders,
    },
    async (request, reply) => {
      const { sql, params = [] } = request.body;
      const accept = request.headers.accept ?? '';
      if (!(flag(request.query.stream) || accept.includes('application/x-ndjson'))) {
        const result = await current().query(sql, params);
        setMetaHeaders(reply, result);
        return result;
      }
      const stream = current().queryStream(sql, params);
      const first = await stream.next();
      const meta = first.value as QueryMeta;
      setMetaHeaders(reply, meta);
      return sendNdjson(request, reply, meta, stream);
    },
  );
}

function registerDocuments(app: FastifyInstance, current: () => Router): void {
  app.post<{ Params: Params; Body: unknown }>('/collections/:name', async (request, reply) => {
    const { id } = await current().documents.insert(request.params.name, request.body);
    reply.status(201).header('Location', `/collections/${request.params.name}/${id}`);
    return { id };
  });
  app.post<{
    Params: Params;
    Body: unknown[];
    Querystring: { atomic?: string; skipIndexes?: string };
  }>(
    '/collections/:name/bulk',
    {
      schema: {
        body: { type: 'array' },
        querystring: { type: 'object', properties: { atomic: FLAG, skipIndexes: FLAG } },
      },
    },
    async (request) =>
      current().documents.bulk(request.params.name, request.body, {
        atomic: flag(request.query.atomic),
        skipIndexes: flag(request.query.skipIndexes),
      }),
  );
  app.get<{ Params: Params; Querystring: { limit?: string; after?: string } }>(
    '/collections/:name',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: COUNT, after: { type: 'string' } },
        },
      },
    },
    async (request) => {
      const limit = count(request.query.limit, LIST_LIMIT_DEFAULT);
      if (limit > LIST_LIMIT_MAX) {
        throw new DbError(
          'ERR_BAD_REQUEST',
          `querystring field 'limit' must be <= ${LIST_LIMIT_MAX}; got ${limit}`,
        );
      }
      const { after } = request.query;
      return current().documents.list(request.params.name, {
        limit,
        ...(after !== undefined && { after }),
      });
    },
  );
  app.get<{ Params: KeyParams }>('/collections/:name/by/:field/:value', async (request) => {
    const { name, field, value } = request.params;
    return current().documents.getByKey(name, field, value);
  });
  app.put<{ Params: KeyParams; Body: unknown }>(
    '/collections/:name/by/:field/:value',
    async (request) => {
      const { name, field, value } = request.params;
      return current().documents.replaceByKey(name, field, value, request.body);
    },
  );
  app.delete<{ Params: KeyParams }>(
    '/collections/:name/by/:field/:value',
    NO_BODY,
    async (request) => {
      const { name, field, value } = request.params;
      return current().documents.deleteByKey(name, field, value);
    },
  );
  app.get<{ Params: IdParams }>('/collections/:name/:id', async (request, reply) => {
    const { doc, tag } = await current().documents.get(request.params.name, request.params.id);
    if (tag !== undefined) reply.header('etag', `"${tag}"`);
    return doc;
  });
  app.put<{ Params: IdParams; Body: unknown }>('/collections/:name/:id', async (request) =>
    current().documents.replace(
      request.params.name,
      request.params.id,
      request.body,
      writeCondition(request.headers),
    ),
  );
  app.delete<{ Params: IdParams }>('/collections/:name/:id', NO_BODY, async (request) =>
    current().documents.delete(
      request.params.name,
      request.params.id,
      writeCondition(request.headers),
    ),
  );
  app.delete<{ Params: Params }>('/collections/:name', NO_BODY, async (request) => {
    if (!confirmed(request.headers['x-confirm'])) {
      throw new DbError(
        'ERR_CONFIRMATION_REQUIRED',
        'dropping a collection deletes every document in it on every shard; send the header X-Confirm: true to confirm',
      );
    }
    return current().documents.dropCollection(request.params.name);
  });
}

function registerInfo(app: FastifyInstance, current: () => Router, name: string): void {
  const startedAtMs = Date.now();
  // The node's body, with status and readOnly from the shards (always 200: the router runs).
  app.get('/health', async () => {
    const router = current();
    const { status, readOnly, shardsDown, shardsReadOnly } = await router.health();
    return {
      status,
      node: name,
      version: VERSION,
      readOnly,
      role: 'router',
      shards: router.config.shards.length,
      uptimeSeconds: Math.floor((Date.now() - startedAtMs) / 1000),
      shardsDown,
      shardsReadOnly,
    };
  });
  app.get('/stats', async () => current().documents.stats());
  app.get('/collections', async () => current().documents.collections());
  app.get<{ Params: { collection: string } }>('/indexes/:collection', async (request) =>
    current().documents.indexes(request.params.collection),
  );
  app.post<{ Body: IndexRequest }>(
    '/index',
    {
      schema: {
        body: INDEX_BODY,
      },
    },
    async (request, reply) => {
      const created = await current().documents.createIndex(request.body);
      reply.status(201);
      return created;
    },
  );
}

/** Builds the router's app over `router`; call `listen` or `inject`. */
export function buildRouterApp(
  router: Router | RouterSource,
  options: RouterAppOptions = {},
): FastifyInstance {
  // A source (a router following its cluster.json) gives each request the router of the
  // moment; a plain Router serves for the app's whole life.
  const source: RouterSource =
    'current' in router ? router : { current: () => router, close: () => router.close() };
  const current = () => source.current();
  const app = baseApp(options);
  // Requests and latency per route, as a node counts them, on the router's own /metrics.
  const metrics = new Metrics();
  addRequestHooks(app, metrics);
  app.get('/metrics', async (_request, reply) => {
    reply.type(metrics.contentType);
    return metrics.text();
  });
  if (options.apiKey) app.addHook('onRequest', bearerAuth(options.apiKey));
  app.setErrorHandler(
    errorHandler({
      // As on a node (spec §7): on POST /query a 404 about the statement is a 400.
      statusFor: (request, code) =>
        request.routeOptions.url === '/query' && statusOf(code) === 404 ? 400 : undefined,
    }),
  );
  app.setNotFoundHandler(notFound);
  registerInfo(app, current, options.name ?? 'router');
  registerQuery(app, current);
  registerDocuments(app, current);
  registerSharedAdminRoutes(app, {
    flush: () => current().admin.flush(),
    checkpoint: () => current().admin.checkpoint(),
    compact: (collection) => current().admin.compact(collection),
    rebuildIndexes: (collection) => current().admin.rebuildIndexes(collection),
    rebuildIndex: (collection, name) => current().admin.rebuildIndex(collection, name),
    seed: (orders, seed) => current().admin.seed(orders, seed),
  });
  registerAdminUi(app, options.adminUiDir);
  registerRouterChangesRoutes(app, current, options.changesHeartbeatMs);
  app.addHook('onClose', () => source.close());
  return app;
}

/** GET /indexes/{collection}, POST /index and DELETE /indexes/{collection}/{name}. */

import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';

interface IndexBody {
  collection: string;
  path?: string;
  paths?: string[];
  name?: string;
  unique?: boolean;
}

/** The body of POST /index, as a node and a router take it. */
export const INDEX_BODY = {
  type: 'object',
  required: ['collection'],
  properties: {
    collection: { type: 'string' },
    path: { type: 'string' },
    paths: { type: 'array', items: { type: 'string' }, minItems: 1 },
    name: { type: 'string' },
    unique: { type: 'boolean' },
  },
  oneOf: [{ required: ['path'] }, { required: ['paths'] }],
  additionalProperties: false,
} as const;

export function registerIndexRoutes(app: FastifyInstance, { db }: RouteContext): void {
  app.get<{ Params: { collection: string } }>(
    '/indexes/:collection',
    {
      schema: {
        summary: 'The indexes of a collection',
        params: {
          type: 'object',
          required: ['collection'],
          properties: { collection: { type: 'string' } },
        },
      },
    },
    async (request) => db.requireCollection(request.params.collection).listIndexes(),
  );

  app.post<{ Body: IndexBody }>(
    '/index',
    {
      schema: {
        summary: 'Create an index (built from existing documents); `paths` for a composite index',
        body: INDEX_BODY,
      },
    },
    async (request, reply) => {
      const { collection, path, paths, name, unique } = request.body;
      // Like SQL's CREATE INDEX: the collection must exist (404 naming the known ones).
      const created = await db
        .requireCollection(collection)
        .createIndex({ paths: paths ?? [path as string], name, unique });
      reply.status(201);
      return { collection: db.collection(collection).name, ...created };
    },
  );

  app.delete<{ Params: { collection: string; name: string } }>(
    '/indexes/:collection/:name',
    {
      schema: {
        summary: 'Drop an index (as SQL DROP INDEX); its documents stay',
        params: INDEX_PARAMS,
      },
    },
    async (request) => {
      const collection = db.requireCollection(request.params.collection);
      const dropped = await collection.dropIndex(request.params.name);
      return { collection: collection.name, dropped: dropped.name };
    },
  );
}

/** The path of DELETE /indexes/{collection}/{name}, as a node and a router take it. */
export const INDEX_PARAMS = {
  type: 'object',
  required: ['collection', 'name'],
  properties: { collection: { type: 'string' }, name: { type: 'string' } },
} as const;

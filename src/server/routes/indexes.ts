/**
 * GET /indexes/{collection}, POST /index and DELETE /indexes/{collection}/{name}, over a
 * node's database or a router alike.
 */

import type { FastifyInstance } from 'fastify';
import type { IndexRequest } from '../../types/index.js';
import { NO_BODY } from '../json-body.js';
import type { ApiContext } from '../route-context.js';

/** The body of POST /index. */
const INDEX_BODY = {
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

export function registerIndexRoutes(app: FastifyInstance, { api }: ApiContext): void {
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
    async (request) => api().indexes(request.params.collection),
  );

  app.post<{ Body: IndexRequest }>(
    '/index',
    {
      schema: {
        summary: 'Create an index (built from existing documents); `paths` for a composite index',
        body: INDEX_BODY,
      },
    },
    async (request, reply) => {
      // Like SQL's CREATE INDEX: the collection must exist (404 naming the known ones).
      const created = await api().createIndex(request.body);
      reply.status(201);
      return created;
    },
  );

  app.delete<{ Params: { collection: string; name: string } }>(
    '/indexes/:collection/:name',
    {
      ...NO_BODY,
      schema: {
        summary: 'Drop an index (as SQL DROP INDEX); its documents stay',
        params: {
          type: 'object',
          required: ['collection', 'name'],
          properties: { collection: { type: 'string' }, name: { type: 'string' } },
        },
      },
    },
    async (request) => api().dropIndex(request.params.collection, request.params.name),
  );
}

/**
 * Admin endpoints (flush, checkpoint, compact, rebuilds), which take no body, and POST /seed,
 * whose body is optional; each accepts an empty body sent as JSON (json-body.ts).
 */

import type { FastifyInstance } from 'fastify';
import { SEED_COUNT_MAX, seedOrders } from '../../engine/index.js';
import { NO_BODY, OPTIONAL_BODY } from '../json-body.js';
import type { RouteContext } from '../route-context.js';

const collectionParam = {
  type: 'object',
  required: ['collection'],
  properties: { collection: { type: 'string' } },
} as const;

export function registerAdminRoutes(app: FastifyInstance, { db }: RouteContext): void {
  app.post(
    '/admin/flush',
    { ...NO_BODY, schema: { summary: 'Make every committed write durable now' } },
    async () => ({
      flushed: true,
      ...(await db.flush()),
    }),
  );

  app.post(
    '/admin/checkpoint',
    { ...NO_BODY, schema: { summary: 'Flush, then trim the change log to its retention bound' } },
    async () => ({ checkpointed: true, ...(await db.checkpoint()) }),
  );

  app.post<{ Params: { collection: string } }>(
    '/admin/compact/:collection',
    {
      ...NO_BODY,
      schema: {
        summary: 'Rewrite a collection compactly: pages and bytes reclaimed',
        params: collectionParam,
      },
    },
    async (request) => {
      return db.compact(request.params.collection);
    },
  );

  app.post<{ Params: { collection: string } }>(
    '/admin/rebuild-indexes/:collection',
    {
      ...NO_BODY,
      schema: { summary: 'Rebuild every index of a collection', params: collectionParam },
    },
    async (request) => {
      const collection = db.requireCollection(request.params.collection);
      return { collection: collection.name, rebuilt: await collection.rebuildIndexes() };
    },
  );

  app.post<{ Params: { collection: string; indexName: string } }>(
    '/admin/rebuild-index/:collection/:indexName',
    {
      ...NO_BODY,
      schema: {
        summary: 'Rebuild one index by name',
        params: {
          type: 'object',
          required: ['collection', 'indexName'],
          properties: { collection: { type: 'string' }, indexName: { type: 'string' } },
        },
      },
    },
    async (request) => {
      const collection = db.requireCollection(request.params.collection);
      return {
        collection: collection.name,
        rebuilt: await collection.rebuildIndex(request.params.indexName),
      };
    },
  );

  app.post<{ Body: { orders?: number; seed?: number } }>(
    '/seed',
    {
      // No body, or an empty one, seeds the default count.
      ...OPTIONAL_BODY,
      schema: {
        summary: 'Load the demo reservation orders (default 10000)',
        body: {
          type: 'object',
          properties: {
            orders: { type: 'integer', minimum: 0, maximum: SEED_COUNT_MAX },
            seed: { type: 'integer', minimum: 0 },
          },
          additionalProperties: false,
        },
      },
    },
    async (request) => {
      const { orders, seed } = request.body;
      return seedOrders(db, {
        ...(orders !== undefined && { count: orders }),
        ...(seed !== undefined && { seed }),
      });
    },
  );
}

/** GET /health (public), GET /stats, GET /collections and GET /metrics. */

import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';

export function registerInfoRoutes(
  app: FastifyInstance,
  { db, status, metrics, version }: RouteContext,
): void {
  app.get(
    '/health',
    { schema: { summary: 'Liveness: node, version, read-only flag, uptime (public)' } },
    async () => ({
      status: 'ok',
      node: status.name,
      version,
      readOnly: status.readOnly,
      role: status.role,
      uptimeSeconds: Math.floor((Date.now() - status.startedAtMs) / 1000),
    }),
  );

  app.get(
    '/stats',
    { schema: { summary: 'File size, pages, per-collection counts, every index' } },
    async () => db.stats(),
  );

  app.get('/collections', { schema: { summary: 'Names of every collection' } }, async () =>
    db.listCollections(),
  );

  app.get('/metrics', { schema: { summary: 'Prometheus metrics' } }, async (_request, reply) => {
    reply.type(metrics.contentType);
    return metrics.text();
  });
}

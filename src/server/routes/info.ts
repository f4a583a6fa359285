/** GET /health (public), GET /stats, GET /collections and GET /metrics, on a node or a router. */

import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../route-context.js';

export function registerInfoRoutes(app: FastifyInstance, { api, metrics }: ApiContext): void {
  app.get(
    '/health',
    { schema: { summary: 'Liveness: node, version, read-only flag, uptime (public)' } },
    async () => api().health(),
  );

  app.get(
    '/stats',
    { schema: { summary: 'File size, pages, per-collection counts, every index' } },
    async () => api().stats(),
  );

  app.get('/collections', { schema: { summary: 'Names of every collection' } }, async () =>
    api().collections(),
  );

  app.get('/metrics', { schema: { summary: 'Prometheus metrics' } }, async (_request, reply) => {
    reply.type(metrics.contentType);
    return metrics.text();
  });
}

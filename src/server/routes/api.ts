/**
 * The REST surface's routes, registered once over a NodeApi (types/api.ts) for a node and a
 * router alike: info, query, documents, indexes, admin and the change feed, with GET
 * /openapi.json built from every route the app registers.
 */

import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../version.js';
import type { ApiContext } from '../route-context.js';
import { registerAdminRoutes } from './admin.js';
import { type FeedOptions, registerChangesRoutes } from './changes.js';
import { registerDocumentRoutes } from './documents.js';
import { registerIndexRoutes } from './indexes.js';
import { registerInfoRoutes } from './info.js';
import { OpenApi } from './openapi.js';
import { registerQueryRoutes } from './query.js';

/**
 * Registers the shared routes on `app`; call before any other route, for the OpenAPI document.
 * `feeds` shortens the change feed's silences and lowers its bound (tests).
 */
export function registerApiRoutes(
  app: FastifyInstance,
  context: ApiContext,
  feeds: FeedOptions = {},
): void {
  const openapi = new OpenApi(VERSION);
  app.addHook('onRoute', (route) => openapi.add(route));
  app.get('/openapi.json', { schema: { summary: 'This API as an OpenAPI 3 document' } }, async () =>
    openapi.document(),
  );
  registerInfoRoutes(app, context);
  registerQueryRoutes(app, context);
  registerDocumentRoutes(app, context);
  registerIndexRoutes(app, context);
  registerAdminRoutes(app, context);
  registerChangesRoutes(app, context, feeds);
}

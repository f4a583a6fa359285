/**
 * Serves the admin UI's static build (admin-ui/out, made by `npm run build`) at /ui/ on a
 * node and on a router, through @fastify/static (its only importer; ADR 0015). The pages
 * hold no key, so /ui/ is public (auth.ts); the API calls they make carry the key the user
 * typed. When the build is missing, /ui/ answers a 404 naming how to build it.
 */

import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifySchema } from 'fastify';

/** The URL prefix of the UI; admin-ui/next.config.ts builds with the same basePath. */
export const ADMIN_UI_PREFIX = '/ui';

/**
 * Where the build lands: admin-ui/out at the repository's root, reached the same way from
 * src/server (tests) and dist/server (the CLI).
 */
export const ADMIN_UI_DIR = fileURLToPath(new URL('../../admin-ui/out/', import.meta.url));

/** True for the paths the UI is served at; auth.ts lets them through without a key. */
export function isAdminUiRoute(route: string | undefined): boolean {
  return route === '/ui' || route === '/ui/*';
}

/** Registers /ui, /ui/ and /ui/* over `dir` (default ADMIN_UI_DIR). */
export function registerAdminUi(app: FastifyInstance, dir: string = ADMIN_UI_DIR): void {
  if (!fs.existsSync(`${dir}/index.html`)) {
    registerMissing(app);
    return;
  }
  app.register(fastifyStatic, {
    root: dir,
    // Without its slash, the prefix gets a route of its own: /ui answers 301 to /ui/, and
    // /ui/query to /ui/query/ (the export's folders).
    prefix: ADMIN_UI_PREFIX,
    redirect: true,
    // setHeaders below decides; the plugin's own header would override it.
    cacheControl: false,
    // The export's pages and assets are not API routes: keep them out of /openapi.json.
    schemaHide: true,
    // Next names its assets by content hash; the pages themselves must be revalidated.
    setHeaders: (res, filePath) => {
      const immutable = filePath.includes('/_next/static/');
      res.setHeader(
        'cache-control',
        immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
}

function registerMissing(app: FastifyInstance): void {
  const answer = {
    error:
      'the admin UI is not built: run `npm run build` in the docdb repository ' +
      '(it builds admin-ui/ into admin-ui/out), then restart the node',
    code: 'ERR_ROUTE_NOT_FOUND',
  };
  // Fastify's schema type has no `hide`; openapi.ts reads it, as @fastify/static sets it.
  const options = { schema: { hide: true } as FastifySchema };
  app.get('/ui', options, async (_request, reply) => reply.status(404).send(answer));
  app.get('/ui/*', options, async (_request, reply) => reply.status(404).send(answer));
}

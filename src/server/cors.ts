/**
 * CORS for one configured origin (`--cors-origin`), so an admin UI built with
 * NEXT_PUBLIC_DOCDB_URL and served elsewhere can call the API from a browser. Off unless set;
 * any other origin gets no CORS headers (the browser then refuses the answer to the page).
 * It grants no access: the API key check runs as for any request, preflights aside, which
 * carry no credentials by the browser's rules.
 */

import type { FastifyInstance } from 'fastify';

/** Headers the UI sends: the key, JSON bodies, a drop's confirmation, NDJSON requests. */
const ALLOWED_HEADERS = 'authorization, content-type, x-confirm, accept, x-request-id';
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, DELETE';
/** The query meta headers and the request id, which a page can read only when exposed. */
const EXPOSED_HEADERS = 'x-docdb-plan, x-docdb-count, x-docdb-executionms, x-request-id, location';
/** How long a browser may reuse a preflight's answer. */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Adds the hook. Call it before the API-key hook: a preflight (OPTIONS with
 * Access-Control-Request-Method) is answered 204 here, before any key is asked for.
 */
export function addCors(app: FastifyInstance, origin: string): void {
  app.addHook('onRequest', (request, reply, done) => {
    // Caches must keep answers to different origins apart.
    reply.header('vary', 'origin');
    if (request.headers.origin !== origin) {
      done();
      return;
    }
    reply.header('access-control-allow-origin', origin);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      reply
        .status(204)
        .header('access-control-allow-methods', ALLOWED_METHODS)
        .header('access-control-allow-headers', ALLOWED_HEADERS)
        .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS))
        .send();
      return;
    }
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    done();
  });
}

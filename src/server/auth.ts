/**
 * API-key authentication: with a key configured, every request but GET /health must carry
 * `Authorization: Bearer <key>`. Keys are compared as SHA-256 digests with timingSafeEqual,
 * so the comparison takes the same time whatever the key's length or content.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { dbError } from '../errors/index.js';
import { isAdminUiRoute } from './admin-ui.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * An onRequest hook for one configured key; GET /health and the admin UI's static pages
 * (which hold no key; their API calls carry it) pass without one. It fails with ERR_UNAUTHORIZED for a missing key, a
 * header in another form than `Bearer <key>` (`Authorization: sekret`, `Basic …`), or a wrong
 * key. It takes a callback (a throw reaches Fastify's hook runner like `done(error)`),
 * so a request pays no promise for it. It runs after request-hooks.ts has looked up the route
 * (`request.routeStats`).
 */
export function bearerAuth(apiKey: string) {
  const check = bearerCheck(apiKey);
  return (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    const route = request.routeStats?.route ?? request.routeOptions.url;
    if (read && (route === '/health' || isAdminUiRoute(route))) {
      done();
      return;
    }
    check(request.headers.authorization);
    done();
  };
}

/**
 * The check of one configured key against an `Authorization` header, as every request's and
 * the wire's Upgrade (server/wire.ts) have it: throws ERR_UNAUTHORIZED for a missing key, a
 * header in another form than `Bearer <key>` (`Authorization: sekret`, `Basic …`), or a wrong
 * key.
 */
export function bearerCheck(apiKey: string): (authorization: unknown) => void {
  const expected = digest(apiKey);
  return (authorization) => {
    const header = typeof authorization === 'string' ? authorization.trim() : '';
    const match = /^Bearer(?:\s+(.*))?$/i.exec(header);
    if (!match?.[1]) {
      // A header in another form carries a key the user meant to send: say what is wrong
      // with it (never echoing it) rather than that it is missing.
      throw header === '' || match
        ? dbError('ERR_UNAUTHORIZED', 'missingKey')
        : dbError('ERR_UNAUTHORIZED', 'headerNotBearer');
    }
    if (!timingSafeEqual(digest(match[1] as string), expected)) {
      throw dbError('ERR_UNAUTHORIZED', 'wrongKey');
    }
  };
}

/**
 * API-key authentication: with a key configured, every request but GET /health must carry
 * `Authorization: Bearer <key>`. Keys are compared as SHA-256 digests with timingSafeEqual,
 * so the comparison takes the same time whatever the key's length or content.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DbError } from '../errors/index.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * An onRequest hook for one configured key; fails with ERR_UNAUTHORIZED for a missing or
 * wrong key. It takes a callback (a throw reaches Fastify's hook runner like `done(error)`),
 * so a request pays no promise for it. It runs after request-hooks.ts has looked up the route
 * (`request.routeStats`).
 */
export function bearerAuth(apiKey: string) {
  const expected = digest(apiKey);
  return (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    const route = request.routeStats?.route ?? request.routeOptions.url;
    if (read && route === '/health') {
      done();
      return;
    }
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (!match) {
      throw new DbError(
        'ERR_UNAUTHORIZED',
        'missing API key: send the header Authorization: Bearer <key>',
      );
    }
    if (!timingSafeEqual(digest(match[1] as string), expected)) {
      throw new DbError('ERR_UNAUTHORIZED', 'wrong API key');
    }
    done();
  };
}

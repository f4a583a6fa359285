/**
 * API-key authentication: with a key configured, every request but GET /health must carry
 * `Authorization: Bearer <key>`. Keys are compared as SHA-256 digests with timingSafeEqual,
 * so the comparison takes the same time whatever the key's length or content.
 */

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { DbError } from '../errors/index.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A checker for one configured key; throws ERR_UNAUTHORIZED for a missing or wrong key. */
export function bearerAuth(apiKey: string) {
  const expected = digest(apiKey);
  return async (request: FastifyRequest): Promise<void> => {
    const read = request.method === 'GET' || request.method === 'HEAD';
    if (read && request.routeOptions.url === '/health') return;
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
  };
}

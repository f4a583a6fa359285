/**
 * Starts a Fastify app listening without Fastify's own "Server listening at …" lines: a node
 * and a router each print one start line of their own, once they really serve (README, issue
 * 23 mends 9 and 12). Owns nothing else of the app's life.
 */

import type { FastifyInstance } from 'fastify';

/**
 * Listens like `app.listen`, resolving with the address, while Fastify's info lines about the
 * addresses are held back (one per interface on 0.0.0.0). Warnings and errors still log.
 */
export async function listenQuietly(
  app: FastifyInstance,
  options: { port: number; host: string },
): Promise<string> {
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    return await app.listen(options);
  } finally {
    app.log.level = level;
  }
}

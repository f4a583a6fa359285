/**
 * A connection's pipelined requests, answered in the order they came. Node hands a server
 * every request it has parsed at once, so a GET sent right behind a POST on one connection
 * ran while the POST's write was still on its way to disk, and missed it (404 after the
 * 201). RFC 9112 §9.3.2 lets a server run pipelined requests in parallel only when they are
 * all safe; this runs each after the one before it has been answered, whatever its method.
 * Requests on a connection that come one after another, as clients send them unless they
 * pipeline, never wait.
 */

import type { FastifyInstance } from 'fastify';

/** The answer each connection's last request settles with: its response closing. */
const lastOf = new WeakMap<object, Promise<void>>();
/** Requests already put in order (a reader orders those it passes on before its app). */
const ordered = new WeakSet<object>();

/**
 * Runs `handle` after the previous request of `request`'s connection was answered (at once
 * when there is none in flight), and keeps its answer as the one the next request waits for.
 */
export function inConnectionOrder(
  request: { socket: object },
  response: { once(event: 'close', listener: () => void): unknown },
  handle: () => void,
): void {
  ordered.add(request);
  const connection = request.socket;
  const before = lastOf.get(connection);
  const answered = new Promise<void>((resolve) => response.once('close', () => resolve()));
  const mine = before ? before.then(() => answered) : answered;
  lastOf.set(connection, mine);
  void mine.then(() => {
    if (lastOf.get(connection) === mine) lastOf.delete(connection);
  });
  if (before) void before.then(handle);
  else handle();
}

/** Holds each request of `app` until the one before it on its connection was answered. */
export function answerInOrder(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (ordered.has(request.raw)) done();
    else inConnectionOrder(request.raw, reply.raw, () => done());
  });
}

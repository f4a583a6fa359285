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

/** A connection's requests in flight: whether one is being answered, and those waiting. */
interface Line {
  busy: boolean;
  waiting: Array<() => void>;
}

const lines = new WeakMap<object, Line>();
/** Requests already put in order (a reader orders those it passes on before its app). */
const ordered = new WeakSet<object>();

/**
 * Runs `handle` once the request before it on `request`'s connection has been answered (at
 * once when none is in flight: no promise, one listener), and the next one after its own.
 */
export function inConnectionOrder(
  request: { socket: object },
  response: { once(event: 'close', listener: () => void): unknown },
  handle: () => void,
): void {
  ordered.add(request);
  let line = lines.get(request.socket);
  if (!line) {
    line = { busy: false, waiting: [] };
    lines.set(request.socket, line);
  }
  const queue = line;
  const run = () => {
    queue.busy = true;
    response.once('close', () => {
      const next = queue.waiting.shift();
      if (next) next();
      else queue.busy = false;
    });
    handle();
  };
  if (queue.busy) queue.waiting.push(run);
  else run();
}

/** Holds each request of `app` until the one before it on its connection was answered. */
export function answerInOrder(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (ordered.has(request.raw)) done();
    else inConnectionOrder(request.raw, reply.raw, () => done());
  });
}

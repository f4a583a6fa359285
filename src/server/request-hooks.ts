/**
 * The hooks every request passes through: its X-Request-Id header and its counts in the
 * metrics (in flight, status, latency). They run on every request, so they stay cheap: no
 * async hook (a promise and a microtask turn each), no onResponse hook (Fastify then adds
 * and removes two listeners on every response), one route lookup per request.
 */

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics, RouteStats } from './metrics.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The counters of this request's method and route until its answer is counted. */
    routeStats: RouteStats | null;
    /** performance.now() when the request reached its route. */
    receivedAtMs: number;
  }
}

/** Counts an answer once: the first call wins and later ones do nothing. */
function countAnswer(request: FastifyRequest, reply: FastifyReply): void {
  const stats = request.routeStats;
  if (!stats) return;
  request.routeStats = null;
  stats.inFlight--;
  stats.answered(reply.statusCode, (performance.now() - request.receivedAtMs) / 1000);
}

/**
 * Adds the hooks. A request is counted when its answer is handed to the socket (onSend); a
 * streamed answer when its response closes, so its latency covers the whole stream. Errors
 * Fastify raises before routing (frameworkErrors) run no hook and are not counted.
 */
export function addRequestHooks(app: FastifyInstance, metrics: Metrics): void {
  app.decorateRequest('routeStats', null);
  app.decorateRequest('receivedAtMs', 0);
  app.addHook('onRequest', (request, reply, done) => {
    request.receivedAtMs = performance.now();
    // Lower case, as on the wire: Fastify lowercases names, and 'X-Request-Id' would make a
    // new string to hash on every request.
    reply.header('x-request-id', request.id);
    // `routeOptions` builds a new object on each read: read it once, here.
    const stats = metrics.routeStats(request.method, request.routeOptions.url);
    stats.inFlight++;
    request.routeStats = stats;
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isStream(payload)) reply.raw.once('close', () => countAnswer(request, reply));
    else countAnswer(request, reply);
    done(null, payload);
  });
}

function isStream(payload: unknown): boolean {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    typeof (payload as { pipe?: unknown }).pipe === 'function'
  );
}

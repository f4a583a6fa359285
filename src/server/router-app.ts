/**
 * The router's HTTP face (`docdb router`): the node's REST surface (routes/api.ts, over the
 * Router as a NodeApi), its merged change feed included, so a client cannot tell it from a
 * node. It holds no route of its own; every answer comes from the Router, which talks to
 * shards through the typed client. It never listens itself.
 */

import type { FastifyInstance } from 'fastify';
import type { Router, RouterSource } from '../cluster/index.js';
import { type ApiAppOptions, apiApp } from './app.js';
import { Metrics } from './metrics.js';

/** Options of buildRouterApp: those of every app serving the REST surface. */
export type RouterAppOptions = ApiAppOptions;

/** Builds the router's app over `router`; call `listen` or `inject`. */
export function buildRouterApp(
  router: Router | RouterSource,
  options: RouterAppOptions = {},
): FastifyInstance {
  // A source (a router following its cluster.json) gives each request the router of the
  // moment; a plain Router serves for the app's whole life.
  const source: RouterSource =
    'current' in router ? router : { current: () => router, close: () => router.close() };
  // Requests and latency per route, as a node counts them, on the router's own /metrics.
  const app = apiApp({ api: () => source.current(), metrics: new Metrics() }, options);
  app.addHook('onClose', () => source.close());
  return app;
}

/**
 * The Fastify app factory: one Database, the node's status, authentication, request ids,
 * limits, error mapping, metrics, and one plugin per route group. It never listens; node.ts
 * does. Tests drive it with `app.inject()`.
 */

import type { Socket } from 'node:net';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Database } from '../engine/index.js';
import { dbError, statusOf } from '../errors/index.js';
import { Replication } from '../replication/index.js';
import {
  BODY_BYTES_MAX,
  HTTP_HEADER_TIMEOUT_SECONDS_DEFAULT,
  HTTP_IDLE_TIMEOUT_SECONDS_DEFAULT,
  HTTP_REQUEST_TIMEOUT_SECONDS_DEFAULT,
  HTTP_TIMEOUT_CHECK_MS,
  PATH_PARAM_CHARS_MAX,
} from '../util/index.js';
import { registerAdminUi } from './admin-ui.js';
import { bearerAuth } from './auth.js';
import { clientErrorHandler } from './client-errors.js';
import { addCors } from './cors.js';
import { errorHandler } from './errors.js';
import { addJsonBodyParser } from './json-body.js';
import { answerInOrder } from './pipelined.js';
import { Metrics } from './metrics.js';
import { bindStatus, type NodeStatus, newNodeStatus } from './node-status.js';
import { replicationPort } from './replication-port.js';
import { addRequestHooks } from './request-hooks.js';
import { requestIdGenerator } from './request-id.js';
import type { ApiContext, RouteContext } from './route-context.js';
import { registerBackupRoute } from './routes/admin.js';
import { registerApiRoutes } from './routes/api.js';
import { refuseUnknownParameters } from './routes/query-string.js';
import { registerReplicationRoutes } from './routes/replication.js';
import { serveWire } from './wire.js';

/** Options of buildApp; the node's name is its database's (`open(…, { name })`). */
export interface AppOptions extends ApiAppOptions {
  /** Shared status object (replication changes it); a fresh one when omitted. */
  status?: NodeStatus;
  /** The node's replication (node.ts makes it from the settings); a single node's when omitted. */
  replication?: Replication;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const metricsOfApp = new WeakMap<FastifyInstance, Metrics>();

/** Requests an app built by buildApp has received and not yet answered. */
export function requestsInFlight(app: FastifyInstance): number {
  return metricsOfApp.get(app)?.requestsInFlight() ?? 0;
}

/** The metrics of an app built by buildApp or apiApp (a node sums its readers' into them). */
export function metricsOf(app: FastifyInstance): Metrics | undefined {
  return metricsOfApp.get(app);
}

/** How long a slow or silent client may hold a connection (the idle/header/request settings). */
export interface HttpTimeouts {
  idleSeconds: number;
  headerSeconds: number;
  requestSeconds: number;
}

const TIMEOUT_DEFAULTS: HttpTimeouts = {
  idleSeconds: HTTP_IDLE_TIMEOUT_SECONDS_DEFAULT,
  headerSeconds: HTTP_HEADER_TIMEOUT_SECONDS_DEFAULT,
  requestSeconds: HTTP_REQUEST_TIMEOUT_SECONDS_DEFAULT,
};

/** What a node's and a router's Fastify instance share (server/router-app.ts builds the latter). */
export interface BaseAppOptions {
  /** Fastify logger setting: false (default, tests) or pino options. */
  logger?: FastifyServerOptions['logger'];
  /** Largest request body in bytes (default BODY_BYTES_MAX). */
  bodyBytesMax?: number;
  /** Passed to Fastify for HTTPS (node.ts fills it from the TLS settings). */
  https?: FastifyServerOptions & { https: unknown };
  /** The idle, header and request timeouts (the defaults of util/limits.ts when omitted). */
  timeouts?: HttpTimeouts;
}

/**
 * Node's server options for the timeouts. A socket with no traffic for `idleSeconds` times
 * out (see closeIdleSockets for what then goes). Headers and whole requests have their own
 * deadlines, checked every HTTP_TIMEOUT_CHECK_MS rather than Node's default 30 s, so a
 * slow-loris client is closed on time. The header deadline may not pass the request deadline
 * (Node refuses that).
 */
function timeoutOptions(timeouts: HttpTimeouts) {
  if (timeouts.headerSeconds > timeouts.requestSeconds) {
    throw dbError('ERR_CONFIG_INVALID', 'headerTimeout', {
      headerSeconds: timeouts.headerSeconds,
      requestSeconds: timeouts.requestSeconds,
    });
  }
  return {
    server: {
      headersTimeout: timeouts.headerSeconds * 1000,
      requestTimeout: timeouts.requestSeconds * 1000,
      connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS,
    },
    fastify: {
      connectionTimeout: timeouts.idleSeconds * 1000,
      keepAliveTimeout: timeouts.idleSeconds * 1000,
      requestTimeout: timeouts.requestSeconds * 1000,
    },
  };
}

/**
 * A Fastify instance with the node's ground rules: request ids, body validation as sent, JSON
 * bodies only, the JSON body parser and docdb's body for framework errors. Routes, hooks, the
 * error handler and `notFound` are the caller's.
 */
export function baseApp(options: BaseAppOptions = {}): FastifyInstance {
  const nextRequestId = requestIdGenerator();
  const given = options.timeouts ?? TIMEOUT_DEFAULTS;
  const timeouts = timeoutOptions(given);
  const app = Fastify({
    logger: options.logger ?? false,
    // Two log lines per request would cost more than serving it; the node logs errors (with
    // their request id), start-up and shutdown, and /metrics counts every request.
    logController: new LogController({ disableRequestLogging: true }),
    // Path segments carry collection names (128 characters) and by-key values of any length.
    routerOptions: { maxParamLength: PATH_PARAM_CHARS_MAX },
    // Bodies are validated as sent: no unknown fields dropped, no types coerced (a string is
    // not an array). Query strings are declared as strings and parsed by the routes.
    // `verbose` keeps each failed schema on its error, so a 400 can say what it wants.
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        verbose: true,
      },
    },
    // Errors Fastify raises before routing (a malformed URL) get docdb's body and request id.
    frameworkErrors: (error, request, reply) => {
      const body = { error: `bad request: ${error.message}`, code: 'ERR_BAD_REQUEST' };
      (reply as unknown as FastifyReply).status(400).header('X-Request-Id', request.id).send(body);
    },
    // What Node's parser refuses before routing (431, 408, bytes that are not HTTP) too.
    clientErrorHandler: clientErrorHandler(nextRequestId, given.requestSeconds),
    bodyLimit: options.bodyBytesMax ?? BODY_BYTES_MAX,
    // Keep an incoming X-Request-Id when it looks sane, so a trace can cross services.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    ...timeouts.fastify,
    // Options of Node's http.createServer (or https.createServer, which takes them too).
    ...(options.https
      ? { ...options.https, https: { ...(options.https.https as object), ...timeouts.server } }
      : { http: timeouts.server }),
  }) as unknown as FastifyInstance;
  // Bodies are JSON only: anything else is a 415, never a string handed to the engine.
  app.removeContentTypeParser('text/plain');
  addJsonBodyParser(app);
  refuseUnknownParameters(app);
  closeIdleSockets(app.server);
  return app;
}

/**
 * What goes when a socket has had no traffic for the idle timeout: a connection with no
 * request (a silent or idle keep-alive client), and one whose answer the client stopped
 * reading (output waits in the socket), which would otherwise hold its query's read snapshot
 * open. A connection whose request is still being worked on (a long compaction, a large
 * seed) stays: its answer re-arms the timer. With a listener here, Node no longer destroys
 * every timed-out socket itself.
 */
function closeIdleSockets(server: FastifyInstance['server']): void {
  const requests = new WeakMap<object, number>();
  server.on('request', (request, response) => {
    const socket = request.socket;
    requests.set(socket, (requests.get(socket) ?? 0) + 1);
    response.once('close', () => requests.set(socket, (requests.get(socket) ?? 1) - 1));
  });
  server.on('timeout', (socket: Socket) => {
    const working = (requests.get(socket) ?? 0) > 0;
    if (!working || socket.writableLength > 0) socket.destroy();
  });
}

/** The 404 of a path no route serves, with docdb's error body. */
export function notFound(request: FastifyRequest, reply: FastifyReply): void {
  reply.status(404).send({
    error: `no endpoint ${request.method} ${request.url.split('?')[0]}`,
    code: 'ERR_ROUTE_NOT_FOUND',
  });
}

/** What a node's and a router's app take alike. */
export interface ApiAppOptions extends BaseAppOptions {
  /** When set, every request but GET /health needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string | undefined;
  /** The one web origin allowed to call the API from a browser (CORS); none by default. */
  corsOrigin?: string | undefined;
  /** The admin UI's build served at /ui/ (default admin-ui/out of the repository). */
  adminUiDir?: string;
  /** Silence before a change feed's heartbeat (default CHANGES_HEARTBEAT_MS; tests shorten it). */
  changesHeartbeatMs?: number;
  /** Change feeds open at once (default CHANGE_FEEDS_MAX; tests lower it). */
  changeFeedsMax?: number;
}

/**
 * A Fastify instance serving the REST surface over `context.api`, as a node and a router both
 * do: request ids and metrics, CORS, the API-key check, docdb's error bodies, the shared
 * route plugins (routes/api.ts, the change feed included) and the admin UI. A node adds its
 * own routes (replication and backup); a router adds none.
 */
export function apiApp(context: ApiContext, options: ApiAppOptions = {}): FastifyInstance {
  const app = baseApp(options);
  // The request id and the metrics' hooks come first: the API-key check reads the route they
  // looked up, and its 401s are counted like any answer.
  addRequestHooks(app, context.metrics);
  answerInOrder(app);
  // A CORS preflight carries no key: it is answered before the key is checked.
  if (options.corsOrigin) addCors(app, options.corsOrigin);
  if (options.apiKey) app.addHook('onRequest', bearerAuth(options.apiKey));
  metricsOfApp.set(app, context.metrics);
  app.setErrorHandler(
    errorHandler({
      // Spec §7: on POST /query an error about the statement (unknown collection or index
      // included) is a 400, like a parse error.
      statusFor: (request, code) =>
        request.routeOptions.url === '/query' && statusOf(code) === 404 ? 400 : undefined,
    }),
  );
  app.setNotFoundHandler(notFound);
  registerApiRoutes(app, context, {
    heartbeatMs: options.changesHeartbeatMs,
    feedsMax: options.changeFeedsMax,
  });
  registerAdminUi(app, options.adminUiDir);
  return app;
}

/** Builds a node's app over `db`; call `await app.ready()` (inject does it) or `listen`. */
export function buildApp(db: Database, options: AppOptions = {}): FastifyInstance {
  const status = bindStatus(options.status ?? newNodeStatus(), db.gate);
  const replication =
    options.replication ?? new Replication({ port: replicationPort(db), nodeName: db.name });
  const metrics = new Metrics(
    () => db.writeCounts(),
    () => replication.status(),
    () => db.selectionCache(),
  );
  const context: RouteContext = { api: () => db, db, status, metrics, replication };
  const app = apiApp(context, options);
  // Closing the app stops replication's listener and follower loop with it.
  app.addHook('onClose', () => replication.close());
  registerBackupRoute(app, context);
  registerReplicationRoutes(app, context);
  // A router's binary connection (GET /wire by Upgrade; server/wire.ts).
  serveWire(app, context, options);
  return app;
}

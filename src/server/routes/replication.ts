/**
 * The replication endpoints of spec §4: status, and the transitions of the state table
 * (§3), and a coordinated leader's handover (issue 24). Each transition answers the status
 * after it. The rules live in
 * src/replication/replication.ts; this plugin only checks bodies and maps them onto it.
 */

import type { FastifyInstance } from 'fastify';
import { NO_BODY, OPTIONAL_BODY } from '../json-body.js';
import type { RouteContext } from '../route-context.js';
import { AUTO_FAILOVER_SECONDS_MAX, PORT_MAX, PORT_MIN } from '../settings.js';

const port = { type: 'integer', minimum: PORT_MIN, maximum: PORT_MAX } as const;
const sharedSecret = { type: 'string', minLength: 1, maxLength: 1024 } as const;
// A host name or address, as the leader-host setting takes it: no scheme, port or path.
const host = {
  type: 'string',
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9.:_%-]+$',
} as const;

function body<P extends Record<string, unknown>>(properties: P, required: Array<keyof P & string>) {
  return { type: 'object', additionalProperties: false, required, properties } as const;
}

export function registerReplicationRoutes(
  app: FastifyInstance,
  { replication }: RouteContext,
): void {
  app.get(
    '/replication/status',
    {
      schema: {
        summary: 'Role, term, seqs, followers with their lag, gaps, auto-failover state',
      },
    },
    async () => replication.status(),
  );

  app.post<{ Body: { port: number; sharedSecret?: string } }>(
    '/replication/start-leader',
    {
      schema: {
        summary: 'Open the replication listener: this node leads',
        body: body({ port, sharedSecret }, ['port']),
      },
    },
    async (request) => replication.startLeader(request.body),
  );

  app.post<{ Body: { host: string; port: number; sharedSecret?: string } }>(
    '/replication/start-follower',
    {
      schema: {
        summary: 'Follow the leader at host:port',
        body: body({ host, port, sharedSecret }, ['host', 'port']),
      },
    },
    async (request) => replication.startFollower(request.body),
  );

  app.post(
    '/replication/read-only',
    { ...NO_BODY, schema: { summary: 'Refuse writes: the first step of a planned handover' } },
    async () => replication.readOnly(),
  );

  app.post(
    '/replication/read-write',
    { ...NO_BODY, schema: { summary: 'Take writes again: recover or abort a handover' } },
    async () => replication.readWrite(),
  );

  // `port` is required of a follower, and checked after the role (a leader hears 409).
  app.post<{ Body: { port?: number } }>(
    '/replication/promote',
    {
      ...OPTIONAL_BODY,
      schema: {
        summary: 'A follower takes over as leader in a new term, listening on port',
        body: body({ port }, []),
      },
    },
    async (request) => replication.promote(request.body),
  );

  app.post<{ Body: { silenceSeconds: number; newLeaderPort?: number } }>(
    '/replication/auto-failover/enable',
    {
      schema: {
        summary:
          "Promote this follower when the leader is silent silenceSeconds, to lead on newLeaderPort (default: the leader's port)",
        body: body(
          {
            silenceSeconds: { type: 'integer', minimum: 1, maximum: AUTO_FAILOVER_SECONDS_MAX },
            newLeaderPort: port,
          },
          ['silenceSeconds'],
        ),
      },
    },
    async (request) => replication.enableAutoFailover(request.body),
  );

  app.post(
    '/replication/auto-failover/disable',
    { ...NO_BODY, schema: { summary: "Stop watching the leader's silence" } },
    async () => replication.disableAutoFailover(),
  );

  // Issue 24: with a coordinator, a planned handover is the leader resigning its etcd lease.
  app.post<{ Body: { to?: string } }>(
    '/replication/handover',
    {
      ...OPTIONAL_BODY,
      schema: {
        summary:
          'Coordinated leader: stop taking writes, wait until member `to` (default: the follower that applied most) has them all, resign the lease naming it',
        body: body({ to: { type: 'string', minLength: 1, maxLength: 64 } }, []),
      },
    },
    async (request) => replication.handover(request.body ?? {}),
  );

  app.post<{ Body: { name: string } }>(
    '/replication/forget-follower',
    {
      schema: {
        summary:
          'A leader stops waiting for the lease of an auto-failover follower that is gone for good',
        body: body({ name: { type: 'string', minLength: 1, maxLength: 1024 } }, ['name']),
      },
    },
    async (request) => replication.forgetFollower(request.body),
  );
}

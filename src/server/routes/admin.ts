/**
 * Admin endpoints (flush, checkpoint, compact, rebuilds, backup), which take no body, and
 * POST /seed, whose body is optional; each accepts an empty body sent as JSON (json-body.ts).
 * A node answers them from its database and a router over its shards (NodeApi), all but the
 * backup, which is of one node's file.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import {
  BACKUP_ARCHIVE_TYPE,
  type Database,
  packBackup,
  SEED_COUNT_MAX,
  takeBackup,
} from '../../engine/index.js';
import { NO_BODY, OPTIONAL_BODY } from '../json-body.js';
import type { ApiContext, RouteContext } from '../route-context.js';
import { FLAG, flag } from './query-string.js';

const collectionParam = {
  type: 'object',
  required: ['collection'],
  properties: { collection: { type: 'string' } },
} as const;

/** Flush, checkpoint, compact, the rebuilds and POST /seed, on a node or a router alike. */
export function registerAdminRoutes(app: FastifyInstance, { api }: ApiContext): void {
  app.post(
    '/admin/flush',
    { ...NO_BODY, schema: { summary: 'Make every committed write durable now' } },
    () => api().flush(),
  );

  app.post(
    '/admin/checkpoint',
    { ...NO_BODY, schema: { summary: 'Flush, then trim the change log to its retention bound' } },
    () => api().checkpoint(),
  );

  app.post<{ Params: { collection: string } }>(
    '/admin/compact/:collection',
    {
      ...NO_BODY,
      schema: {
        summary: 'Rewrite a collection compactly: pages and bytes reclaimed',
        params: collectionParam,
      },
    },
    (request) => api().compact(request.params.collection),
  );

  app.post<{ Params: { collection: string } }>(
    '/admin/rebuild-indexes/:collection',
    {
      ...NO_BODY,
      schema: { summary: 'Rebuild every index of a collection', params: collectionParam },
    },
    (request) => api().rebuildIndexes(request.params.collection),
  );

  app.post<{ Params: { collection: string; indexName: string } }>(
    '/admin/rebuild-index/:collection/:indexName',
    {
      ...NO_BODY,
      schema: {
        summary: 'Rebuild one index by name',
        params: {
          type: 'object',
          required: ['collection', 'indexName'],
          properties: { collection: { type: 'string' }, indexName: { type: 'string' } },
        },
      },
    },
    (request) => api().rebuildIndex(request.params.collection, request.params.indexName),
  );

  app.post<{ Body: { orders?: number; seed?: number } }>(
    '/seed',
    {
      // No body, or an empty one, seeds the default count.
      ...OPTIONAL_BODY,
      schema: {
        summary: 'Load the demo reservation orders (default 10000)',
        body: {
          type: 'object',
          properties: {
            orders: { type: 'integer', minimum: 0, maximum: SEED_COUNT_MAX },
            seed: { type: 'integer', minimum: 0 },
          },
          additionalProperties: false,
        },
      },
    },
    (request) => api().seed(request.body?.orders, request.body?.seed),
  );
}

/** POST /admin/backup: a node's own file, streamed (a router has no file of its own). */
export function registerBackupRoute(app: FastifyInstance, { db }: RouteContext): void {
  app.post<{ Querystring: { withLog?: string; compact?: string } }>(
    '/admin/backup',
    {
      ...NO_BODY,
      schema: {
        summary: 'A hot backup of the whole data file, streamed (docs/backup.md)',
        querystring: {
          type: 'object',
          properties: { withLog: FLAG, compact: FLAG },
          additionalProperties: false,
        },
      },
    },
    async (request, reply) => {
      const { dir, stream, bytes, seq } = await backupStream(db, {
        withLog: flag(request.query.withLog),
        compact: flag(request.query.compact),
      });
      reply
        .header('content-type', BACKUP_ARCHIVE_TYPE)
        .header('content-length', bytes)
        .header('content-disposition', `attachment; filename="docdb-seq-${seq}.docdb-backup"`)
        .header('x-docdb-backup-seq', seq);
      // The copy was made beside the data file; it goes once sent, or once the client left.
      stream.once('close', () => fs.rmSync(dir, { recursive: true, force: true }));
      return reply.send(stream);
    },
  );
}

/** The name of the copies POST /admin/backup makes beside the data file, before a random tail. */
const BACKUP_COPY_PREFIX = '.backup-';

/**
 * Removes the copies of backups a node stopped in the middle of sending (a crash): only
 * the node that holds the data directory makes them, so at its start any there are stale.
 */
export function removeStaleBackupCopies(dataFile: string): void {
  const dir = path.dirname(dataFile);
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(BACKUP_COPY_PREFIX)) {
      fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    }
  }
}

/**
 * Takes a backup into a fresh directory beside the data file (the same disk, so the copy
 * costs no cross-device move) and opens it as one stream with its length.
 */
async function backupStream(
  db: Database,
  options: { withLog: boolean; compact: boolean },
): Promise<{ dir: string; stream: Readable; bytes: number; seq: number }> {
  const dir = fs.mkdtempSync(path.join(path.dirname(db.file), BACKUP_COPY_PREFIX));
  try {
    const manifest = await takeBackup(db, path.join(dir, 'backup'), options);
    const manifestBytes = Buffer.byteLength(`${JSON.stringify(manifest)}\n`);
    const bytes = manifest.files.reduce((sum, f) => sum + f.bytes, manifestBytes);
    const stream = Readable.from(packBackup(path.join(dir, 'backup')));
    return { dir, stream, bytes, seq: manifest.lastSeq };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Document endpoints under /collections/{name}: insert, bulk insert, list, lookups by a
 * business key (`/by/{field}/{value}`) and by internal `_id`, replace, delete and drop, over
 * a node's database or a router alike (NodeApi). Bodies follow DESIGN §5. A by-key value is
 * text, so it matches the string and also the number, boolean or null the text spells
 * (`/by/age/30` finds 30 and "30").
 */

import type { FastifyInstance } from 'fastify';
import { dbError } from '../../errors/index.js';
import type { WriteCondition } from '../../types/index.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, normalizeCollectionName } from '../../util/index.js';
import { sendJson } from '../json-answer.js';
import { NO_BODY } from '../json-body.js';
import type { ApiContext } from '../route-context.js';
import { COUNT, count, FLAG, flag } from './query-string.js';

/**
 * The condition of an `If-Match` header: one entity tag as a GET's `ETag` gave it (`"tag"`,
 * a weak `W/"tag"` compared the same), or `*` (the document must exist, as it must anyway).
 */
function writeCondition(headers: Record<string, string | string[] | undefined>): WriteCondition {
  const header = headers['if-match'];
  if (header === undefined) return {};
  const text = (Array.isArray(header) ? header.join(',') : header).trim();
  if (text === '*') return {};
  const tag = /^(?:W\/)?"([A-Za-z0-9_-]+)"$/.exec(text)?.[1];
  if (tag === undefined) {
    throw dbError('ERR_BAD_ARGUMENT', 'ifMatch', { got: JSON.stringify(text) });
  }
  return { ifMatch: tag };
}

const nameParam = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' } },
} as const;

const idParams = {
  type: 'object',
  required: ['name', 'id'],
  properties: { name: { type: 'string' }, id: { type: 'string' } },
} as const;

const keyParams = {
  type: 'object',
  required: ['name', 'field', 'value'],
  properties: { name: { type: 'string' }, field: { type: 'string' }, value: { type: 'string' } },
} as const;

/** True when a confirmation header says true, in any case, spaces around it ignored. */
function confirmed(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && header.trim().toLowerCase() === 'true';
}

export function registerDocumentRoutes(app: FastifyInstance, { api }: ApiContext): void {
  app.post<{ Params: { name: string }; Body: unknown }>(
    '/collections/:name',
    { schema: { summary: 'Insert one document', params: nameParam } },
    async (request, reply) => {
      const { id } = await api().insert(request.params.name, request.body);
      reply
        .status(201)
        .header('Location', `/collections/${normalizeCollectionName(request.params.name)}/${id}`);
      return { id };
    },
  );

  app.post<{
    Params: { name: string };
    Body: unknown[];
    Querystring: { atomic?: string; skipIndexes?: string };
  }>(
    '/collections/:name/bulk',
    {
      schema: {
        summary: 'Insert many documents: per-item results; atomic=true for all-or-nothing',
        params: nameParam,
        body: { type: 'array' },
        querystring: {
          type: 'object',
          properties: { atomic: FLAG, skipIndexes: FLAG },
        },
      },
    },
    async (request) =>
      api().bulk(request.params.name, request.body, {
        atomic: flag(request.query.atomic),
        skipIndexes: flag(request.query.skipIndexes),
      }),
  );

  app.get<{ Params: { name: string }; Querystring: { limit?: string; after?: string } }>(
    '/collections/:name',
    {
      schema: {
        summary: `List documents in _id order (limit default ${LIST_LIMIT_DEFAULT}, max ${LIST_LIMIT_MAX})`,
        params: nameParam,
        querystring: {
          type: 'object',
          properties: {
            limit: COUNT,
            after: { type: 'string' },
          },
        },
      },
    },
    async (request) => {
      const limit = count(request.query.limit, LIST_LIMIT_DEFAULT);
      if (limit > LIST_LIMIT_MAX) {
        throw dbError('ERR_BAD_REQUEST', 'limitTooLarge', {
          max: LIST_LIMIT_MAX,
          limit,
        });
      }
      const { after } = request.query;
      return api().list(request.params.name, { limit, ...(after !== undefined && { after }) });
    },
  );

  app.get<{ Params: { name: string; field: string; value: string } }>(
    '/collections/:name/by/:field/:value',
    { schema: { summary: 'Documents whose field equals the value', params: keyParams } },
    async (request) => {
      const { name, field, value } = request.params;
      return api().getByKey(name, field, value);
    },
  );

  app.put<{ Params: { name: string; field: string; value: string }; Body: unknown }>(
    '/collections/:name/by/:field/:value',
    {
      schema: {
        summary: 'Replace the one document whose field equals the value',
        params: keyParams,
      },
    },
    async (request) => {
      const { name, field, value } = request.params;
      return api().replaceByKey(name, field, value, request.body, writeCondition(request.headers));
    },
  );

  app.delete<{ Params: { name: string; field: string; value: string } }>(
    '/collections/:name/by/:field/:value',
    {
      ...NO_BODY,
      schema: { summary: 'Delete every document whose field equals the value', params: keyParams },
    },
    async (request) => {
      const { name, field, value } = request.params;
      return api().deleteByKey(name, field, value);
    },
  );

  app.get<{ Params: { name: string; id: string } }>(
    '/collections/:name/:id',
    { schema: { summary: 'The document with this _id', params: idParams } },
    async (request, reply) => {
      const { name, id } = request.params;
      // As JSON text where the node holds it so: written from the stored bytes, sent as is.
      const found = await api().getTagged(name, id, { rows: 'json' });
      if (!found)
        throw dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', {
          id,
          collection: normalizeCollectionName(name),
        });
      if (found.tag !== undefined) reply.header('etag', `"${found.tag}"`);
      return sendJson(reply, found.doc);
    },
  );

  app.put<{ Params: { name: string; id: string }; Body: unknown }>(
    '/collections/:name/:id',
    {
      schema: { summary: 'Replace the document with this _id (the _id is kept)', params: idParams },
    },
    async (request) => {
      const { name, id } = request.params;
      return api().replace(name, id, request.body, writeCondition(request.headers));
    },
  );

  app.delete<{ Params: { name: string; id: string } }>(
    '/collections/:name/:id',
    { ...NO_BODY, schema: { summary: 'Delete the document with this _id', params: idParams } },
    async (request) => {
      const { name, id } = request.params;
      return api().delete(name, id, writeCondition(request.headers));
    },
  );

  app.delete<{ Params: { name: string } }>(
    '/collections/:name',
    {
      ...NO_BODY,
      schema: {
        summary: 'Drop the collection (needs the header X-Confirm: true)',
        params: nameParam,
      },
    },
    async (request) => {
      if (!confirmed(request.headers['x-confirm'])) {
        throw dbError('ERR_CONFIRMATION_REQUIRED', 'dropCollection');
      }
      return api().dropCollection(request.params.name);
    },
  );
}

/**
 * Document endpoints under /collections/{name}: insert, bulk insert, list, lookups by a
 * business key (`/by/{field}/{value}`) and by internal `_id`, replace, delete and drop.
 * Bodies follow DESIGN §5. A by-key value is text, so it matches the string and also the
 * number, boolean or null the text spells (`/by/age/30` finds 30 and "30").
 */

import type { FastifyInstance } from 'fastify';
import type { Collection, Database, WriteCondition } from '../../engine/index.js';
import { DbError } from '../../errors/index.js';
import {
  formatId,
  keyTextValues,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  parseId,
} from '../../util/index.js';
import { NO_BODY } from '../json-body.js';
import type { RouteContext } from '../route-context.js';
import { COUNT, count, FLAG, flag } from './query-string.js';

type Doc = Record<string, unknown>;

/**
 * The condition of an `If-Match` header: one entity tag as a GET's `ETag` gave it (`"tag"`,
 * a weak `W/"tag"` compared the same), or `*` (the document must exist, as it must anyway).
 */
export function writeCondition(
  headers: Record<string, string | string[] | undefined>,
): WriteCondition {
  const header = headers['if-match'];
  if (header === undefined) return {};
  const text = (Array.isArray(header) ? header.join(',') : header).trim();
  if (text === '*') return {};
  const tag = /^(?:W\/)?"([A-Za-z0-9_-]+)"$/.exec(text)?.[1];
  if (tag === undefined) {
    throw new DbError(
      'ERR_BAD_ARGUMENT',
      `If-Match takes one entity tag as a GET's ETag gives it ("…") or *; got ${JSON.stringify(text)}`,
    );
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

/** The values a by-key path text stands for: the string, and the scalar it spells. */
export const keyValues = keyTextValues;

/**
 * Documents whose `field` equals any value `text` stands for, each once, in `_id` order, and
 * the plan string of what ran (the planner's, as for SQL).
 */
export function findByKey(
  collection: Collection,
  field: string,
  text: string,
): { documents: Doc[]; plan: string } {
  return collection.findAny(field, keyValues(text));
}

/** True when a confirmation header says true, in any case, spaces around it ignored. */
export function confirmed(header: string | string[] | undefined): boolean {
  return typeof header === 'string' && header.trim().toLowerCase() === 'true';
}

function existing(db: Database, name: string): Collection {
  return db.requireCollection(name);
}

export function registerDocumentRoutes(app: FastifyInstance, { db }: RouteContext): void {
  app.post<{ Params: { name: string }; Body: unknown }>(
    '/collections/:name',
    { schema: { summary: 'Insert one document', params: nameParam } },
    async (request, reply) => {
      const collection = db.collection(request.params.name);
      const id = await collection.insert(request.body);
      reply.status(201).header('Location', `/collections/${collection.name}/${id}`);
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
    async (request, reply) => {
      const atomic = flag(request.query.atomic);
      const skipIndexes = flag(request.query.skipIndexes);
      const collection = db.collection(request.params.name);
      const result = await collection.insertMany(request.body, { atomic, skipIndexes });
      const firstError = result.errors[0];
      if (atomic && firstError) {
        // All-or-nothing failed: the status of the first failure, and the per-item report.
        const failed = new DbError(firstError.code as DbError['code'], firstError.error);
        reply.status(failed.status);
        return {
          ...result,
          error: `atomic bulk insert rejected ${result.errors.length} of ${request.body.length} documents; nothing was inserted`,
          code: failed.code,
        };
      }
      return result;
    },
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
      const collection = existing(db, request.params.name);
      const limit = count(request.query.limit, LIST_LIMIT_DEFAULT);
      if (limit > LIST_LIMIT_MAX) {
        throw new DbError(
          'ERR_BAD_REQUEST',
          `querystring field 'limit' must be <= ${LIST_LIMIT_MAX}; got ${limit}`,
        );
      }
      const documents = collection.list({
        limit,
        ...(request.query.after !== undefined && { after: request.query.after }),
      });
      return { documents, count: documents.length };
    },
  );

  app.get<{ Params: { name: string; field: string; value: string } }>(
    '/collections/:name/by/:field/:value',
    { schema: { summary: 'Documents whose field equals the value', params: keyParams } },
    async (request) => {
      const { name, field, value } = request.params;
      const { documents, plan } = findByKey(existing(db, name), field, value);
      return { documents, count: documents.length, plan };
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
      const collection = existing(db, name);
      const { documents } = findByKey(collection, field, value);
      if (documents.length === 0) {
        throw new DbError(
          'ERR_DOCUMENT_NOT_FOUND',
          `no document in ${collection.name} has ${field} = ${value}`,
        );
      }
      if (documents.length > 1) {
        throw new DbError(
          'ERR_AMBIGUOUS_MATCH',
          `${documents.length} documents in ${collection.name} have ${field} = ${value}; replace one by its _id instead`,
          { matched: documents.length },
        );
      }
      const id = String((documents[0] as Doc)._id);
      await collection.replace(id, withoutId(request.body, id), writeCondition(request.headers));
      return { id, matched: 1 };
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
      const collection = existing(db, name);
      const { documents } = findByKey(collection, field, value);
      const deleted = await collection.deleteMany(documents.map((d) => String(d._id)));
      return { deleted };
    },
  );

  app.get<{ Params: { name: string; id: string } }>(
    '/collections/:name/:id',
    { schema: { summary: 'The document with this _id', params: idParams } },
    async (request, reply) => {
      const { name, id } = request.params;
      const collection = existing(db, name);
      const found = await collection.getTagged(id);
      if (!found)
        throw new DbError(
          'ERR_DOCUMENT_NOT_FOUND',
          `no document with _id ${id} in ${collection.name}`,
        );
      reply.header('etag', `"${found.tag}"`);
      return found.doc;
    },
  );

  app.put<{ Params: { name: string; id: string }; Body: unknown }>(
    '/collections/:name/:id',
    {
      schema: { summary: 'Replace the document with this _id (the _id is kept)', params: idParams },
    },
    async (request) => {
      const { name, id } = request.params;
      const collection = existing(db, name);
      await collection.replace(id, withoutId(request.body, id), writeCondition(request.headers));
      return { id: formatId(parseId(id) as Buffer) };
    },
  );

  app.delete<{ Params: { name: string; id: string } }>(
    '/collections/:name/:id',
    { ...NO_BODY, schema: { summary: 'Delete the document with this _id', params: idParams } },
    async (request) => {
      const { name, id } = request.params;
      const collection = existing(db, name);
      if (!(await collection.delete(id, writeCondition(request.headers)))) {
        throw new DbError(
          'ERR_DOCUMENT_NOT_FOUND',
          `no document with _id ${id} in ${collection.name}`,
        );
      }
      return { deleted: 1 };
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
        throw new DbError(
          'ERR_CONFIRMATION_REQUIRED',
          'dropping a collection deletes every document in it; send the header X-Confirm: true to confirm',
        );
      }
      const collection = existing(db, request.params.name);
      await collection.drop();
      return { dropped: collection.name };
    },
  );
}

/**
 * A replacement body keeps the stored `_id`: a body `_id` must match it (any case or the
 * undashed form) and is dropped before the replace.
 */
function withoutId(body: unknown, id: string): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !('_id' in body))
    return body;
  const { _id, ...rest } = body as Doc;
  const same =
    typeof _id === 'string' &&
    _id.replaceAll('-', '').toLowerCase() === id.replaceAll('-', '').toLowerCase();
  if (!same) {
    throw new DbError(
      'ERR_DOCUMENT_ID_INVALID',
      `the body's _id ${JSON.stringify(_id)} differs from ${id}; _id cannot change`,
    );
  }
  return rest;
}

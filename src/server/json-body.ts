/**
 * The JSON body parser: Fastify's own (with its prototype-poisoning checks), except that an
 * empty body is accepted on a route that takes none or whose body is optional. Many clients
 * send `Content-Type: application/json` on every request, with a body or not; a route that
 * needs a body still refuses an empty one (errors.ts words it).
 */

import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify';
import { type DbError, dbError } from '../errors/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * What a route does with a request body, when it does not need one: `none` takes none (an
     * empty one is fine; one with content is parsed and ignored), `optional` does without
     * (no body, or an empty one, is `{}`). Routes that need a body leave it out.
     */
    body?: 'none' | 'optional';
  }
}

/** The route options of a route that takes no body. */
export const NO_BODY = { config: { body: 'none' } } as const;

/** A missing body is `{}`, so the route's object schema and handler see one. */
const missingBodyAsObject: preValidationHookHandler = (request, _reply, done) => {
  if (request.body === undefined) request.body = {};
  done();
};

/** The route options of a route whose body (an object) is optional. */
export const OPTIONAL_BODY = {
  config: { body: 'optional' },
  preValidation: missingBodyAsObject,
} as const;

/** True when the request's route takes no body or an optional one. */
export function acceptsEmptyBody(request: FastifyRequest): boolean {
  // Read only for empty bodies: `routeOptions` builds a new object on each read.
  return request.routeOptions.config.body !== undefined;
}

/** Replaces the JSON parser of `app`; call before the routes are registered. */
export function addJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0 && acceptsEmptyBody(request)) {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, (error, value) => {
      if ((error as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
        done(whyNotParsed(body as string));
      } else done(error, value);
    });
  });
}

/**
 * Why Fastify's parser refused a body, which its own error does not say: JSON's own complaint
 * (with its position), or, when the text is valid JSON, its prototype-poisoning check.
 */
function whyNotParsed(text: string): DbError {
  try {
    JSON.parse(text);
  } catch (error) {
    return dbError('ERR_BAD_REQUEST', 'bodyNotJson', { cause: (error as Error).message });
  }
  return dbError('ERR_BAD_REQUEST', 'bodyPrototypeKey');
}

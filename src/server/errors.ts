/**
 * Turns every error into an HTTP answer: a DbError keeps its status and code; Fastify's own
 * errors (validation, body size, media type, bad JSON) get docdb codes; anything else is a
 * bug, answered 500 with only a request id while the log keeps the detail. Internal text
 * never goes on the wire: a code the catalogue marks with a public message (a storage
 * engine's failure) is answered with that message and the request id, and logged in full.
 */

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DbError, type ErrorCode, isDbError, publicMessageOf } from '../errors/index.js';
import type { ErrorBody } from '../types/index.js';

export type { ErrorBody };

function fromFastify(error: FastifyError): DbError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DbError('ERR_BODY_TOO_LARGE', 'the request body is larger than the limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DbError(
        'ERR_UNSUPPORTED_MEDIA_TYPE',
        `unsupported content type; send JSON with Content-Type: application/json`,
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new DbError('ERR_BAD_REQUEST', 'the request body is empty; send a JSON value');
    case 'FST_ERR_VALIDATION':
      return new DbError('ERR_BAD_REQUEST', validationMessage(error));
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new DbError('ERR_BAD_REQUEST', `the request body is not valid JSON: ${error.message}`);
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new DbError('ERR_BAD_REQUEST', error.message);
  }
  return undefined;
}

function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'request';
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  const field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  // A field of a nested object is named with its parents: `shard.phase`, not `phase`.
  const inside = field ? `${field}.` : '';
  if (first.keyword === 'required') {
    return `${where}: missing field '${inside}${params.missingProperty}'`;
  }
  if (first.keyword === 'additionalProperties') {
    return `${where}: unknown field '${inside}${params.additionalProperty}'`;
  }
  return `${where}${field ? ` field '${field}'` : ''} ${first.message ?? 'is invalid'}`;
}

/** The body for a code whose own message stays in the log: the fixed message and the request id. */
function withheld(request: FastifyRequest, code: ErrorCode): ErrorBody {
  return { error: publicMessageOf(code) as string, code, requestId: request.id };
}

/**
 * The error body of a failure after a stream's headers went out (a change feed's last line):
 * a DbError's own body unless its message is withheld; anything else is logged and answered
 * as ERR_INTERNAL with the request id.
 */
export function streamErrorBody(request: FastifyRequest, error: unknown): ErrorBody {
  if (!isDbError(error)) {
    request.log.error({ err: error }, 'stream failed after its headers');
    return withheld(request, 'ERR_INTERNAL');
  }
  if (publicMessageOf(error.code) !== undefined) {
    request.log.error({ err: error, code: error.code }, error.message);
    return withheld(request, error.code);
  }
  return { error: error.message, code: error.code, ...ownDetails(error) };
}

/** Options of the error mapping. */
/**
 * An error's details for its body, without a `requestId` it carries from elsewhere: a router
 * relaying a shard's error answers with its own request id (the X-Request-Id header), never
 * the shard's.
 */
function ownDetails(error: DbError): Record<string, unknown> {
  const { requestId: _, ...details } = error.details ?? {};
  return details;
}

export interface ErrorMapping {
  /** Per-route overrides of a code's status (POST /query answers 400 for unknown collections). */
  statusFor?: (request: FastifyRequest, code: ErrorCode) => number | undefined;
}

/** The Fastify error handler. */
export function errorHandler(mapping: ErrorMapping = {}) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const known = isDbError(error) ? error : fromFastify(error);
    if (!known) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.status(500).send(withheld(request, 'ERR_INTERNAL'));
    }
    const status = mapping.statusFor?.(request, known.code) ?? known.status;
    if (publicMessageOf(known.code) !== undefined) {
      // The log line carries the request id (Fastify binds it), so the two can be matched.
      request.log.error({ err: error, code: known.code }, known.message);
      return reply.status(status).send(withheld(request, known.code));
    }
    // A fault of the node (a damaged data file) goes to the log too, with the engine's words
    // (its cause); a deliberate 503 (a read-only node) is not an error of the node.
    if (status === 500) request.log.error({ err: error, code: known.code }, known.message);
    const body: ErrorBody = { error: known.message, code: known.code, ...ownDetails(known) };
    return reply.status(status).send(body);
  };
}

/**
 * Turns every error into an HTTP answer: a DbError keeps its status and code; Fastify's own
 * errors (validation, body size, media type, bad JSON) get docdb codes; anything else is a
 * bug, answered 500 with only a request id while the log keeps the detail. Internal text
 * never goes on the wire: a code the catalogue marks with a public message (a storage
 * engine's failure) is answered with that message and the request id, and logged in full.
 */

import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  type DbError,
  dbError,
  type ErrorCode,
  isDbError,
  publicMessageOf,
} from '../errors/index.js';
import type { ErrorBody } from '../types/index.js';
import { declaredParameters } from './routes/query-string.js';

export type { ErrorBody };

function fromFastify(error: FastifyError, request: FastifyRequest): DbError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request.routeOptions.bodyLimit;
      return dbError(
        'ERR_BODY_TOO_LARGE',
        'tooLarge',
        { limit, limitText: bytesText(limit) },
        { bodyBytesMax: limit },
      );
    }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return dbError('ERR_UNSUPPORTED_MEDIA_TYPE', 'notJson');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return dbError('ERR_BAD_REQUEST', 'emptyBody');
    case 'FST_ERR_VALIDATION':
      return validationError(error, request);
    default:
      break;
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return dbError('ERR_BAD_REQUEST', 'bodyNotJson', { cause: error.message });
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return dbError('ERR_BAD_REQUEST', 'fastify', { message: error.message });
  }
  return undefined;
}

function validationError(error: FastifyError, request: FastifyRequest): DbError {
  const first = error.validation?.[0];
  if (!first) return dbError('ERR_BAD_REQUEST', 'fastify', { message: error.message });
  const where = error.validationContext ?? 'request';
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  const field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  // A field of a nested object is named with its parents: `shard.phase`, not `phase`.
  const inside = field ? `${field}.` : '';
  if (first.keyword === 'required') {
    const missing = `${inside}${params.missingProperty}`;
    return dbError('ERR_BAD_REQUEST', 'missingField', { where, field: missing });
  }
  if (first.keyword === 'additionalProperties' && where === 'querystring') {
    const takes = declaredParameters(request.routeOptions.schema);
    const route = `${request.method} ${request.routeOptions.url}`;
    const parameter = params.additionalProperty;
    return takes.length === 0
      ? dbError('ERR_BAD_REQUEST', 'unknownParameterNone', { parameter, route })
      : dbError('ERR_BAD_REQUEST', 'unknownParameter', {
          parameter,
          route,
          takes: takes.join(', '),
        });
  }
  if (first.keyword === 'additionalProperties') {
    const unknown = `${inside}${params.additionalProperty}`;
    return dbError('ERR_BAD_REQUEST', 'unknownField', { where, field: unknown });
  }
  // A schema's description words what it wants, instead of the validator's pattern or enum.
  // (Ajv's `verbose` puts `parentSchema` and `data` on the error; Fastify's type omits them.)
  const { parentSchema, data } = first as {
    parentSchema?: { description?: string };
    data?: unknown;
  };
  if (parentSchema?.description !== undefined) {
    const values = { where, field, wanted: parentSchema.description, got: shownValue(data) };
    return dbError('ERR_BAD_REQUEST', 'fieldNotWanted', values);
  }
  // The validator's own words (Ajv's message) say what is wrong with the field.
  const problem = first.message ?? 'is invalid';
  return field
    ? dbError('ERR_BAD_REQUEST', 'fieldInvalid', { where, field, problem })
    : dbError('ERR_BAD_REQUEST', 'invalid', { where, problem });
}

/** A rejected value as the 400 shows it: JSON, cut at 40 characters. */
function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** A byte count in the largest whole unit: `32 MiB`, `1 KiB`, `100 bytes`. */
function bytesText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** The body for a code whose own message stays in the log: the fixed message and the request id. */
function withheld(requestId: string, code: ErrorCode): ErrorBody {
  return { error: publicMessageOf(code) as string, code, requestId };
}

/**
 * The error body of a failure after a stream's headers went out (a change feed's last line):
 * a DbError's own body unless its message is withheld; anything else is logged and answered
 * as ERR_INTERNAL with the request id.
 */
export function streamErrorBody(request: FastifyRequest, error: unknown): ErrorBody {
  if (!isDbError(error)) {
    request.log.error({ err: error }, 'stream failed after its headers');
    return withheld(request.id, 'ERR_INTERNAL');
  }
  if (publicMessageOf(error.code) !== undefined) {
    request.log.error({ err: error, code: error.code }, error.message);
    return withheld(request.id, error.code);
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
    const known = isDbError(error) ? error : fromFastify(error, request);
    const status = known && mapping.statusFor?.(request, known.code);
    const answer = errorAnswer(known ?? error, request.id, request.log, status);
    return reply.status(answer.status).send(answer.body);
  };
}

/**
 * The status and body of `error` as every docdb answer gives them (`status` overrides a
 * DbError's own): anything but a DbError is a bug, logged and answered 500 ERR_INTERNAL with
 * the request id only; a code whose message is withheld is logged and answered with its
 * public message; a node's fault (500) is logged. The REST routes and the wire
 * (server/wire.ts) answer through it, so both say the same; `log` is bound to the request id.
 */
export function errorAnswer(
  error: unknown,
  requestId: string,
  log: FastifyBaseLogger,
  status?: number,
): { status: number; body: ErrorBody } {
  if (!isDbError(error)) {
    log.error({ err: error }, 'unhandled error');
    return { status: 500, body: withheld(requestId, 'ERR_INTERNAL') };
  }
  const answered = status ?? error.status;
  if (publicMessageOf(error.code) !== undefined) {
    // The log line carries the request id, so the two can be matched.
    log.error({ err: error, code: error.code }, error.message);
    return { status: answered, body: withheld(requestId, error.code) };
  }
  // A fault of the node (a damaged data file) goes to the log too, with the engine's words
  // (its cause); a deliberate 503 (a read-only node) is not an error of the node.
  if (answered === 500) {
    log.error({ err: error, code: error.code }, error.message);
  }
  return {
    status: answered,
    body: { error: error.message, code: error.code, ...ownDetails(error) },
  };
}

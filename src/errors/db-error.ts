/**
 * DbError: the one error type docdb raises for anything a user can cause. It carries a stable
 * code from the catalogue, the HTTP status that goes with it, and optional details.
 * Only server/ turns it into HTTP and only cli/ into exit codes.
 */

import {
  type ErrorCode,
  fillTemplate,
  type MessageKey,
  type Placeholders,
  RELAYED_MESSAGES,
  type RelayedKey,
  statusOf,
  type TemplateOf,
  type TemplateValues,
  templateOf,
} from './catalogue.js';

/** Extra facts about an error, such as a SQL position or the offending value. */
export type ErrorDetails = Record<string, unknown>;

/** An error a user caused or can act on; `message` says what is wrong and what to do. */
export class DbError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;

  /**
   * `status` defaults to the code's status in the catalogue. The typed client gives the HTTP
   * status it received instead: a node may answer a code with another status (an unknown
   * collection on `POST /query` is a 400), or send a code a newer version added.
   */
  constructor(code: ErrorCode, message: string, details?: ErrorDetails, status?: number) {
    super(message);
    this.name = 'DbError';
    this.code = code;
    this.status = status ?? statusOf(code);
    this.details = details;
  }
}

/** True when `error` is a DbError, optionally with the given code. */
export function isDbError(error: unknown, code?: ErrorCode): error is DbError {
  return error instanceof DbError && (code === undefined || error.code === code);
}

/**
 * What `dbError` takes after the template's name: the template's values (left out when it has
 * no placeholder), then optional details, then the HTTP status when it is not the code's own
 * (the typed client gives the status it received, see the DbError constructor).
 */
export type MessageArgs<T extends string> = [Placeholders<T>] extends [never]
  ? [values?: Record<string, never>, details?: ErrorDetails, status?: number]
  : [values: TemplateValues<T>, details?: ErrorDetails, status?: number];

/**
 * A DbError of `code` whose message is the catalogue's template `key` of that code, filled
 * with `values`: `dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', { id, collection })`. The types
 * hold the name to a template of that code and the values to its placeholders, so a throw
 * site passes facts and the catalogue keeps the words.
 */
export function dbError<C extends ErrorCode, K extends MessageKey<C>>(
  code: C,
  key: K,
  ...[values, details, status]: MessageArgs<TemplateOf<C, K>>
): DbError {
  const template = templateOf(code, key);
  // Only a cast past the types reaches this; the message still says what was asked.
  const message =
    template === undefined
      ? `${code} has no message '${key}'`
      : fillTemplate(template, values ?? {});
  return new DbError(code, message, details, status);
}

/**
 * A DbError of `code`, the code of an error being passed on, whose message is the relayed
 * template `key` (RELAYED_MESSAGES) filled with `values`: `relayedError(error.code, 'bulkItem',
 * { position, count, message: error.message }, error.details)`.
 */
export function relayedError<K extends RelayedKey>(
  code: ErrorCode,
  key: K,
  ...[values, details, status]: MessageArgs<(typeof RELAYED_MESSAGES)[K]>
): DbError {
  return new DbError(code, fillTemplate(RELAYED_MESSAGES[key], values ?? {}), details, status);
}

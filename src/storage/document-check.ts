/**
 * Checks that a value is a storable document: a plain object of JSON values, not too deep,
 * with an optional `_id` that is a UUID. Errors name the offending field path.
 */

import { DbError } from '../errors/index.js';
import { DOCUMENT_DEPTH_MAX, parseId } from '../util/index.js';

/** A stored document as callers see it. */
export type Document = Record<string, unknown>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined (use null or leave the field out)';
  if (typeof value === 'number') return `the number ${value} (JSON has no NaN or Infinity)`;
  if (typeof value === 'bigint') return 'a bigint (store it as a number or a string)';
  if (value instanceof Date) return 'a Date (store dates as ISO 8601 strings)';
  if (typeof value === 'object' && value !== null)
    return `a ${value.constructor?.name ?? 'non-plain'} object`;
  return `a ${typeof value}`;
}

function fail(message: string, field?: string): never {
  throw new DbError('ERR_DOCUMENT_INVALID', message, field === undefined ? undefined : { field });
}

function checkValue(value: unknown, field: string, depth: number): void {
  switch (typeof value) {
    case 'string':
      // A lone UTF-16 surrogate has no UTF-8 form: it would be stored as U+FFFD and lost.
      if (!value.isWellFormed()) {
        fail(
          `field '${field}' holds a string with a lone UTF-16 surrogate (not valid Unicode)`,
          field,
        );
      }
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) fail(`field '${field}' holds ${describe(value)}`, field);
      return;
    case 'object':
      if (value === null) return;
      if (depth >= DOCUMENT_DEPTH_MAX) {
        fail(`field '${field}' nests deeper than ${DOCUMENT_DEPTH_MAX} levels`, field);
      }
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) checkValue(value[i], `${field}[${i}]`, depth + 1);
        return;
      }
      if (!isPlainObject(value)) fail(`field '${field}' holds ${describe(value)}`, field);
      checkFields(value, `${field}.`, depth + 1);
      return;
    default:
      fail(`field '${field}' holds ${describe(value)}`, field);
  }
}

function checkFields(object: Record<string, unknown>, prefix: string, depth: number): void {
  for (const key of Object.keys(object)) {
    if (key === '__proto__') fail(`field name '${prefix}__proto__' is not allowed`, prefix + key);
    if (!key.isWellFormed()) fail(`field name '${prefix}${key}' holds a lone UTF-16 surrogate`);
    checkValue(object[key], prefix + key, depth);
  }
}

/**
 * Validates a document and splits off its `_id`. Returns the id bytes when the document
 * carries a valid UUID `_id`, undefined when it has none; anything else is an error.
 */
export function checkDocument(doc: unknown): { body: Document; id: Buffer | undefined } {
  if (!isPlainObject(doc)) {
    const what = Array.isArray(doc)
      ? 'an array'
      : doc === undefined
        ? 'nothing (the body is empty)'
        : doc === null
          ? 'null'
          : typeof doc === 'object'
            ? describe(doc)
            : `a ${typeof doc}`;
    fail(`a document must be a JSON object, not ${what}`);
  }
  let id: Buffer | undefined;
  let body: Document = doc;
  if ('_id' in doc) {
    const raw = doc._id;
    id = parseId(raw);
    if (!id) {
      throw new DbError(
        'ERR_DOCUMENT_ID_INVALID',
        `_id ${JSON.stringify(raw)} is not a UUID; leave _id out to get a generated one`,
        { _id: raw },
      );
    }
    const { _id: _, ...rest } = doc;
    body = rest;
  }
  checkFields(body, '', 1);
  return { body, id };
}

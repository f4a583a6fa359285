/**
 * Checks that a value is a storable document: a plain object of JSON values, not too deep,
 * with an optional `_id` that is a UUID. Errors name the offending field path.
 */

import { dbError } from '../errors/index.js';
import type { Document } from '../types/index.js';
import { DOCUMENT_DEPTH_MAX, parseId } from '../util/index.js';

export type { Document };

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

/**
 * The path of the field being checked, as names and array positions. Building a path string
 * for every field of every document cost more than the checks themselves; the string is
 * made only for an error. Reset at the start of each check (a failed check leaves it full).
 */
const fieldPath: Array<string | number> = [];

/** The dotted text of `fieldPath` (with `[i]` for positions), as errors name fields. */
function pathText(): string {
  let text = '';
  for (let i = 0; i < fieldPath.length; i++) {
    const step = fieldPath[i];
    if (typeof step === 'number') text += `[${step}]`;
    else text += i === 0 ? step : `.${step}`;
  }
  return text;
}

function checkValue(value: unknown, depth: number): void {
  switch (typeof value) {
    case 'string':
      // A lone UTF-16 surrogate has no UTF-8 form: it would be stored as U+FFFD and lost.
      if (!value.isWellFormed()) {
        const field = pathText();
        throw dbError('ERR_DOCUMENT_INVALID', 'loneSurrogate', { field }, { field: field });
      }
      return;
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) {
        const field = pathText();
        throw dbError(
          'ERR_DOCUMENT_INVALID',
          'notJsonValue',
          { field, what: describe(value) },
          { field: field },
        );
      }
      return;
    case 'object':
      if (value === null) return;
      if (depth >= DOCUMENT_DEPTH_MAX) {
        const field = pathText();
        throw dbError(
          'ERR_DOCUMENT_INVALID',
          'tooDeep',
          { field, limit: DOCUMENT_DEPTH_MAX },
          { field: field },
        );
      }
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          fieldPath.push(i);
          checkValue(value[i], depth + 1);
          fieldPath.pop();
        }
        return;
      }
      if (!isPlainObject(value)) {
        const field = pathText();
        throw dbError(
          'ERR_DOCUMENT_INVALID',
          'notJsonValue',
          { field, what: describe(value) },
          { field: field },
        );
      }
      checkFields(value, depth + 1);
      return;
    default: {
      const field = pathText();
      throw dbError(
        'ERR_DOCUMENT_INVALID',
        'notJsonValue',
        { field, what: describe(value) },
        { field: field },
      );
    }
  }
}

function checkFields(object: Record<string, unknown>, depth: number): void {
  for (const key of Object.keys(object)) {
    if (key === '__proto__' || !key.isWellFormed()) {
      const prefix = fieldPath.length === 0 ? '' : `${pathText()}.`;
      if (key === '__proto__')
        throw dbError('ERR_DOCUMENT_INVALID', 'protoField', { prefix }, { field: prefix + key });
      throw dbError('ERR_DOCUMENT_INVALID', 'loneSurrogateInName', { prefix, key });
    }
    fieldPath.push(key);
    checkValue(object[key], depth);
    fieldPath.pop();
  }
}

/**
 * Validates a document and splits off its `_id`. Returns the id bytes when the document
 * carries a valid UUID `_id`, undefined when it has none; anything else is an error.
 */
/**
 * Checks a value about to be set at `field`, a path of `steps` steps, as checkDocument will
 * once it is there; before it is copied in, so a value nested too deep is refused rather than
 * overflowing the stack of the copy (UPDATE … SET q = ? with 10,000 levels was a 500).
 */
export function checkFieldValue(field: string, steps: number, value: unknown): void {
  fieldPath.length = 0;
  fieldPath.push(field);
  checkValue(value, steps);
}

/** A document whose shape and `_id` were checked: its body (without `_id`) and its id. */
export interface CheckedDocument {
  body: Document;
  id: Buffer | undefined;
}

export function checkDocument(doc: unknown): CheckedDocument {
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
    throw dbError('ERR_DOCUMENT_INVALID', 'notObject', { what });
  }
  let id: Buffer | undefined;
  let body: Document = doc;
  if ('_id' in doc) {
    const raw = doc._id;
    id = parseId(raw);
    if (!id) {
      throw dbError(
        'ERR_DOCUMENT_ID_INVALID',
        'notUuid',
        { id: JSON.stringify(raw) },
        { _id: raw },
      );
    }
    const { _id: _, ...rest } = doc;
    body = rest;
  }
  fieldPath.length = 0;
  checkFields(body, 1);
  return { body, id };
}

/**
 * JSON paths: `a`, `a.b`, `a[0].b`, `a[2].b.c` and, for index definitions only, `a[*].b`.
 * Parsing gives a canonical text and segments; evaluation walks a document. Pure.
 */

import { type DbError, dbError } from '../errors/index.js';
import { PATH_CHARS_MAX, PATH_SEGMENTS_MAX } from './limits.js';

/** One step of a path: a field name, an array position, or every array element. */
export type PathSegment =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'each' };

/** A parsed path. `multikey` is true when it holds a `[*]` step. */
export interface JsonPath {
  text: string;
  segments: PathSegment[];
  multikey: boolean;
}

const FIELD_CHAR = /[^.[\]\s"'`]/;

function invalid(text: string, why: string): DbError {
  return dbError('ERR_PATH_INVALID', 'invalid', { path: text, why }, { path: text });
}

function readField(text: string, start: number): number {
  let i = start;
  while (i < text.length && FIELD_CHAR.test(text[i] as string)) i++;
  return i;
}

function readBracket(text: string, start: number, segments: PathSegment[]): number {
  const close = text.indexOf(']', start);
  if (close < 0) throw invalid(text, `'[' at position ${start + 1} is never closed`);
  const inner = text.slice(start + 1, close);
  if (inner === '*') {
    segments.push({ kind: 'each' });
  } else if (/^(0|[1-9][0-9]{0,8})$/.test(inner)) {
    segments.push({ kind: 'index', index: Number(inner) });
  } else {
    throw invalid(text, `'[${inner}]' is not an array position (use [0], [1], … or [*])`);
  }
  return close + 1;
}

/**
 * Parses a path. `allowEach` permits `[*]` (index definitions); elsewhere it is an error,
 * because a query must name a specific array position.
 */
export function parsePath(text: unknown, options: { allowEach?: boolean } = {}): JsonPath {
  if (typeof text !== 'string' || text.length === 0) {
    throw dbError(
      'ERR_PATH_INVALID',
      'notString',
      {},
      {
        path: text,
      },
    );
  }
  if (text.length > PATH_CHARS_MAX) {
    throw invalid(text.slice(0, 40) + '…', `longer than ${PATH_CHARS_MAX} characters`);
  }
  const segments: PathSegment[] = [];
  let i = 0;
  let expectField = true;
  while (i < text.length) {
    const ch = text[i];
    if (expectField) {
      const end = readField(text, i);
      if (end === i) throw invalid(text, `expected a field name at position ${i + 1}`);
      const name = text.slice(i, end);
      // No document holds it (document-check.ts), and as a key it would reach the prototype.
      if (name === '__proto__') throw invalid(text, "'__proto__' is not allowed as a field name");
      segments.push({ kind: 'field', name });
      i = end;
      expectField = false;
    } else if (ch === '.') {
      i += 1;
      expectField = true;
    } else if (ch === '[') {
      i = readBracket(text, i, segments);
    } else {
      throw invalid(text, `unexpected '${ch}' at position ${i + 1}`);
    }
  }
  if (expectField) throw invalid(text, 'it ends with a dot');
  if (segments.length > PATH_SEGMENTS_MAX) {
    throw invalid(text, `more than ${PATH_SEGMENTS_MAX} segments`);
  }
  const multikey = segments.some((s) => s.kind === 'each');
  if (multikey && !options.allowEach) {
    throw invalid(text, '[*] is only allowed in index definitions; name a position such as [0]');
  }
  return { text, segments, multikey };
}

/** True when two parsed paths name the same steps (their texts may differ: `a[01]`, `a[1]`). */
export function samePath(a: JsonPath, b: JsonPath): boolean {
  if (a.segments.length !== b.segments.length) return false;
  for (let i = 0; i < a.segments.length; i++) {
    const x = a.segments[i] as PathSegment;
    const y = b.segments[i] as PathSegment;
    if (x.kind !== y.kind) return false;
    if (x.kind === 'field' && x.name !== (y as typeof x).name) return false;
    if (x.kind === 'index' && x.index !== (y as typeof x).index) return false;
  }
  return true;
}

/** The value at a path without `[*]` steps; undefined when any step is missing. */
export function valueAt(doc: unknown, path: JsonPath): unknown {
  let current: unknown = doc;
  for (const segment of path.segments) {
    if (current === null || typeof current !== 'object') return undefined;
    if (segment.kind === 'field') {
      // Own fields only: `constructor` or `toString` must not come from Object.prototype.
      if (Array.isArray(current) || !Object.hasOwn(current, segment.name)) return undefined;
      current = (current as Record<string, unknown>)[segment.name];
    } else if (segment.kind === 'index') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment.index];
    } else {
      return undefined;
    }
  }
  return current;
}

/**
 * Every value a path reaches, expanding each `[*]` over the elements of the array it meets.
 * A path without `[*]` yields at most one value; missing steps yield nothing.
 */
export function valuesAt(doc: unknown, path: JsonPath): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.segments, 0, out);
  return out;
}

function collect(current: unknown, segments: PathSegment[], at: number, out: unknown[]): void {
  if (at === segments.length) {
    if (current !== undefined) out.push(current);
    return;
  }
  if (current === null || typeof current !== 'object') return;
  const segment = segments[at] as PathSegment;
  if (segment.kind === 'field') {
    if (!Array.isArray(current) && Object.hasOwn(current, segment.name)) {
      collect((current as Record<string, unknown>)[segment.name], segments, at + 1, out);
    }
  } else if (segment.kind === 'index') {
    if (Array.isArray(current)) collect(current[segment.index], segments, at + 1, out);
  } else if (Array.isArray(current)) {
    for (const element of current) collect(element, segments, at + 1, out);
  }
}

/**
 * Writes answers whose rows may be held as JSON text (JsonText, written by the node from the
 * stored bytes): the text is spliced into the body as it is, never parsed, and the body is
 * byte for byte what Fastify's JSON.stringify of the same answer with objects would send,
 * content type included. Headers and status are the route's own business.
 */

import type { FastifyReply } from 'fastify';
import type { JsonText } from '../types/index.js';
import { isJsonText, rowJson } from '../util/index.js';

/** The content type Fastify gives a JSON answer it serializes itself. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** The rows' JSON text (an array), whichever form each row came in. */
function rowsJson(rows: readonly unknown[]): string {
  let out = '[';
  for (let i = 0; i < rows.length; i++) out += i === 0 ? rowJson(rows[i]) : `,${rowJson(rows[i])}`;
  return `${out}]`;
}

/** Answer keys as JSON strings: answers use a handful of keys, each quoted once (bounded). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 64;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * An answer object whose `documents` may hold JsonText, as JSON.stringify writes the same
 * answer with objects: its keys in order, undefined values left out. A plain loop over the
 * keys, with no array of entries: this runs once per answered query.
 */
export function answerJson(answer: object): string {
  let out = '{';
  for (const key in answer) {
    const value = (answer as Record<string, unknown>)[key];
    const json =
      key === 'documents' && Array.isArray(value) ? rowsJson(value) : JSON.stringify(value);
    if (json === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${quotedKey(key)}:${json}`;
  }
  return `${out}}`;
}

/** True when some row is held as JSON text (else Fastify may serialize the answer itself). */
export function holdsJsonText(rows: readonly unknown[]): boolean {
  for (const row of rows) if (isJsonText(row)) return true;
  return false;
}

/**
 * Sends an answer (an object, or a row held as text) as JSON: objects go to Fastify's own
 * serializer, text is sent as it is under the same content type.
 */
export function sendJson(reply: FastifyReply, body: object | JsonText): FastifyReply | object {
  if (isJsonText(body)) return reply.type(JSON_TYPE).send(body.json);
  if ('documents' in body && Array.isArray(body.documents) && holdsJsonText(body.documents)) {
    return reply.type(JSON_TYPE).send(answerJson(body));
  }
  return body;
}

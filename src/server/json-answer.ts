/**
 * Writes answers whose rows may be held as JSON text (JsonText, written by the node from the
 * stored bytes): the text is spliced into the body as it is, never parsed, and the body is
 * byte for byte what Fastify's JSON.stringify of the same answer with objects would send,
 * content type included. Headers and status are the route's own business.
 */

import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { JsonText } from '../types/index.js';
import { isJsonText, rowJson } from '../util/index.js';

/** The content type Fastify gives a JSON answer it serializes itself. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Characters of an answer written at once: a larger answer goes out in pieces of about this
 * size, made as the socket takes them. One string of a 600 MB answer passed V8's longest
 * string (2^29 characters) and answered 500.
 */
const ANSWER_PIECE_CHARS = 1024 * 1024;

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
  let out = '';
  for (const piece of answerPieces(answer)) out += piece;
  return out;
}

/**
 * The same JSON in pieces of about ANSWER_PIECE_CHARS (the rows of `documents` split between
 * them), made one at a time as they are pulled.
 */
function* answerPieces(answer: object): Generator<string> {
  let out = '{';
  let first = true;
  for (const key in answer) {
    const value = (answer as Record<string, unknown>)[key];
    if (key === 'documents' && Array.isArray(value)) {
      out += `${first ? '' : ','}${quotedKey(key)}:[`;
      first = false;
      for (let i = 0; i < value.length; i++) {
        out += i === 0 ? rowJson(value[i]) : `,${rowJson(value[i])}`;
        if (out.length >= ANSWER_PIECE_CHARS) {
          yield out;
          out = '';
        }
      }
      out += ']';
      continue;
    }
    const json = JSON.stringify(value);
    if (json === undefined) continue;
    out += `${first ? '' : ','}${quotedKey(key)}:${json}`;
    first = false;
  }
  yield `${out}}`;
}

/**
 * Sends an answer (an object, or a row held as text) as JSON, the bytes JSON.stringify would
 * write: text as it is; an answer with `documents` in pieces, as one string (with its length)
 * when it fits in one, else as a stream of them; other objects through Fastify's serializer.
 */
export function sendJson(reply: FastifyReply, body: object | JsonText): FastifyReply | object {
  if (isJsonText(body)) return reply.type(JSON_TYPE).send(body.json);
  if (!('documents' in body && Array.isArray(body.documents))) return body;
  const pieces = answerPieces(body);
  const first = pieces.next();
  const second = pieces.next();
  if (second.done) return reply.type(JSON_TYPE).send(first.value);
  return reply.type(JSON_TYPE).send(
    Readable.from(
      (function* () {
        yield first.value as string;
        yield second.value;
        yield* pieces;
      })(),
    ),
  );
}

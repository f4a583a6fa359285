/**
 * The wire's messages and limits (docs/ARCHITECTURE.md, "The wire"): a router's pipelined,
 * multiplexed connection to a node, opened by an HTTP Upgrade on the node's own port and then
 * spoken in replication's frames (a 4-byte length, then MessagePack). It says what travels,
 * not who sends it: the node's side is server/wire.ts, the router's connection.ts and pool.ts.
 */

import { dbError } from '../errors/index.js';

/** The Upgrade token of the wire, and the protocol's version. */
export const WIRE_PROTOCOL = 'docdb-wire/1';

/** The path a router asks to upgrade. */
export const WIRE_PATH = '/wire';

/** The 101 answer's header that says the node's request body limit (its bodyBytesMax). */
export const WIRE_BODY_BYTES_HEADER = 'x-docdb-wire-body-bytes-max';

/**
 * Bytes a request frame may take beyond its arguments' JSON (the id, the op, MessagePack's
 * headers): a node refuses a frame longer than its body limit and this.
 */
export const WIRE_ENVELOPE_BYTES = 1024;

/**
 * The most bytes of JSON one answer frame carries: a longer answer goes in parts of its UTF-8
 * bytes, so one large answer neither needs one large frame nor holds up for long the answers
 * behind it.
 */
export const WIRE_ANSWER_PART_BYTES = 256 * 1024;

/** The largest frame a router takes from a node: an answer part and its envelope. */
export const WIRE_ANSWER_FRAME_BYTES_MAX = WIRE_ANSWER_PART_BYTES + WIRE_ENVELOPE_BYTES;

/**
 * Requests a node works on at once per connection: past it, it reads no more frames from that
 * connection until an answer goes out (TCP then holds the router back).
 */
export const WIRE_IN_FLIGHT_MAX = 256;

/**
 * What a router may ask over the wire, each as the REST route that answers it (for the node's
 * metrics, and for what the answer must equal): `read` calls are tried again after a lost
 * connection, as the client tries a GET again. Health, stats, admin, replication, list and the
 * streams (query NDJSON, the change feed) stay on HTTP: they are rare or long, and the wire
 * gains nothing there.
 */
export const WIRE_OPS = {
  query: {
    method: 'POST',
    route: '/query',
    status: 200,
    read: false,
    args: ['string', 'array', 'object'],
  },
  getTagged: {
    method: 'GET',
    route: '/collections/:name/:id',
    status: 200,
    read: true,
    args: ['string', 'string'],
  },
  getByKey: {
    method: 'GET',
    route: '/collections/:name/by/:field/:value',
    status: 200,
    read: true,
    args: ['string', 'string', 'string'],
  },
  collections: { method: 'GET', route: '/collections', status: 200, read: true, args: [] },
  insert: {
    method: 'POST',
    route: '/collections/:name',
    status: 201,
    read: false,
    args: ['string', 'any'],
  },
  bulk: {
    method: 'POST',
    route: '/collections/:name/bulk',
    status: 200,
    read: false,
    args: ['string', 'array', 'object'],
  },
  replace: {
    method: 'PUT',
    route: '/collections/:name/:id',
    status: 200,
    read: false,
    args: ['string', 'string', 'any', 'object'],
  },
  replaceByKey: {
    method: 'PUT',
    route: '/collections/:name/by/:field/:value',
    status: 200,
    read: false,
    args: ['string', 'string', 'string', 'any', 'object'],
  },
  delete: {
    method: 'DELETE',
    route: '/collections/:name/:id',
    status: 200,
    read: false,
    args: ['string', 'string', 'object'],
  },
  deleteByKey: {
    method: 'DELETE',
    route: '/collections/:name/by/:field/:value',
    status: 200,
    read: false,
    args: ['string', 'string', 'string'],
  },
} as const satisfies Record<string, WireOpSpec>;

/** One operation of the wire. */
export interface WireOpSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  route: string;
  /** The HTTP status of its success, as the route answers it. */
  status: number;
  read: boolean;
  /** Each argument's JSON type; the router always sends all of them. */
  args: readonly ArgKind[];
}

type ArgKind = 'string' | 'array' | 'object' | 'any';

export type WireOp = keyof typeof WIRE_OPS;

/** A router's request: its id (unique among the connection's open requests), op and arguments. */
export interface WireRequest {
  i: number;
  op: WireOp;
  /** The arguments as one JSON array: exactly the values an HTTP body would carry. */
  a: string;
}

/**
 * A node's answer to request `i`: the answer's JSON text (`j`, absent for "none", e.g. no
 * document with that `_id`); or, for a long one, its UTF-8 bytes in parts (`b`, with `more`
 * on every part but the last); or an error (`e`: the HTTP status; `j`: the error body, as the
 * REST route's). Id 0 is the connection's: an error that closes it. A `query` asked with
 * `rows: 'json'` in its options may be answered with its rows apart (`r`, each row's JSON
 * text, with `j` the answer whose `documents` is empty), so the router splices the rows into
 * its own answer without parsing them (WIRE_ROWS_CHARS_MAX).
 */
export interface WireAnswer {
  i: number;
  j?: string;
  r?: string[];
  b?: Uint8Array;
  more?: true;
  e?: number;
}

/**
 * The most characters a `query` answer with its rows apart (`r`) may hold, the answer's JSON
 * and its rows together, counted as three bytes each: it fits one frame. A longer answer
 * goes as JSON text in parts.
 */
export const WIRE_ROWS_CHARS_MAX = Math.floor(WIRE_ANSWER_PART_BYTES / 3);

/**
 * What a call over the wire answers: the answer's JSON text (undefined for "none"), or a
 * `query`'s answer with its rows apart (`json` with `documents` empty, `rows` their JSON text).
 */
export type WireReply = string | undefined | { json: string; rows: string[] };

/**
 * The request in `message`, checked: its op known and its arguments of the op's types. Throws
 * ERR_BAD_REQUEST naming what is wrong; `idOf` says which request to answer with it.
 */
export function parseRequest(message: unknown): { request: WireRequest; args: unknown[] } {
  const m = message as Partial<WireRequest>;
  if (typeof m.op !== 'string') throw badField('op');
  if (typeof m.a !== 'string') throw badField('a');
  if (!Object.hasOwn(WIRE_OPS, m.op)) {
    throw dbError('ERR_BAD_REQUEST', 'wireOp', {
      protocol: WIRE_PROTOCOL,
      op: m.op,
      ops: Object.keys(WIRE_OPS).join(', '),
    });
  }
  const op = m.op as WireOp;
  let args: unknown;
  try {
    args = JSON.parse(m.a);
  } catch (error) {
    throw dbError('ERR_BAD_REQUEST', 'bodyNotJson', { cause: (error as Error).message });
  }
  if (!Array.isArray(args)) throw badField('a');
  const kinds: readonly ArgKind[] = WIRE_OPS[op].args;
  kinds.forEach((kind, k) => {
    if (!isKind(args[k], kind)) {
      throw dbError('ERR_BAD_REQUEST', 'wireArgument', {
        protocol: WIRE_PROTOCOL,
        op,
        position: k + 1,
        wanted: kind === 'array' ? 'an array' : `a${kind === 'object' ? 'n' : ''} ${kind}`,
      });
    }
  });
  return { request: m as WireRequest, args };
}

/** The id of a request message, or undefined when it has none that could be answered. */
export function idOf(message: unknown): number | undefined {
  const i = (message as { i?: unknown } | null)?.i;
  return Number.isSafeInteger(i) && (i as number) > 0 ? (i as number) : undefined;
}

function badField(key: string) {
  return dbError('ERR_BAD_REQUEST', 'wireMessage', { protocol: WIRE_PROTOCOL, key });
}

function isKind(value: unknown, kind: ArgKind): boolean {
  switch (kind) {
    case 'any':
      return value !== undefined;
    case 'string':
      return typeof value === 'string';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    default: {
      const never: never = kind;
      return never;
    }
  }
}

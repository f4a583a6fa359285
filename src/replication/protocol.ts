/**
 * The replication protocol, version 1: the messages a follower and a leader exchange over
 * frames (frames.ts), and the check every received message passes before anything reads
 * it. A message that breaks the protocol is an error naming what is wrong, never a guess.
 *
 * A session, follower (F) and leader (L):
 *
 *   F → L  hello      protocol, node, seq (last applied), lastTerm (that entry's term), term,
 *                     nonce, resync?
 *   L → F  challenge  protocol, node, term, nonce, secret (whether L enforces one)
 *   F → L  auth       proof? = HMAC-SHA256(secret, "follower" + L's nonce)
 *   L → F  welcome    node, term, lastSeq, proof? (HMAC over F's nonce), catchUp, httpUrl?,
 *                     rollbackAfter?
 *      or  refused    code, reason — then L closes
 *   L → F  snapshot … documents … snapshotEnd   (when catchUp is "snapshot")
 *   L → F  entries    portable change-log entries in seq order, pushed as they commit
 *   L → F  heartbeat  every second: L's last seq and term
 *   F → L  ack        the last seq F applied (durably)
 *   F → L  resend     after: F saw a gap and asks again from after + 1
 */

import { DbError } from '../errors/index.js';

/** The protocol version this build speaks; a hello of another is refused with a reason. */
export const PROTOCOL_VERSION = 1;

export type CatchUp = 'log' | 'snapshot';

export interface SnapshotIndexDef {
  name: string;
  paths: string[];
  unique: boolean;
  state: 'ready' | 'stale';
}

export type Message =
  | {
      t: 'hello';
      protocol: number;
      node: string;
      seq: number;
      lastTerm: number;
      term: number;
      nonce: Uint8Array;
      /** The follower's data cannot continue from its log (a load was cut short): send a snapshot. */
      resync?: boolean;
    }
  | {
      t: 'challenge';
      protocol: number;
      node: string;
      term: number;
      nonce: Uint8Array;
      secret: boolean;
    }
  | { t: 'auth'; proof?: Uint8Array }
  | {
      t: 'welcome';
      node: string;
      term: number;
      lastSeq: number;
      proof?: Uint8Array;
      catchUp: CatchUp;
      /** Where clients send writes: the leader's HTTP address, when it has one. */
      httpUrl?: string;
      /** The follower's entries after this seq are not the leader's: roll them back. */
      rollbackAfter?: number;
    }
  | { t: 'refused'; code: string; reason: string }
  | { t: 'entries'; entries: Uint8Array[] }
  | {
      t: 'snapshot';
      seq: number;
      term: number;
      /** The term of the leader's entry at `seq`: the follower's lastTerm once loaded. */
      lastTerm: number;
      collections: Array<{ name: string; indexes: SnapshotIndexDef[] }>;
    }
  | { t: 'documents'; collection: string; documents: Array<{ id: string; doc: unknown }> }
  | { t: 'snapshotEnd'; seq: number }
  | { t: 'heartbeat'; seq: number; term: number; atMs: number }
  | { t: 'ack'; seq: number }
  | { t: 'resend'; after: number };

export type MessageType = Message['t'];

type Check = (value: unknown) => boolean;

const seq: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const text: Check = (v) => typeof v === 'string' && v.length > 0 && v.length <= 1024;
const bytes: Check = (v) => v instanceof Uint8Array && v.length <= 1024;
const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined || check(v);
const arrayOf =
  (check: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(check);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const shape =
  (fields: Record<string, Check>): Check =>
  (v) =>
    isObject(v) && Object.entries(fields).every(([key, check]) => check(v[key]));

const indexDef = shape({
  name: text,
  paths: arrayOf(text),
  unique: (v) => typeof v === 'boolean',
  state: (v) => v === 'ready' || v === 'stale',
});

/** The fields each message must have, by type. */
const FIELDS: Record<MessageType, Record<string, Check>> = {
  hello: {
    protocol: seq,
    node: text,
    seq,
    lastTerm: seq,
    term: seq,
    nonce: bytes,
    resync: optional((v) => typeof v === 'boolean'),
  },
  challenge: {
    protocol: seq,
    node: text,
    term: seq,
    nonce: bytes,
    secret: (v) => typeof v === 'boolean',
  },
  auth: { proof: optional(bytes) },
  welcome: {
    node: text,
    term: seq,
    lastSeq: seq,
    proof: optional(bytes),
    catchUp: (v) => v === 'log' || v === 'snapshot',
    httpUrl: optional(text),
    rollbackAfter: optional(seq),
  },
  refused: { code: text, reason: (v) => typeof v === 'string' },
  entries: { entries: arrayOf((v) => v instanceof Uint8Array) },
  snapshot: {
    seq,
    term: seq,
    lastTerm: seq,
    collections: arrayOf(shape({ name: text, indexes: arrayOf(indexDef) })),
  },
  documents: {
    collection: text,
    documents: arrayOf(shape({ id: text, doc: isObject })),
  },
  snapshotEnd: { seq },
  heartbeat: { seq, term: seq, atMs: seq },
  ack: { seq },
  resend: { after: seq },
};

function protocolError(message: string): DbError {
  return new DbError('ERR_REPLICATION_PROTOCOL', message);
}

/**
 * Checks a decoded frame and answers it as a message. `expected` limits the types accepted
 * at this point of the session (a follower's first message must be a hello).
 */
export function parseMessage(value: unknown, expected?: readonly MessageType[]): Message {
  if (!isObject(value) || typeof value.t !== 'string' || !Object.hasOwn(FIELDS, value.t)) {
    throw protocolError('a replication message has no known type (t)');
  }
  const type = value.t as MessageType;
  if (expected && !expected.includes(type)) {
    throw protocolError(
      `a replication message of type ${type} came where ${expected.join(' or ')} was expected`,
    );
  }
  for (const [key, check] of Object.entries(FIELDS[type])) {
    if (!check(value[key])) {
      throw protocolError(`the replication message ${type} has a missing or bad field ${key}`);
    }
  }
  return value as unknown as Message;
}

/** A message of one type, for code that has checked the type. */
export type MessageOf<T extends MessageType> = Extract<Message, { t: T }>;

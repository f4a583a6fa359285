/**
 * The replication protocol, version 3: the messages a follower and a leader exchange over
 * frames (frames.ts), and the check every received message passes before anything reads
 * it. A message that breaks the protocol is an error naming what is wrong, never a guess.
 *
 * A session, follower (F) and leader (L):
 *
 *   F → L  hello      protocol, node, seq (last applied), lastChain? (that entry's hash-chain
 *                     link), runs (its term history), term, tag
 *                     (its term tag), silenceMs (its auto-failover silence, 0 when off),
 *                     nonce, resync?
 *   L → F  challenge  protocol, node, term, tag, nonce, secret (whether L enforces one)
 *   F → L  auth       proof? = HMAC-SHA256(secret, "follower" + L's nonce)
 *   L → F  probe      seqs: L asks for F's links there, to find where their logs part
 *   F → L  chains     samples: F's link at each seq asked (absent where it holds none)
 *   L → F  welcome    node, term, lastSeq, proof? (HMAC over F's nonce), catchUp, httpUrl?,
 *                     rollbackAfter?, tagTaken? (F draws another term tag)
 *      or  refused    code, reason — then L closes
 *   L → F  snapshot … documents … snapshotEnd   (when catchUp is "snapshot")
 *   L → F  structures from, structures: L's shared document structures from id `from` on,
 *                     before the first entries that need them (all of them first, then each
 *                     one L adds): what its entries' documents are read with
 *   L → F  entries    change-log entries in seq order, pushed as they commit: the very bytes
 *                     L's log stores (change-entry.ts), which F reads with L's structures and,
 *                     when its own structures are the first of L's, stores as they came
 *   L → F  heartbeat  every second, or more often for a follower with a short silence: L's
 *                     last seq and term, stampMs (L's own clock), held (L holds F's lease)
 *   F → L  ack        the last seq F applied (durably), F's silenceMs, and the stampMs of the
 *                     last heartbeat F received (echoMs): what L's lease is measured from
 *   F → L  resend     after: F saw a gap and asks again from after + 1
 *
 * A notice is a session of its own: a node promoted over another (N) connects to N's
 * listener and says hello with `notice` set (its advertised replication address, HTTP
 * address and silence); after the same challenge and proofs, N answers `noticed` with its
 * own term, fenced when N's term was the older, and its proof. A hello of another protocol
 * version is refused with a reason naming both versions before anything else of it is read.
 *
 * Version 3 (issue 22) made `entries` the stored bytes and added `structures`; version 2 sent
 * entries decoded and encoded again in a form any reader could read, at 7.5% of a leader's
 * time in a bulk load.
 */

import { dbError } from '../errors/index.js';
import type { SnapshotIndex, TermRun } from '../types/index.js';
import { SHARED_STRUCTURES_MAX } from '../util/index.js';
import { PROBE_SEQS_MAX } from './fork.js';
import { TERM_TAGS } from './terms.js';

/** Runs a hello or snapshot may carry (TERM_RUNS_MAX, with room). */
const RUNS_MAX = 100_000;

/** The protocol version this build speaks; a hello of another is refused with a reason. */
export const PROTOCOL_VERSION = 3;

export type CatchUp = 'log' | 'snapshot';

/** What a promoted node tells the node it replaced (see the notice above). */
export interface Notice {
  /** Where the sender's replication listener is reached (`host:port`), when it says. */
  address?: string;
  /** The sender's replication port, for a receiver that must work the address out. */
  port: number;
  /** The sender's HTTP address, for the receiver's 503s. */
  httpUrl?: string;
  /** The sender's auto-failover silence as a follower (0: none), for a receiver that rejoins. */
  silenceMs: number;
}

export type Message =
  | {
      t: 'hello';
      protocol: number;
      node: string;
      seq: number;
      /** The hash-chain link of the entry at `seq`, when it has one. */
      lastChain?: string;
      /** The sender's term history. */
      runs: TermRun[];
      term: number;
      tag: number;
      /** The follower's auto-failover silence in ms; 0 when it does not watch. */
      silenceMs: number;
      nonce: Uint8Array;
      /** The follower's data cannot continue from its log (a load was cut short): send a snapshot. */
      resync?: boolean;
      /** Set when the sender does not follow but tells of its term (a promoted node). */
      notice?: Notice;
    }
  | {
      t: 'challenge';
      protocol: number;
      node: string;
      term: number;
      tag: number;
      nonce: Uint8Array;
      secret: boolean;
    }
  | { t: 'auth'; proof?: Uint8Array }
  | { t: 'probe'; seqs: number[] }
  | { t: 'chains'; samples: Array<{ seq: number; chain?: string }> }
  | {
      t: 'noticed';
      /** The receiver's term once it took the notice. */
      term: number;
      /** True when the receiver's term was older: it stopped taking writes. */
      fenced: boolean;
      /** HMAC over the sender's nonce, when the receiver enforces a secret. */
      proof?: Uint8Array;
    }
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
      /** The follower's term tag is the leader's or another follower's: it draws another. */
      tagTaken?: boolean;
    }
  | { t: 'refused'; code: string; reason: string }
  | {
      t: 'structures';
      /** The id of the first structure sent: the follower knows those before it. */
      from: number;
      /** The leader's shared document structures (key lists) from `from` on, in id order. */
      structures: string[][];
    }
  | { t: 'entries'; entries: Uint8Array[] }
  | {
      t: 'snapshot';
      seq: number;
      term: number;
      /** The term of the leader's entry at `seq`: the follower's lastTerm once loaded. */
      lastTerm: number;
      /** The link of the leader's entry at `seq`, when it has one. */
      lastChain?: string;
      /** The leader's term history up to `seq`. */
      runs: TermRun[];
      collections: Array<{ name: string; indexes: SnapshotIndex[] }>;
    }
  | { t: 'documents'; collection: string; documents: Array<{ id: string; doc: unknown }> }
  | { t: 'snapshotEnd'; seq: number }
  | {
      t: 'heartbeat';
      seq: number;
      term: number;
      atMs: number;
      /** The leader's clock (performance.now, ms): acks echo it (the lease). */
      stampMs: number;
      /** True when the leader holds this follower's lease: its watch may promote it. */
      held: boolean;
    }
  | { t: 'ack'; seq: number; silenceMs: number; echoMs?: number }
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

const tag: Check = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < TERM_TAGS;
const chain: Check = (v) => typeof v === 'string' && /^[0-9a-f]{32}$/.test(v);
const run = shape({ term: seq, from: seq });
const runs: Check = (v) => Array.isArray(v) && v.length <= RUNS_MAX && v.every(run);
const seqs =
  (max: number): Check =>
  (v) =>
    Array.isArray(v) && v.length <= max && v.every(seq);
const notice = shape({
  address: optional(text),
  port: seq,
  httpUrl: optional(text),
  silenceMs: seq,
});

const indexDef = shape({
  name: text,
  paths: arrayOf(text),
  unique: (v) => typeof v === 'boolean',
  state: (v) => v === 'ready' || v === 'stale',
});

/** The fields each message must have, by type. */
const FIELDS: Record<MessageType, Record<string, Check>> = {
  // A hello's fields of version 3 are read once its protocol is known to be 3 (checkHello):
  // a follower of another version is refused with a reason, not a protocol error.
  hello: { protocol: seq, node: text },
  challenge: {
    protocol: seq,
    node: text,
    term: seq,
    tag,
    nonce: bytes,
    secret: (v) => typeof v === 'boolean',
  },
  auth: { proof: optional(bytes) },
  probe: { seqs: seqs(PROBE_SEQS_MAX) },
  chains: {
    samples: (v) =>
      Array.isArray(v) &&
      v.length <= PROBE_SEQS_MAX &&
      v.every(shape({ seq, chain: optional(chain) })),
  },
  noticed: { term: seq, fenced: (v) => typeof v === 'boolean', proof: optional(bytes) },
  welcome: {
    node: text,
    term: seq,
    lastSeq: seq,
    proof: optional(bytes),
    catchUp: (v) => v === 'log' || v === 'snapshot',
    httpUrl: optional(text),
    rollbackAfter: optional(seq),
    tagTaken: optional((v) => v === true),
  },
  refused: { code: text, reason: (v) => typeof v === 'string' },
  structures: {
    from: (v) => seq(v) && (v as number) <= SHARED_STRUCTURES_MAX,
    structures: (v) =>
      Array.isArray(v) &&
      v.length <= SHARED_STRUCTURES_MAX &&
      v.every(arrayOf((key) => typeof key === 'string')),
  },
  entries: { entries: arrayOf((v) => v instanceof Uint8Array) },
  snapshot: {
    seq,
    term: seq,
    lastTerm: seq,
    lastChain: optional(chain),
    runs,
    collections: arrayOf(shape({ name: text, indexes: arrayOf(indexDef) })),
  },
  documents: {
    collection: text,
    documents: arrayOf(shape({ id: text, doc: isObject })),
  },
  snapshotEnd: { seq },
  heartbeat: { seq, term: seq, atMs: seq, stampMs: seq, held: (v) => typeof v === 'boolean' },
  ack: { seq, silenceMs: seq, echoMs: optional(seq) },
  resend: { after: seq },
};

/**
 * Checks a decoded frame and answers it as a message. `expected` limits the types accepted
 * at this point of the session (a follower's first message must be a hello).
 */
export function parseMessage(value: unknown, expected?: readonly MessageType[]): Message {
  if (!isObject(value) || typeof value.t !== 'string' || !Object.hasOwn(FIELDS, value.t)) {
    throw dbError('ERR_REPLICATION_PROTOCOL', 'noType');
  }
  const type = value.t as MessageType;
  if (expected && !expected.includes(type)) {
    throw dbError('ERR_REPLICATION_PROTOCOL', 'unexpectedType', {
      type,
      expected: expected.join(' or '),
    });
  }
  for (const [key, check] of Object.entries(FIELDS[type])) {
    if (!check(value[key])) {
      throw dbError('ERR_REPLICATION_PROTOCOL', 'badField', { type, key });
    }
  }
  return value as unknown as Message;
}

/** The fields of a version-3 hello, checked once its protocol is known to be this one's. */
const HELLO_FIELDS: Record<string, Check> = {
  seq,
  lastChain: optional(chain),
  runs,
  term: seq,
  tag,
  silenceMs: seq,
  nonce: bytes,
  resync: optional((v) => typeof v === 'boolean'),
  notice: optional(notice),
};

/** Checks the fields of a hello of this protocol version (see FIELDS.hello). */
export function checkHello(hello: MessageOf<'hello'>): MessageOf<'hello'> {
  const fields = hello as unknown as Record<string, unknown>;
  for (const [key, check] of Object.entries(HELLO_FIELDS)) {
    if (!check(fields[key])) {
      throw dbError('ERR_REPLICATION_PROTOCOL', 'badHelloField', { key });
    }
  }
  return hello;
}

/** A message of one type, for code that has checked the type. */
export type MessageOf<T extends MessageType> = Extract<Message, { t: T }>;

/**
 * The etcd keys of a replica set and the records stored under them: `/docdb/<set>/leader`
 * (the lease holder), `/docdb/<set>/handover` (whom a resigning leader named) and
 * `/docdb/<set>/members/<name>` (each member's position). Layout, names, the leader's term
 * from its key's revision, and reading records back; no etcd calls.
 */

import { dbError } from '../errors/index.js';
import { TERM_ROUND_MAX, TERM_TAGS } from '../util/index.js';
import type { StoredKey } from './etcd-client.js';

/** Every key docdb writes in etcd starts with this. */
export const KEY_ROOT = '/docdb/';

/** Replica set and member names: they are parts of etcd keys. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The keys of one replica set. */
export interface SetKeys {
  leader: string;
  handover: string;
  /** The prefix of every member's record. */
  members: string;
  member(name: string): string;
}

/** What a member tells the others about itself: who it is and how to reach it. */
export interface MemberIdentity {
  /** Its name, unique in the set (the node's name). */
  name: string;
  /** Its HTTP API, for the router and tools: `http://host:port`. */
  url: string;
  /** Its replication listener, for followers: `host:port`. */
  replication: string;
  /** Its term tag (replication's terms.ts), the low part of the terms it makes. */
  tag: number;
}

/** A member's published record: its identity and replication position. */
export interface MemberRecord extends MemberIdentity {
  term: number;
  seq: number;
}

/** The leader of a replica set, as the leader key says. */
export interface LeaderInfo extends MemberIdentity {
  set: string;
  /** Its term: the leader key's create revision × TERM_TAGS + its tag (see termOfRevision). */
  term: number;
  /** The revision of the put that made it leader. */
  revision: number;
}

/** Who a resigning leader handed over to. */
export interface HandoverRecord {
  to: string;
  from: string;
}

/** Throws ERR_BAD_ARGUMENT unless `name` can be a set or member name. */
export function checkName(what: 'replica set' | 'member', name: string): void {
  if (!NAME.test(name)) {
    throw dbError('ERR_BAD_ARGUMENT', 'coordinatorName', { what, name: JSON.stringify(name) });
  }
}

/** Throws ERR_BAD_ARGUMENT unless `identity` can be published: a name, addresses, a tag. */
export function checkIdentity(identity: MemberIdentity): void {
  checkName('member', identity.name);
  for (const field of ['url', 'replication'] as const) {
    if (typeof identity[field] !== 'string' || identity[field] === '') {
      throw dbError('ERR_BAD_ARGUMENT', 'memberAddress', { name: identity.name, field });
    }
  }
  checkTag(identity.tag);
}

function checkTag(tag: number): void {
  if (!Number.isSafeInteger(tag) || tag < 0 || tag >= TERM_TAGS) {
    throw dbError('ERR_BAD_ARGUMENT', 'termTagTooLarge', { limit: TERM_TAGS, tag });
  }
}

/** The keys of replica set `set`. */
export function setKeys(set: string): SetKeys {
  checkName('replica set', set);
  const base = `${KEY_ROOT}${set}/`;
  return {
    leader: `${base}leader`,
    handover: `${base}handover`,
    members: `${base}members/`,
    member: (name) => {
      checkName('member', name);
      return `${base}members/${name}`;
    },
  };
}

/**
 * The term of a leader elected by the etcd put at `revision`: round = the revision, tag = the
 * node's. etcd's revision grows with every write to the etcd cluster, so each election's put
 * has a higher revision than any before it: terms strictly increase across elections, and a
 * later election outranks every term an earlier leader made. Throws ERR_REPLICATION_STATE past
 * TERM_ROUND_MAX revisions (about 537 million writes to the etcd cluster).
 */
export function termOfRevision(revision: number, tag: number): number {
  if (!Number.isSafeInteger(revision) || revision < 1 || revision > TERM_ROUND_MAX) {
    throw dbError('ERR_REPLICATION_STATE', 'etcdRevisionTooLarge', {
      revision,
      limit: TERM_ROUND_MAX,
    });
  }
  checkTag(tag);
  return revision * TERM_TAGS + tag;
}

/** The leader key's value: the identity; the term comes from the key's revision. */
export function leaderValue(identity: MemberIdentity): string {
  const { name, url, replication, tag } = identity;
  return JSON.stringify({ name, url, replication, tag });
}

/** The leader a stored leader key names, or undefined for a value docdb did not write. */
export function readLeader(set: string, stored: StoredKey): LeaderInfo | undefined {
  const identity = readIdentity(parse(stored.value));
  if (identity === undefined) return undefined;
  return {
    ...identity,
    set,
    term: termOfRevision(stored.createRevision, identity.tag),
    revision: stored.createRevision,
  };
}

/** A member record from its stored value, or undefined for a value docdb did not write. */
export function readMember(stored: StoredKey): MemberRecord | undefined {
  const value = parse(stored.value);
  const identity = readIdentity(value);
  if (identity === undefined || value === undefined) return undefined;
  const { term, seq } = value;
  if (!Number.isSafeInteger(term) || !Number.isSafeInteger(seq)) return undefined;
  return { ...identity, term: term as number, seq: seq as number };
}

/** A handover record from its stored value, or undefined for a value docdb did not write. */
export function readHandover(stored: StoredKey | undefined): HandoverRecord | undefined {
  const value = stored && parse(stored.value);
  if (typeof value?.to !== 'string' || typeof value.from !== 'string') return undefined;
  return { to: value.to, from: value.from };
}

function readIdentity(value: Record<string, unknown> | undefined): MemberIdentity | undefined {
  if (value === undefined) return undefined;
  const { name, url, replication, tag } = value;
  if (typeof name !== 'string' || typeof url !== 'string' || typeof replication !== 'string') {
    return undefined;
  }
  if (!Number.isSafeInteger(tag)) return undefined;
  return { name, url, replication, tag: tag as number };
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

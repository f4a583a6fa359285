/**
 * cluster.json, the one topology format of DESIGN §7: its shape and its validation (errors
 * naming the field), which every read and every edit goes through. config-file.ts reads and
 * writes the file; config-edits.ts holds the pure edits `docdb cluster` makes. None of them
 * talks to a shard or imports storage or the engine.
 */

import { dbError, type ErrorDetails, isDbError } from '../errors/index.js';
import {
  CLUSTER_SHARDS_MAX,
  COLLECTIONS_MAX,
  isPort,
  normalizeCollectionName,
  PORT_RANGE_TEXT,
  parsePath,
  ROUTER_PORT_DEFAULT,
  SHARD_NAME_CHARS_MAX,
} from '../util/index.js';

/** The cluster.json format version this build reads and writes. */
export const CLUSTER_CONFIG_VERSION = 1;

/**
 * One shard, by name: an ordinary docdb node (`endpoint`), or a replica set of nodes
 * (`members`: a leader and its followers, in any order; the router finds the leader), with
 * the API key they run with if they have one. A shard has exactly one of the two.
 */
export interface ClusterShard {
  /** `[A-Za-z0-9._-]`, 1 to SHARD_NAME_CHARS_MAX characters; unique without letter case. */
  name: string;
  /** The node's base URL: `http(s)://host:port`, no path, query or credentials. */
  endpoint?: string;
  /** A replica set's nodes, each a base URL as `endpoint` is; 1 to REPLICA_SET_MEMBERS_MAX. */
  members?: string[];
  /** Sent as `Authorization: Bearer <apiKey>`; never printed. */
  apiKey?: string;
}

/** The most members a replica-set shard may list. */
export const REPLICA_SET_MEMBERS_MAX = 9;

/** The base URLs of a shard's nodes: its one endpoint, or its replica set's members. */
export function shardMembers(shard: ClusterShard): readonly string[] {
  return shard.members ?? (shard.endpoint === undefined ? [] : [shard.endpoint]);
}

/** A shard as messages name it: `s1 (http://h:5001)` or `s1 (http://h:5001, http://h:5002)`. */
export function describeShard(shard: ClusterShard): string {
  return `${shard.name} (${shardMembers(shard).join(', ')})`;
}

/** Where a collection's documents live: on the owner of a shard-key value, or on every shard. */
export type CollectionPlacement = { strategy: 'hash'; path: string } | { strategy: 'replicated' };

/** A validated cluster.json. Collection names are in their canonical lowercase form. */
export interface ClusterConfig {
  version: typeof CLUSTER_CONFIG_VERSION;
  router: { port: number };
  shards: ClusterShard[];
  collections: Record<string, CollectionPlacement>;
}

/**
 * The placement cluster.json gives a collection (canonical name), or undefined: its own
 * entries only, so `constructor` or `toString` is not found on Object.prototype.
 */
export function placementOf(config: ClusterConfig, name: string): CollectionPlacement | undefined {
  return Object.hasOwn(config.collections, name) ? config.collections[name] : undefined;
}

const SHARD_NAME = new RegExp(`^[A-Za-z0-9._-]{1,${SHARD_NAME_CHARS_MAX}}$`);
const ROOT_KEYS = ['version', 'router', 'shards', 'collections'];
const SHARD_KEYS = ['name', 'endpoint', 'members', 'apiKey'];
// A control character in a header value makes the HTTP client throw at request time.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Where a config came from, for messages: its file, or "cluster config" for a value. */
export type Source = string;

/** Where a problem is, as a message starts: the config (its file), then the field if any. */
export function configAt(source: Source, field: string): string {
  const where = source === '' ? 'cluster config' : `cluster config ${source}`;
  return field === '' ? `${where}: ` : `${where}: ${field}: `;
}

/** The details of a problem at `field` of the config from `source`. */
export function configDetails(source: Source, field: string): ErrorDetails {
  return {
    ...(source === '' ? {} : { file: source }),
    ...(field === '' ? {} : { field }),
  };
}

/** A value as a message shows it: JSON, cut short. */
function shown(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** `collections.orders` or `collections["my-orders"]`: a field name a user can find. */
function memberField(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${parent}.${key}`
    : `${parent}[${JSON.stringify(key)}]`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireObject(source: Source, field: string, value: unknown, keys: string[]) {
  if (!isPlainObject(value)) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notObject',
      { at: configAt(source, field), value: shown(value) },
      configDetails(source, field),
    );
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'unknownField',
        {
          at: configAt(source, memberField(field || '$', key).replace(/^\$\.?/, '')),
          keys: keys.join(', '),
        },
        configDetails(source, memberField(field || '$', key).replace(/^\$\.?/, '')),
      );
    }
  }
  return value;
}

function requirePresent(source: Source, field: string, object: object, key: string): unknown {
  if (!Object.hasOwn(object, key))
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'missing',
      { at: configAt(source, field) },
      configDetails(source, field),
    );
  return (object as Record<string, unknown>)[key];
}

/** Port numbers: integers from 1 to 65535. */
function checkPort(source: Source, field: string, value: unknown): number {
  if (!isPort(value)) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notPort',
      { at: configAt(source, field), value: shown(value), range: PORT_RANGE_TEXT },
      configDetails(source, field),
    );
  }
  return value;
}

function checkShardName(source: Source, field: string, value: unknown): string {
  // A shard's name keys plain objects (`docdb health`'s rows), where __proto__ would not be one.
  if (typeof value !== 'string' || !SHARD_NAME.test(value) || value.toLowerCase() === '__proto__') {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notShardName',
      { at: configAt(source, field), value: shown(value), limit: SHARD_NAME_CHARS_MAX },
      configDetails(source, field),
    );
  }
  return value;
}

/**
 * A shard's endpoint, checked and returned as its origin (`http://host:port`, lowercase host,
 * no trailing slash, default port dropped), so two spellings of one node compare equal.
 */
export function checkEndpoint(source: Source, field: string, value: unknown): string {
  const notUrl = () =>
    dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notHttpUrl',
      { at: configAt(source, field), value: shown(value) },
      configDetails(source, field),
    );
  if (typeof value !== 'string') throw notUrl();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw notUrl();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw notUrl();
  if (url.port === '0')
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'portZero',
      { at: configAt(source, field), value: shown(value) },
      configDetails(source, field),
    );
  if (url.username !== '' || url.password !== '') {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'credentials',
      { at: configAt(source, field) },
      configDetails(source, field),
    );
  }
  if (url.pathname !== '/' || /[?#]/.test(value)) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'urlPath',
      { at: configAt(source, field), value: shown(value), origin: url.origin },
      configDetails(source, field),
    );
  }
  return url.origin;
}

function checkApiKey(source: Source, field: string, value: unknown): string {
  // The value is a secret: messages say what is wrong without showing it.
  if (typeof value !== 'string' || value.length === 0) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'emptyString',
      { at: configAt(source, field) },
      configDetails(source, field),
    );
  }
  if (CONTROL_CHARS.test(value))
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'controlCharacter',
      { at: configAt(source, field) },
      configDetails(source, field),
    );
  return value;
}

function checkMembers(source: Source, field: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notMemberList',
      { at: configAt(source, field), value: shown(value) },
      configDetails(source, field),
    );
  }
  if (value.length > REPLICA_SET_MEMBERS_MAX) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'tooManyMembers',
      { at: configAt(source, field), count: value.length, limit: REPLICA_SET_MEMBERS_MAX },
      configDetails(source, field),
    );
  }
  const members: string[] = [];
  for (const [i, raw] of value.entries()) {
    const member = checkEndpoint(source, `${field}[${i}]`, raw);
    const same = members.indexOf(member);
    if (same >= 0)
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'sameMember',
        { at: configAt(source, `${field}[${i}]`), member, field, same },
        configDetails(source, `${field}[${i}]`),
      );
    members.push(member);
  }
  return members;
}

function checkShard(source: Source, field: string, value: unknown): ClusterShard {
  const raw = requireObject(source, field, value, SHARD_KEYS);
  const name = checkShardName(
    source,
    `${field}.name`,
    requirePresent(source, `${field}.name`, raw, 'name'),
  );
  const shard: ClusterShard = { name };
  if (Object.hasOwn(raw, 'members')) {
    if (Object.hasOwn(raw, 'endpoint')) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'endpointAndMembers',
        { at: configAt(source, field) },
        configDetails(source, field),
      );
    }
    shard.members = checkMembers(source, `${field}.members`, raw.members);
  } else {
    shard.endpoint = checkEndpoint(
      source,
      `${field}.endpoint`,
      requirePresent(source, `${field}.endpoint`, raw, 'endpoint'),
    );
  }
  if (Object.hasOwn(raw, 'apiKey'))
    shard.apiKey = checkApiKey(source, `${field}.apiKey`, raw.apiKey);
  return shard;
}

/** Where `shards[i]` lists `url`: `shards[1].endpoint` or `shards[1].members[2]`. */
function urlField(shards: readonly ClusterShard[], i: number, url: string): string {
  const shard = shards[i] as ClusterShard;
  return shard.members === undefined
    ? `shards[${i}].endpoint`
    : `shards[${i}].members[${shard.members.indexOf(url)}]`;
}

function checkShards(source: Source, value: unknown): ClusterShard[] {
  if (!Array.isArray(value))
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notArray',
      { at: configAt(source, 'shards'), value: shown(value) },
      configDetails(source, 'shards'),
    );
  if (value.length > CLUSTER_SHARDS_MAX) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'tooManyShards',
      { at: configAt(source, 'shards'), count: value.length, limit: CLUSTER_SHARDS_MAX },
      configDetails(source, 'shards'),
    );
  }
  const shards: ClusterShard[] = [];
  for (const [i, raw] of value.entries()) {
    const shard = checkShard(source, `shards[${i}]`, raw);
    const sameName = shards.findIndex((s) => s.name.toLowerCase() === shard.name.toLowerCase());
    if (sameName >= 0) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'sameName',
        { at: configAt(source, `shards[${i}].name`), name: shown(shard.name), sameName },
        configDetails(source, `shards[${i}].name`),
      );
    }
    shards.push(shard);
    for (const url of shardMembers(shard)) {
      const other = shards.findIndex((s, k) => k < i && shardMembers(s).includes(url));
      if (other >= 0) {
        throw dbError(
          'ERR_CLUSTER_CONFIG_INVALID',
          'nodeInTwoShards',
          {
            at: configAt(source, urlField(shards, i, url)),
            url,
            shards: urlField(shards, other, url),
            name: shards[other]?.name,
          },
          configDetails(source, urlField(shards, i, url)),
        );
      }
    }
  }
  return shards;
}

function checkPlacement(source: Source, field: string, value: unknown): CollectionPlacement {
  const raw = requireObject(source, field, value, ['strategy', 'path']);
  const strategy = requirePresent(source, `${field}.strategy`, raw, 'strategy');
  if (strategy === 'replicated') {
    if (Object.hasOwn(raw, 'path')) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'replicatedWithPath',
        { at: configAt(source, `${field}.path`) },
        configDetails(source, `${field}.path`),
      );
    }
    return { strategy: 'replicated' };
  }
  if (strategy !== 'hash') {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notStrategy',
      { at: configAt(source, `${field}.strategy`), strategy: shown(strategy) },
      configDetails(source, `${field}.strategy`),
    );
  }
  const text = requirePresent(source, `${field}.path`, raw, 'path');
  try {
    return { strategy: 'hash', path: parsePath(text).text };
  } catch (error) {
    if (isDbError(error, 'ERR_PATH_INVALID'))
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'nested',
        { at: configAt(source, `${field}.path`), cause: error.message },
        configDetails(source, `${field}.path`),
      );
    throw error;
  }
}

function checkCollections(source: Source, value: unknown): Record<string, CollectionPlacement> {
  if (!isPlainObject(value)) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notObject',
      { at: configAt(source, 'collections'), value: shown(value) },
      configDetails(source, 'collections'),
    );
  }
  const entries = Object.entries(value);
  if (entries.length > COLLECTIONS_MAX) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'tooManyCollections',
      { at: configAt(source, 'collections'), count: entries.length, limit: COLLECTIONS_MAX },
      configDetails(source, 'collections'),
    );
  }
  const collections: Record<string, CollectionPlacement> = {};
  for (const [key, raw] of entries) {
    const field = memberField('collections', key);
    let name: string;
    try {
      name = normalizeCollectionName(key);
    } catch (error) {
      if (isDbError(error, 'ERR_COLLECTION_NAME_INVALID'))
        throw dbError(
          'ERR_CLUSTER_CONFIG_INVALID',
          'nested',
          { at: configAt(source, field), cause: error.message },
          configDetails(source, field),
        );
      throw error;
    }
    if (Object.hasOwn(collections, name)) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'sameCollection',
        { at: configAt(source, field), name },
        configDetails(source, field),
      );
    }
    collections[name] = checkPlacement(source, field, raw);
  }
  return collections;
}

/**
 * Validates a parsed cluster.json and returns it in canonical form: a fresh object with only
 * the known fields, endpoints as origins, collection names lowercase, paths as parsed. Throws
 * ERR_CLUSTER_CONFIG_INVALID naming the field (`shards[1].endpoint: "ftp://x" is not an
 * http(s) URL`) at the first problem. `source` (a file name) goes into the message.
 */
export function parseClusterConfig(value: unknown, source = ''): ClusterConfig {
  const raw = requireObject(source, '', value, ROOT_KEYS);
  const version = requirePresent(source, 'version', raw, 'version');
  if (version !== CLUSTER_CONFIG_VERSION) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'version',
      {
        at: configAt(source, 'version'),
        version: shown(version),
        versionRead: CLUSTER_CONFIG_VERSION,
      },
      configDetails(source, 'version'),
    );
  }
  const router = requireObject(source, 'router', requirePresent(source, 'router', raw, 'router'), [
    'port',
  ]);
  const port = checkPort(
    source,
    'router.port',
    requirePresent(source, 'router.port', router, 'port'),
  );
  return {
    version: CLUSTER_CONFIG_VERSION,
    router: { port },
    shards: checkShards(source, requirePresent(source, 'shards', raw, 'shards')),
    collections: checkCollections(
      source,
      requirePresent(source, 'collections', raw, 'collections'),
    ),
  };
}

/** A new, empty topology: no shards, no collections, the router on `routerPort`. */
export function newClusterConfig(options: { routerPort?: number } = {}): ClusterConfig {
  const port = checkPort('', 'router.port', options.routerPort ?? ROUTER_PORT_DEFAULT);
  return { version: CLUSTER_CONFIG_VERSION, router: { port }, shards: [], collections: {} };
}

/** `hash on pnr` or `replicated`. */
export function describePlacement(placement: CollectionPlacement): string {
  return placement.strategy === 'hash' ? `hash on ${placement.path}` : 'replicated';
}

/** The config as it may be shown: each API key replaced by `set`, never its value. */
export function redactClusterConfig(config: ClusterConfig): ClusterConfig {
  return {
    ...config,
    shards: config.shards.map((s) => (s.apiKey === undefined ? { ...s } : { ...s, apiKey: 'set' })),
  };
}

/**
 * cluster.json, the one topology format of DESIGN §7: reading it (validated on every read,
 * errors naming the field), writing it atomically, and the pure edits `docdb cluster` makes.
 * It never talks to a shard and never imports storage or the engine.
 */

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { dbError, type ErrorDetails, isDbError, relayedError } from '../errors/index.js';
import {
  CLUSTER_CONFIG_BYTES_MAX,
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

const SHARD_NAME = new RegExp(`^[A-Za-z0-9._-]{1,${SHARD_NAME_CHARS_MAX}}$`);
const ROOT_KEYS = ['version', 'router', 'shards', 'collections'];
const SHARD_KEYS = ['name', 'endpoint', 'members', 'apiKey'];
// A control character in a header value makes the HTTP client throw at request time.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Where a config came from, for messages: its file, or "cluster config" for a value. */
type Source = string;

/** Where a problem is, as a message starts: the config (its file), then the field if any. */
function configAt(source: Source, field: string): string {
  const where = source === '' ? 'cluster config' : `cluster config ${source}`;
  return field === '' ? `${where}: ` : `${where}: ${field}: `;
}

/** The details of a problem at `field` of the config from `source`. */
function configDetails(source: Source, field: string): ErrorDetails {
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
  if (typeof value !== 'string' || !SHARD_NAME.test(value)) {
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
function checkEndpoint(source: Source, field: string, value: unknown): string {
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

/**
 * Reads and validates a cluster.json (every read validates: the file is edited by hand too).
 * A missing file, one larger than CLUSTER_CONFIG_BYTES_MAX, one that is not JSON or one that
 * breaks the format is ERR_CLUSTER_CONFIG_INVALID, with the file and the field in the message.
 */
export async function readClusterConfig(file: string): Promise<ClusterConfig> {
  const source = path.resolve(file);
  let text: string;
  try {
    const stat = await fs.stat(source);
    if (stat.size > CLUSTER_CONFIG_BYTES_MAX) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'tooLarge',
        { at: configAt(source, ''), size: stat.size, limit: CLUSTER_CONFIG_BYTES_MAX },
        configDetails(source, ''),
      );
    }
    text = await fs.readFile(source, 'utf8');
  } catch (error) {
    if (isDbError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'noFile',
        { at: configAt(source, ''), file },
        configDetails(source, ''),
      );
    }
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'unreadable',
      { at: configAt(source, ''), cause: (error as Error).message },
      configDetails(source, ''),
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'notJson',
      { at: configAt(source, ''), cause: (error as Error).message },
      configDetails(source, ''),
    );
  }
  return parseClusterConfig(value, source);
}

/** What `writeClusterConfig` puts in a file: pretty JSON, two spaces, a trailing newline. */
export function formatClusterConfig(config: ClusterConfig): string {
  return `${JSON.stringify(parseClusterConfig(config), null, 2)}\n`;
}

/** File mode of a new cluster.json: it may hold API keys, so only its owner reads it. */
const NEW_FILE_MODE = 0o600;

async function modeFor(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).mode & 0o777;
  } catch {
    return NEW_FILE_MODE;
  }
}

/**
 * Writes a cluster.json atomically: validated first (an invalid config is never written),
 * then a temp file beside it, fsynced, renamed over the target (the directory fsynced after),
 * so a reader sees the old file or the new one, never a torn one. A replaced file keeps its
 * mode; a new one is 0600. `exclusive` refuses to replace an existing file, atomically
 * (link, not rename).
 */
export async function writeClusterConfig(
  file: string,
  config: ClusterConfig,
  options: { exclusive?: boolean } = {},
): Promise<void> {
  const text = formatClusterConfig(config);
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const temp = path.join(
    dir,
    `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  const handle = await fs.open(temp, 'wx', await modeFor(target));
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.exclusive) await linkExclusive(temp, target);
    else await fs.rename(temp, target);
  } finally {
    await fs.rm(temp, { force: true });
  }
  await syncDirectory(dir);
}

async function linkExclusive(temp: string, target: string): Promise<void> {
  try {
    await fs.link(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw dbError('ERR_BAD_ARGUMENT', 'targetExists', { target }, { file: target });
    }
    throw error;
  }
}

/** Makes a rename durable. Some platforms cannot open a directory; the rename still stands. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Best effort: see above.
  } finally {
    await handle?.close();
  }
}

/**
 * The config with one more shard, appended (`docdb cluster add-shard`). A name or endpoint
 * already in the config is refused naming the shard that has it; the new shard is validated
 * as `shards[n]`. `source` names the file in messages.
 */
export function withShard(config: ClusterConfig, shard: ClusterShard, source = ''): ClusterConfig {
  const taken = config.shards.find((s) => s.name.toLowerCase() === shard.name.toLowerCase());
  if (taken !== undefined) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'shardExists',
      { shard: describeShard(taken) },
      { shard: taken.name },
    );
  }
  return parseClusterConfig({ ...config, shards: [...config.shards, shard] }, source);
}

/** The shard of `config` named `name` (letter case aside), or a clear error. */
function shardNamed(config: ClusterConfig, name: string): ClusterShard {
  const shard = config.shards.find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (shard !== undefined) return shard;
  const known = config.shards.map((s) => s.name).join(', ') || 'none yet';
  throw dbError(
    'ERR_CLUSTER_CONFIG_INVALID',
    'noShard',
    { name, known },
    {
      shard: name,
    },
  );
}

/**
 * The config with shard `name`'s nodes as `edit` makes them from its shard and its node
 * `url` (an origin, checked as an endpoint is), validated; the shard is a replica set after.
 */
function withMembersEdited(
  config: ClusterConfig,
  name: string,
  url: string,
  source: string,
  edit: (shard: ClusterShard, url: string) => string[],
): ClusterConfig {
  const shard = shardNamed(config, name);
  const { endpoint: _, ...rest } = shard;
  const changed = { ...rest, members: edit(shard, checkEndpoint(source, 'endpoint', url)) };
  const shards = config.shards.map((s) => (s === shard ? changed : s));
  return parseClusterConfig({ ...config, shards }, source);
}

/**
 * The config with one more member in shard `name`'s replica set (`docdb cluster
 * add-member`); a one-endpoint shard becomes a replica set of its endpoint and the new node.
 */
export function withMember(config: ClusterConfig, name: string, url: string, source = '') {
  return withMembersEdited(config, name, url, source, (shard, member) => {
    const holder = config.shards.find((s) => shardMembers(s).includes(member));
    if (holder !== undefined) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'memberInOtherShard',
        { member, holder: describeShard(holder) },
        { shard: holder.name },
      );
    }
    return [...shardMembers(shard), member];
  });
}

/**
 * The config without `url` in shard `name`'s replica set (`docdb cluster remove-member`): a
 * node gone for good. The last node of a shard stays: its documents live there.
 */
export function withoutMember(config: ClusterConfig, name: string, url: string, source = '') {
  return withMembersEdited(config, name, url, source, (shard, member) => {
    const members = shardMembers(shard);
    if (!members.includes(member)) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'notMember',
        { member, shard: describeShard(shard) },
        { shard: shard.name },
      );
    }
    if (members.length === 1) {
      throw dbError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'onlyMember',
        { member, name: shard.name },
        { shard: shard.name },
      );
    }
    return members.filter((m) => m !== member);
  });
}

/**
 * The config with one more collection (`docdb cluster add-collection`). A collection already
 * in the config is refused naming it and its placement: changing a placement moves documents,
 * which is rebalance's job, not an edit's. `source` names the file in messages.
 */
export function withCollection(
  config: ClusterConfig,
  name: string,
  placement: CollectionPlacement,
  source = '',
): ClusterConfig {
  let canonical: string;
  try {
    canonical = normalizeCollectionName(name);
  } catch (error) {
    if (isDbError(error)) {
      throw relayedError(
        'ERR_CLUSTER_CONFIG_INVALID',
        'recoded',
        { message: error.message },
        { name },
      );
    }
    throw error;
  }
  const existing = config.collections[canonical];
  if (existing !== undefined) {
    throw dbError(
      'ERR_CLUSTER_CONFIG_INVALID',
      'collectionExists',
      { canonical, existing: describePlacement(existing) },
      { collection: canonical },
    );
  }
  return parseClusterConfig(
    {
      ...config,
      collections: { ...config.collections, [canonical]: placement },
    },
    source,
  );
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

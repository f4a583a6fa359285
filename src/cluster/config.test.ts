/**
 * Proves cluster.json's format rules (DESIGN §7): a valid file reads back in canonical form;
 * every broken field is refused with ERR_CLUSTER_CONFIG_INVALID naming it (unknown keys,
 * duplicate shard names and endpoints, bad names, URLs, paths and ports, limits at and one
 * past); writes are atomic, pretty with a trailing newline, never of an invalid config, and
 * an exclusive write does not replace a file; add-shard and add-collection refuse duplicates.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { isDbError } from '../errors/index.js';
import {
  CLUSTER_SHARDS_MAX,
  COLLECTION_NAME_CHARS_MAX,
  COLLECTIONS_MAX,
  SHARD_NAME_CHARS_MAX,
} from '../util/index.js';
import {
  type ClusterConfig,
  type ClusterShard,
  describeShard,
  newClusterConfig,
  parseClusterConfig,
  redactClusterConfig,
  shardMembers,
} from './config.js';
import { withCollection, withShard } from './config-edits.js';
import { readClusterConfig, writeClusterConfig } from './config-file.js';

/** A config being broken on purpose: any field may be set to anything. */
// biome-ignore lint/suspicious/noExplicitAny: the tests reshape fixtures freely.
type Loose = any;

const valid = (): Record<string, unknown> => ({
  version: 1,
  router: { port: 6000 },
  shards: [
    { name: 's1', endpoint: 'http://127.0.0.1:5001' },
    { name: 's2', endpoint: 'https://db2.example.com:5002', apiKey: 'k2' },
  ],
  collections: {
    orders: { strategy: 'hash', path: 'pnr' },
    airports: { strategy: 'replicated' },
  },
});

/** The message of the ERR_CLUSTER_CONFIG_INVALID `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(isDbError(error, 'ERR_CLUSTER_CONFIG_INVALID'), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected ERR_CLUSTER_CONFIG_INVALID, nothing was thrown');
}

function mutated(change: (config: Loose) => void): Record<string, unknown> {
  const config = valid() as Loose;
  change(config);
  return config;
}

describe('parseClusterConfig', () => {
  it('accepts the format of DESIGN §7 and returns it as written', () => {
    expect(parseClusterConfig(valid())).toEqual(valid());
  });

  it('takes a replica set as members, in canonical form, beside one-endpoint shards', () => {
    const config = parseClusterConfig({
      version: 1,
      router: { port: 6000 },
      shards: [
        { name: 's1', members: ['http://H1:5001/', 'http://h2:5001'], apiKey: 'k' },
        { name: 's2', endpoint: 'http://h3:5001' },
      ],
      collections: {},
    });
    expect(config.shards).toEqual([
      { name: 's1', members: ['http://h1:5001', 'http://h2:5001'], apiKey: 'k' },
      { name: 's2', endpoint: 'http://h3:5001' },
    ]);
    expect(shardMembers(config.shards[0] as ClusterShard)).toEqual([
      'http://h1:5001',
      'http://h2:5001',
    ]);
    expect(shardMembers(config.shards[1] as ClusterShard)).toEqual(['http://h3:5001']);
    expect(describeShard(config.shards[0] as ClusterShard)).toBe(
      's1 (http://h1:5001, http://h2:5001)',
    );
  });

  it('returns canonical forms: endpoint origins, lowercase collection names', () => {
    const config = parseClusterConfig(
      mutated((c) => {
        c.shards[0].endpoint = 'HTTP://LocalHost:5001/';
        c.shards[1].endpoint = 'https://db2.example.com:443';
        c.collections = { Orders: { strategy: 'hash', path: 'passengers[0].lastName' } };
      }),
    );
    expect(config.shards.map((s) => s.endpoint)).toEqual([
      'http://localhost:5001',
      'https://db2.example.com',
    ]);
    expect(config.collections).toEqual({
      orders: { strategy: 'hash', path: 'passengers[0].lastName' },
    });
  });

  it.each<[string, (c: Loose) => void, string]>([
    ['a root that is not an object', () => {}, ''],
    [
      'an unknown root key',
      (c) => (c.extra = 1),
      'extra: unknown field (allowed: version, router, shards, collections)',
    ],
    ['a missing version', (c) => delete c.version, 'version: is missing'],
    [
      'another version',
      (c) => (c.version = 2),
      'version: 2 is not supported: this docdb reads version 1',
    ],
    ['a missing router', (c) => delete c.router, 'router: is missing'],
    [
      'an unknown router key',
      (c) => (c.router.host = 'x'),
      'router.host: unknown field (allowed: port)',
    ],
    [
      'port 0',
      (c) => (c.router.port = 0),
      'router.port: 0 is not a port (an integer from 1 to 65535)',
    ],
    ['port 65536', (c) => (c.router.port = 65536), 'router.port: 65536 is not a port'],
    ['a port as a string', (c) => (c.router.port = '6000'), 'router.port: "6000" is not a port'],
    ['a fractional port', (c) => (c.router.port = 60.5), 'router.port: 60.5 is not a port'],
    ['shards not an array', (c) => (c.shards = {}), 'shards: must be an array, not {}'],
    [
      'an unknown shard key',
      (c) => (c.shards[1].apikey = 'x'),
      'shards[1].apikey: unknown field (allowed: name, endpoint, members, apiKey)',
    ],
    ['a missing shard name', (c) => delete c.shards[0].name, 'shards[0].name: is missing'],
    [
      'a shard name with a space',
      (c) => (c.shards[0].name = 'a b'),
      'shards[0].name: "a b" is not a shard name',
    ],
    [
      'an empty shard name',
      (c) => (c.shards[0].name = ''),
      'shards[0].name: "" is not a shard name',
    ],
    [
      'a shard named __proto__',
      (c) => (c.shards[0].name = '__proto__'),
      'shards[0].name: "__proto__" is not a shard name',
    ],
    [
      'a duplicate shard name',
      (c) => (c.shards[1].name = 's1'),
      'shards[1].name: "s1" is already the name of shards[0]',
    ],
    [
      'a shard name differing in case only',
      (c) => (c.shards[1].name = 'S1'),
      'shards[1].name: "S1" is already the name of shards[0]',
    ],
    [
      'an ftp endpoint',
      (c) => (c.shards[1].endpoint = 'ftp://x'),
      'shards[1].endpoint: "ftp://x" is not an http(s) URL',
    ],
    [
      'an endpoint that is no URL',
      (c) => (c.shards[0].endpoint = 'localhost:5001'),
      'shards[0].endpoint: "localhost:5001" is not an http(s) URL',
    ],
    [
      'an endpoint with a path',
      (c) => (c.shards[0].endpoint = 'http://h:1/api'),
      'shards[0].endpoint: "http://h:1/api" has a path, query or fragment: give only scheme, host and port (http://h:1)',
    ],
    [
      'an endpoint with a query',
      (c) => (c.shards[0].endpoint = 'http://h:1?x=1'),
      'shards[0].endpoint: "http://h:1?x=1" has a path, query or fragment',
    ],
    [
      'an endpoint on port 0',
      (c) => (c.shards[0].endpoint = 'http://h:0'),
      `shards[0].endpoint: "http://h:0" has port 0: give the node's port`,
    ],
    [
      'an endpoint with credentials',
      (c) => (c.shards[0].endpoint = 'http://u:p@h:1'),
      'shards[0].endpoint: must not carry credentials: give the key as apiKey',
    ],
    [
      'a duplicate endpoint',
      (c) => (c.shards[1].endpoint = 'http://127.0.0.1:5001/'),
      'shards[1].endpoint: http://127.0.0.1:5001 is already shards[0].endpoint (s1): a node serves one shard',
    ],
    [
      'both endpoint and members',
      (c) => (c.shards[0].members = ['http://h:1']),
      'shards[0]: has both endpoint and members: give one node as endpoint, or a replica set as members',
    ],
    [
      'empty members',
      (c) => {
        delete c.shards[0].endpoint;
        c.shards[0].members = [];
      },
      'shards[0].members: must be a non-empty array of node URLs, not []',
    ],
    [
      'a member that is no URL',
      (c) => {
        delete c.shards[0].endpoint;
        c.shards[0].members = ['http://h:1', 'h:2'];
      },
      'shards[0].members[1]: "h:2" is not an http(s) URL',
    ],
    [
      'a member twice',
      (c) => {
        delete c.shards[0].endpoint;
        c.shards[0].members = ['http://h:1', 'http://H:1/'];
      },
      'shards[0].members[1]: http://h:1 is shards[0].members[0] again',
    ],
    [
      'a member of another shard',
      (c) => {
        delete c.shards[1].endpoint;
        c.shards[1].members = ['http://h:9', 'http://127.0.0.1:5001'];
      },
      'shards[1].members[1]: http://127.0.0.1:5001 is already shards[0].endpoint (s1): a node serves one shard',
    ],
    [
      'too many members',
      (c) => {
        delete c.shards[0].endpoint;
        c.shards[0].members = Array.from({ length: 10 }, (_, i) => `http://h:${i + 1}`);
      },
      'shards[0].members: lists 10 members; a replica set has at most 9',
    ],
    [
      'an empty apiKey',
      (c) => (c.shards[1].apiKey = ''),
      'shards[1].apiKey: must be a non-empty string',
    ],
    [
      'an apiKey with a newline',
      (c) => (c.shards[1].apiKey = 'a\nb'),
      'shards[1].apiKey: contains a control character',
    ],
    [
      'collections as an array',
      (c) => (c.collections = []),
      'collections: must be an object, not []',
    ],
    [
      'a bad collection name',
      (c) => (c.collections['a b'] = { strategy: 'replicated' }),
      `collections["a b"]: collection name 'a b' contains ' '`,
    ],
    [
      'a collection named __proto__, which would be the prototype of a plain object',
      (c) =>
        Object.defineProperty(c.collections, '__PROTO__', {
          value: { strategy: 'replicated' },
          enumerable: true,
        }),
      `collections.__PROTO__: collection name '__PROTO__' is reserved`,
    ],
    [
      'a collection twice by case',
      (c) => (c.collections.ORDERS = { strategy: 'replicated' }),
      'collections.ORDERS: is collection "orders" again',
    ],
    [
      'an unknown strategy',
      (c) => (c.collections.orders.strategy = 'range'),
      'collections.orders.strategy: "range" is not a strategy (hash or replicated)',
    ],
    [
      'a missing strategy',
      (c) => (c.collections.orders = { path: 'pnr' }),
      'collections.orders.strategy: is missing',
    ],
    [
      'a hash without a path',
      (c) => (c.collections.orders = { strategy: 'hash' }),
      'collections.orders.path: is missing',
    ],
    [
      'a path with [*]',
      (c) => (c.collections.orders.path = 'flights[*].from'),
      "collections.orders.path: invalid JSON path 'flights[*].from': [*] is only allowed in index definitions",
    ],
    [
      'a path that does not parse',
      (c) => (c.collections.orders.path = 'a..b'),
      "collections.orders.path: invalid JSON path 'a..b'",
    ],
    [
      'a replicated collection with a path',
      (c) => (c.collections.airports.path = 'code'),
      'collections.airports.path: a replicated collection has no shard-key path',
    ],
    [
      'an unknown placement key',
      (c) => (c.collections.orders.vnodes = 3),
      'collections.orders.vnodes: unknown field (allowed: strategy, path)',
    ],
  ])('refuses %s, naming the field', (_what, change, expected) => {
    const input = _what === 'a root that is not an object' ? [] : mutated(change);
    const message = refusal(() => parseClusterConfig(input, '/tmp/cluster.json'));
    expect(message).toContain(`cluster config /tmp/cluster.json: ${expected}`);
  });

  it('never shows an apiKey in a message', () => {
    const message = refusal(() =>
      parseClusterConfig(mutated((c) => (c.shards[1].apiKey = 'secret\u0007value'))),
    );
    expect(message).not.toContain('secret');
  });

  it(`takes shard names of ${SHARD_NAME_CHARS_MAX} characters, not one more`, () => {
    const name = 'n'.repeat(SHARD_NAME_CHARS_MAX);
    expect(parseClusterConfig(mutated((c) => (c.shards[0].name = name))).shards[0]?.name).toBe(
      name,
    );
    expect(
      refusal(() => parseClusterConfig(mutated((c) => (c.shards[0].name = `${name}n`)))),
    ).toContain('shards[0].name:');
  });

  it(`takes collection names of ${COLLECTION_NAME_CHARS_MAX} characters, not one more`, () => {
    const name = 'c'.repeat(COLLECTION_NAME_CHARS_MAX);
    const at = (n: string) => mutated((c) => (c.collections = { [n]: { strategy: 'replicated' } }));
    expect(Object.keys(parseClusterConfig(at(name)).collections)).toEqual([name]);
    expect(refusal(() => parseClusterConfig(at(`${name}c`)))).toContain('the limit is 128');
  });

  it(`takes ${CLUSTER_SHARDS_MAX} shards, not one more`, () => {
    const shards = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ name: `s${i}`, endpoint: `http://h${i}:5000` }));
    expect(
      parseClusterConfig(mutated((c) => (c.shards = shards(CLUSTER_SHARDS_MAX)))).shards,
    ).toHaveLength(CLUSTER_SHARDS_MAX);
    expect(
      refusal(() =>
        parseClusterConfig(mutated((c) => (c.shards = shards(CLUSTER_SHARDS_MAX + 1)))),
      ),
    ).toContain(
      `shards: holds ${CLUSTER_SHARDS_MAX + 1} shards; the limit is ${CLUSTER_SHARDS_MAX}`,
    );
  });

  it(`takes ${COLLECTIONS_MAX} collections, not one more`, () => {
    const collections = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`c${i}`, { strategy: 'replicated' }]),
      );
    expect(
      Object.keys(
        parseClusterConfig(mutated((c) => (c.collections = collections(COLLECTIONS_MAX))))
          .collections,
      ),
    ).toHaveLength(COLLECTIONS_MAX);
    expect(
      refusal(() =>
        parseClusterConfig(mutated((c) => (c.collections = collections(COLLECTIONS_MAX + 1)))),
      ),
    ).toContain(`the limit is ${COLLECTIONS_MAX}`);
  });
});

describe('reading and writing a file', () => {
  let dir: string;
  let cleanup: () => void;
  let file: string;
  beforeEach(() => {
    ({ dir, cleanup } = makeTempDir('docdb-cluster-'));
    file = path.join(dir, 'cluster.json');
  });
  afterEach(() => cleanup());

  it('writes pretty JSON with a trailing newline and reads it back', async () => {
    const config = parseClusterConfig(valid());
    await writeClusterConfig(file, config);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toBe(`${JSON.stringify(valid(), null, 2)}\n`);
    expect(await readClusterConfig(file)).toEqual(config);
    // Only the file is left: the temp file was renamed over it.
    expect(fs.readdirSync(dir)).toEqual(['cluster.json']);
  });

  it('creates a new file readable by its owner only (it may hold API keys)', async () => {
    await writeClusterConfig(file, newClusterConfig());
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.chmodSync(file, 0o640);
    await writeClusterConfig(file, newClusterConfig({ routerPort: 7000 }));
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });

  it('never writes an invalid config, and leaves the old file as it was', async () => {
    await writeClusterConfig(file, newClusterConfig());
    const before = fs.readFileSync(file, 'utf8');
    const bad = { ...newClusterConfig(), router: { port: 0 } } as ClusterConfig;
    await expect(writeClusterConfig(file, bad)).rejects.toThrow(/router\.port: 0 is not a port/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['cluster.json']);
  });

  it('refuses to replace a file with an exclusive write', async () => {
    await writeClusterConfig(file, newClusterConfig(), { exclusive: true });
    await expect(
      writeClusterConfig(file, newClusterConfig({ routerPort: 7000 }), { exclusive: true }),
    ).rejects.toThrow(/already exists/);
    expect((await readClusterConfig(file)).router.port).toBe(6000);
    expect(fs.readdirSync(dir)).toEqual(['cluster.json']);
  });

  it('names the file, not its temp file, when its directory is missing or a file', async () => {
    const missing = path.join(dir, 'no-such-dir', 'cluster.json');
    await expect(writeClusterConfig(missing, newClusterConfig())).rejects.toMatchObject({
      code: 'ERR_BAD_ARGUMENT',
      message: `${missing} cannot be written (a directory on its path does not exist)`,
    });
    fs.writeFileSync(path.join(dir, 'plain.txt'), '');
    const underFile = path.join(dir, 'plain.txt', 'cluster.json');
    await expect(writeClusterConfig(underFile, newClusterConfig())).rejects.toMatchObject({
      message: `${underFile} cannot be written (a part of its path is a file)`,
    });
  });

  it('names the file and the fix when it is missing, not JSON, or invalid', async () => {
    await expect(readClusterConfig(file)).rejects.toThrow(
      `cluster config ${file}: no such file: create it with docdb cluster init ${file}`,
    );
    fs.writeFileSync(file, '{ "version": 1,');
    await expect(readClusterConfig(file)).rejects.toThrow(`cluster config ${file}: is not JSON`);
    fs.writeFileSync(file, JSON.stringify(mutated((c) => (c.shards[1].endpoint = 'ftp://x'))));
    await expect(readClusterConfig(file)).rejects.toThrow(
      `cluster config ${file}: shards[1].endpoint: "ftp://x" is not an http(s) URL`,
    );
  });
});

describe('editing', () => {
  const base = () => parseClusterConfig(valid());

  it('adds a shard at the end', () => {
    const config = withShard(base(), { name: 's3', endpoint: 'http://127.0.0.1:5003' });
    expect(config.shards.map((s) => s.name)).toEqual(['s1', 's2', 's3']);
  });

  it('refuses a shard name already present, naming its endpoint', () => {
    expect(refusal(() => withShard(base(), { name: 'S2', endpoint: 'http://h:1' }))).toBe(
      'shard s2 (https://db2.example.com:5002) is already in the cluster: choose another name',
    );
  });

  it('validates the new shard as shards[n]', () => {
    expect(refusal(() => withShard(base(), { name: 's3', endpoint: 'ftp://x' }))).toContain(
      'shards[2].endpoint: "ftp://x" is not an http(s) URL',
    );
  });

  it('adds collections under their lowercase name', () => {
    const config = withCollection(base(), 'Customers', { strategy: 'hash', path: 'id' });
    expect(config.collections.customers).toEqual({ strategy: 'hash', path: 'id' });
  });

  it('refuses a collection already present, naming it and its placement', () => {
    expect(refusal(() => withCollection(base(), 'ORDERS', { strategy: 'replicated' }))).toBe(
      'collection "orders" is already in the cluster (hash on pnr); a placement does not change by add-collection',
    );
  });

  it('refuses a bad collection name', () => {
    expect(refusal(() => withCollection(base(), 'a/b', { strategy: 'replicated' }))).toContain(
      "collection name 'a/b' contains '/'",
    );
  });

  it('redacts API keys as "set"', () => {
    const shown = redactClusterConfig(base());
    expect(shown.shards.map((s) => s.apiKey)).toEqual([undefined, 'set']);
    expect(JSON.stringify(shown)).not.toContain('k2');
  });
});

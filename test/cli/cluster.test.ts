/**
 * Runs `bin/docdb cluster …` as a user would and proves the topology commands: init (router
 * port, refuses to overwrite without --force), add-shard (API key stored, never printed;
 * duplicates and bad endpoints refused naming them), add-collection (hash and replicated; a
 * bad strategy or a missing path is a usage error, exit 2; a collection added twice is
 * refused naming it), show (table and --json, API keys as "set"), help on each command, and
 * errors from a hand-broken file naming the field.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDocdb } from '../support/run-docdb.js';
import { makeTempDir } from '../support/temp-dir.js';

let dir: string;
let cleanup: () => void;
let config: string;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-cluster-cli-'));
  config = path.join(dir, 'cluster.json');
});
afterEach(() => cleanup());

const docdb = (...args: string[]) => runDocdb(args);
const fileJson = () => JSON.parse(fs.readFileSync(config, 'utf8'));

/** Runs a command that must succeed and returns its stdout. */
function ok(...args: string[]): string {
  const r = docdb(...args);
  expect(r.stderr, args.join(' ')).toBe('');
  expect(r.code, args.join(' ')).toBe(0);
  return r.stdout;
}

/** Three shards (one with an API key) and two collections: what docs/cluster.md builds. */
const CLUSTER = {
  version: 1,
  router: { port: 6000 },
  shards: [
    { name: 's1', endpoint: 'http://127.0.0.1:5001' },
    { name: 's2', endpoint: 'http://127.0.0.1:5002' },
    { name: 's3', endpoint: 'http://127.0.0.1:5003', apiKey: 'k3-secret' },
  ],
  collections: {
    orders: { strategy: 'hash', path: 'pnr' },
    airports: { strategy: 'replicated' },
  },
};

/** Builds CLUSTER with the commands of docs/cluster.md. */
function buildCluster(): void {
  ok('cluster', 'init', config);
  ok('cluster', 'add-shard', config, 's1', 'http://127.0.0.1:5001');
  ok('cluster', 'add-shard', config, 's2', 'http://127.0.0.1:5002');
  ok('cluster', 'add-shard', config, 's3', 'http://127.0.0.1:5003/', '--api-key', 'k3-secret');
  ok('cluster', 'add-collection', config, 'orders', 'hash', 'pnr');
  ok('cluster', 'add-collection', config, 'Airports', 'replicated');
}

/** Writes CLUSTER directly, for the tests that start from it (one process run less each). */
function writeCluster(): void {
  fs.writeFileSync(config, `${JSON.stringify(CLUSTER, null, 2)}\n`);
}

describe('docdb cluster init', () => {
  it('writes an empty topology with the default router port, pretty with a newline', () => {
    const out = ok('cluster', 'init', config);
    expect(out).toContain(`created ${config} (router port 6000)`);
    const text = fs.readFileSync(config, 'utf8');
    expect(JSON.parse(text)).toEqual({
      version: 1,
      router: { port: 6000 },
      shards: [],
      collections: {},
    });
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });

  it('takes --router-port, and refuses a port out of range as a usage error', () => {
    ok('cluster', 'init', config, '--router-port', '7100');
    expect(fileJson().router.port).toBe(7100);
    const r = docdb('cluster', 'init', path.join(dir, 'other.json'), '--router-port', '70000');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a port is an integer from 1 to 65535');
    expect(fs.existsSync(path.join(dir, 'other.json'))).toBe(false);
  });

  it('refuses to overwrite an existing file unless --force', () => {
    writeCluster();
    const before = fs.readFileSync(config, 'utf8');
    const r = docdb('cluster', 'init', config);
    expect(r.code).toBe(2); // ERR_BAD_ARGUMENT: the fix is a flag (--force)
    expect(r.stderr).toContain(`error: ${config} already exists: pass --force to replace it`);
    expect(fs.readFileSync(config, 'utf8')).toBe(before);
    ok('cluster', 'init', config, '--force', '--router-port', '6100');
    expect(fileJson()).toMatchObject({ router: { port: 6100 }, shards: [], collections: {} });
  });
});

describe('docdb cluster add-shard and add-collection', () => {
  it('builds the topology of docs/cluster.md', () => {
    buildCluster();
    expect(fileJson()).toEqual(CLUSTER);
    expect(fs.readFileSync(config, 'utf8')).toBe(`${JSON.stringify(CLUSTER, null, 2)}\n`);
  });

  it('reports what it added without printing the API key', () => {
    ok('cluster', 'init', config);
    const out = ok('cluster', 'add-shard', config, 's1', 'http://h:1', '--api-key', 'k-secret');
    expect(out).toBe('added shard s1 at http://h:1 (api key set); the cluster has 1 shard\n');
    expect(ok('cluster', 'add-collection', config, 'orders', 'hash', 'customer.id')).toBe(
      'added collection orders (hash on customer.id)\n',
    );
  });

  it('adds a replica-set shard by its members, then adds and removes members', () => {
    ok('cluster', 'init', config);
    expect(
      ok('cluster', 'add-shard', config, 's1', 'http://h:1', 'http://h:2/', 'http://H:3'),
    ).toBe(
      'added shard s1 with 3 members (http://h:1, http://h:2, http://h:3); the cluster has 1 shard\n',
    );
    ok('cluster', 'add-shard', config, 's2', 'http://h:9');
    expect(ok('cluster', 'add-member', config, 'S2', 'http://h:10')).toBe(
      'added http://h:10 to shard s2: 2 members (http://h:9, http://h:10)\n',
    );
    expect(ok('cluster', 'remove-member', config, 's1', 'http://h:2')).toBe(
      'removed http://h:2 from shard s1: 2 members (http://h:1, http://h:3)\n',
    );
    expect(fileJson().shards).toEqual([
      { name: 's1', members: ['http://h:1', 'http://h:3'] },
      { name: 's2', members: ['http://h:9', 'http://h:10'] },
    ]);
    expect(ok('cluster', 'show', config)).toContain('replica set: http://h:1, http://h:3');
    const taken = docdb('cluster', 'add-member', config, 's1', 'http://h:9');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(
      'http://h:9 is already a node of shard s2 (http://h:9, http://h:10): a node serves one shard',
    );
    const unknown = docdb('cluster', 'add-member', config, 's7', 'http://h:11');
    expect(unknown.stderr).toBe(
      'error: no shard named s7 (shards: s1, s2) [ERR_CLUSTER_CONFIG_INVALID]\n',
    );
    ok('cluster', 'remove-member', config, 's1', 'http://h:3');
    const last = docdb('cluster', 'remove-member', config, 's1', 'http://h:1');
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('http://h:1 is the only node of shard s1');
  });

  it('refuses a shard name twice, naming the shard, and leaves the file as it was', () => {
    writeCluster();
    const before = fs.readFileSync(config, 'utf8');
    const r = docdb('cluster', 'add-shard', config, 's2', 'http://127.0.0.1:5009');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'error: shard s2 (http://127.0.0.1:5002) is already in the cluster: choose another name [ERR_CLUSTER_CONFIG_INVALID]\n',
    );
    expect(fs.readFileSync(config, 'utf8')).toBe(before);
  });

  it('refuses an endpoint that is not an http(s) URL, naming the field and the file', () => {
    writeCluster();
    const r = docdb('cluster', 'add-shard', config, 's4', 'ftp://x');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `cluster config ${config}: shards[3].endpoint: "ftp://x" is not an http(s) URL [ERR_CLUSTER_CONFIG_INVALID]`,
    );
  });

  it('refuses a collection added twice, naming it', () => {
    writeCluster();
    const r = docdb('cluster', 'add-collection', config, 'ORDERS', 'replicated');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'error: collection "orders" is already in the cluster (hash on pnr)',
    );
  });

  it.each([
    [
      ['range'],
      "error: command-argument value 'range' is invalid for argument 'strategy'. Allowed choices are hash, replicated.",
    ],
    [['hash'], 'error: hash needs a path: add-collection <config> <name> hash <path>'],
    [['replicated', 'pnr'], "error: a replicated collection takes no path (got 'pnr')"],
  ])('makes %j a usage error, exit 2, with a message', (rest, message) => {
    writeCluster();
    const before = fs.readFileSync(config, 'utf8');
    const r = docdb('cluster', 'add-collection', config, 'customers', ...rest);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('(run docdb help for usage)');
    expect(fs.readFileSync(config, 'utf8')).toBe(before);
  });

  it('refuses a hash path with [*], naming the field', () => {
    writeCluster();
    const r = docdb('cluster', 'add-collection', config, 'trips', 'hash', 'legs[*].from');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('collections.trips.path: invalid JSON path');
  });

  it('tells how to create a missing file', () => {
    const r = docdb('cluster', 'add-shard', config, 's1', 'http://h:1');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`no such file: create it with docdb cluster init ${config}`);
  });
});

describe('docdb cluster show', () => {
  it('prints the router port and tables of shards and collections, API keys as "set"', () => {
    writeCluster();
    const out = ok('cluster', 'show', config);
    expect(out).toBe(
      [
        `cluster config  ${config}`,
        'router port     6000',
        '',
        'shards (3)',
        'name  endpoint               api key',
        '----  ---------------------  -------',
        's1    http://127.0.0.1:5001  -',
        's2    http://127.0.0.1:5002  -',
        's3    http://127.0.0.1:5003  set',
        '',
        'collections (2)',
        'name      strategy    shard key',
        '--------  ----------  ---------',
        'orders    hash        pnr',
        'airports  replicated  -',
        '',
      ].join('\n'),
    );
    expect(out).not.toContain('k3-secret');
  });

  it('prints the config as JSON with --json, API keys as "set"', () => {
    writeCluster();
    const out = ok('cluster', 'show', config, '--json');
    expect(out).not.toContain('k3-secret');
    const shown = JSON.parse(out);
    expect(shown.shards[2]).toEqual({
      name: 's3',
      endpoint: 'http://127.0.0.1:5003',
      apiKey: 'set',
    });
    expect(shown.shards[0]).toEqual({ name: 's1', endpoint: 'http://127.0.0.1:5001' });
    expect(shown.collections).toEqual(fileJson().collections);
  });

  it('says how to add shards and collections to an empty config', () => {
    ok('cluster', 'init', config);
    const out = ok('cluster', 'show', config);
    expect(out).toContain('(none: docdb cluster add-shard <config> <name> <endpoint>)');
    expect(out).toContain('(none: docdb cluster add-collection');
  });

  it('names the field of a hand-broken file, exit 1', () => {
    writeCluster();
    const broken = fileJson();
    broken.shards[1].endpoint = 'ftp://x';
    fs.writeFileSync(config, JSON.stringify(broken));
    const r = docdb('cluster', 'show', config);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: cluster config ${config}: shards[1].endpoint: "ftp://x" is not an http(s) URL [ERR_CLUSTER_CONFIG_INVALID]\n`,
    );
  });

  it('refuses an unknown key, naming it', () => {
    writeCluster();
    fs.writeFileSync(config, JSON.stringify({ ...fileJson(), replicas: 2 }));
    const r = docdb('cluster', 'show', config, '--json');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'replicas: unknown field (allowed: version, router, shards, collections)',
    );
  });
});

describe('help', () => {
  it('lists cluster in the top-level help and its six commands in its own', () => {
    expect(ok('help')).toContain('cluster');
    for (const args of [
      ['cluster', '--help'],
      ['help', 'cluster'],
    ]) {
      const out = ok(...args);
      expect(out).toContain('Usage: docdb cluster');
      for (const command of [
        'init',
        'show',
        'add-shard',
        'add-member',
        'remove-member',
        'add-collection',
      ]) {
        expect(out).toContain(command);
      }
    }
  });

  it.each([
    ['init', '<config>', '--router-port'],
    ['show', '<config>', '--json'],
    ['add-shard', '[members...]', '--api-key'],
    ['add-member', '<shard>', '<endpoint>'],
    ['remove-member', '<shard>', '<endpoint>'],
    ['add-collection', '<strategy>', 'replicated'],
  ])('gives cluster %s its own help', (command, argument, mention) => {
    const out = ok('cluster', command, '--help');
    expect(out).toContain(`Usage: docdb cluster ${command}`);
    expect(out).toContain(argument);
    expect(out).toContain(mention);
  });

  it('makes docdb cluster without a command a usage error, exit 2, with the help', () => {
    const r = docdb('cluster');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: docdb cluster');
  });
});

/**
 * Proves resolveConfig: the precedence of spec §1 for every setting in every combination of
 * file, flag and variable (a flag beats the file, a variable fills only what neither set,
 * then the defaults), the strict config file of spec §2 (required keys, unknown keys at any
 * depth, JSON types, port ranges), the replication rules, `env:VAR_NAME` passwords, and that
 * every error is ERR_CONFIG_INVALID naming the key, flag or variable without echoing secrets.
 */

import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { isDbError } from '../errors/index.js';
import {
  AUTO_FAILOVER_SECONDS_MAX,
  type ResolveInput,
  resolveConfig,
  type ServeFlags,
} from './config.js';
import { describeSettings } from './node.js';
import { NODE_DEFAULTS } from './node-config.js';
import { SERVE_PROCESSES_MAX } from './settings.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-config-'));
});
afterEach(() => cleanup());

const BASE = { nodeName: 'file-node', port: 6000, dataDir: '/srv/file-data' };

let files = 0;
/** Writes a config file (an object as JSON, or raw text) and returns its path. */
function configFile(content: unknown): string {
  const file = path.join(dir, `node-${++files}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function resolve(
  options: { file?: unknown; flags?: ServeFlags; env?: Record<string, string> } = {},
) {
  const input: ResolveInput = {
    configPath: options.file === undefined ? undefined : configFile(options.file),
    flags: options.flags ?? {},
    env: options.env ?? {},
  };
  return resolveConfig(input);
}

/** Expects ERR_CONFIG_INVALID with every fragment in the message; returns the message. */
function expectInvalid(run: () => unknown, ...fragments: string[]): string {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(
    isDbError(caught, 'ERR_CONFIG_INVALID'),
    `expected ERR_CONFIG_INVALID, got ${caught}`,
  ).toBe(true);
  const message = (caught as Error).message;
  for (const fragment of fragments) expect(message).toContain(fragment);
  return message;
}

describe('defaults', () => {
  it('gives the defaults of spec §1 and §8 when nothing is set', () => {
    const { config, sources } = resolve();
    expect(config).toEqual({
      nodeName: 'node-1',
      port: 5000,
      dataDir: './data',
      bindAll: false,
      changeLogRetainMiB: 256,
      pageCheck: 'open',
      checkpointMiB: 64,
      idleTimeoutSeconds: 60,
      headerTimeoutSeconds: 10,
      requestTimeoutSeconds: 60,
      queryTimeoutSeconds: 30,
      serveProcesses: availableParallelism(),
    });
    expect(config.apiKey).toBeUndefined();
    expect(config.tls).toBeUndefined();
    expect(config.replication).toBeUndefined();
    expect(sources).toMatchObject({
      nodeName: 'default',
      port: 'default',
      dataDir: 'default',
      bindAll: 'default',
      apiKey: 'default',
      replicationSecret: 'default',
      tls: 'default',
      replication: 'default',
    });
  });

  it('uses the default replication port 5500 when a role is set without one', () => {
    const { config, sources } = resolve({ flags: { replicationRole: 'leader' } });
    expect(config.replication).toEqual({
      role: 'leader',
      port: NODE_DEFAULTS.replicationPort,
      syncFollowers: 0,
      syncTimeoutSeconds: 10,
      autoRejoin: false,
    });
    expect(sources['replication.port']).toBe('default');
  });
});

/**
 * Every setting that has a flag, a file key and a variable, with three distinct valid values
 * (and what ends up in the config). Follower settings run with a follower base.
 */
interface Case {
  name: string;
  flag: keyof ServeFlags;
  env: string;
  fileKey: string;
  values: { file: unknown; flag: string; env: string };
  read: (config: ReturnType<typeof resolveConfig>['config']) => unknown;
  expected: { file: unknown; flag: unknown; env: unknown };
  sourceKey: string;
  /** What happens when no source sets it: a value (and its source), or an error. */
  fallback: { value: unknown; source: 'default' | undefined } | { error: string };
  base?: { flags: ServeFlags; file: Record<string, unknown> };
}

const FOLLOWER = {
  flags: {} as ServeFlags,
  file: { replication: { role: 'follower', leaderHost: 'base-host', leaderPort: 7100 } },
};

const CASES: Case[] = [
  {
    name: 'corsOrigin',
    flag: 'corsOrigin',
    env: 'DOCDB_CORS_ORIGIN',
    fileKey: 'cors.origin',
    values: {
      file: 'http://file.example:3000',
      flag: 'http://flag.example',
      env: 'https://env:8443',
    },
    read: (c) => c.corsOrigin,
    expected: {
      file: 'http://file.example:3000',
      flag: 'http://flag.example',
      env: 'https://env:8443',
    },
    sourceKey: 'corsOrigin',
    fallback: { value: undefined, source: 'default' },
  },
  {
    name: 'nodeName',
    flag: 'nodeName',
    env: 'DOCDB_NODE_NAME',
    fileKey: 'nodeName',
    values: { file: 'from-file', flag: 'from-flag', env: 'from-env' },
    read: (c) => c.nodeName,
    expected: { file: 'from-file', flag: 'from-flag', env: 'from-env' },
    sourceKey: 'nodeName',
    fallback: { value: 'node-1', source: 'default' },
  },
  {
    name: 'port',
    flag: 'port',
    env: 'DOCDB_PORT',
    fileKey: 'port',
    values: { file: 6001, flag: '6002', env: '6003' },
    read: (c) => c.port,
    expected: { file: 6001, flag: 6002, env: 6003 },
    sourceKey: 'port',
    fallback: { value: 5000, source: 'default' },
  },
  {
    name: 'dataDir',
    flag: 'dataDir',
    env: 'DOCDB_DATA_DIR',
    fileKey: 'dataDir',
    values: { file: '/file/dir', flag: '/flag/dir', env: '/env/dir' },
    read: (c) => c.dataDir,
    expected: { file: '/file/dir', flag: '/flag/dir', env: '/env/dir' },
    sourceKey: 'dataDir',
    fallback: { value: './data', source: 'default' },
  },
  {
    name: 'apiKey',
    flag: 'apiKey',
    env: 'DOCDB_API_KEY',
    fileKey: 'security.apiKey',
    values: { file: 'file-key', flag: 'flag-key', env: 'env-key' },
    read: (c) => c.apiKey,
    expected: { file: 'file-key', flag: 'flag-key', env: 'env-key' },
    sourceKey: 'apiKey',
    fallback: { value: undefined, source: 'default' },
  },
  {
    name: 'replicationSecret',
    flag: 'replicationSecret',
    env: 'DOCDB_REPLICATION_SECRET',
    fileKey: 'security.replicationSecret',
    values: { file: 'file-secret', flag: 'flag-secret', env: 'env-secret' },
    read: (c) => c.replicationSecret,
    expected: { file: 'file-secret', flag: 'flag-secret', env: 'env-secret' },
    sourceKey: 'replicationSecret',
    fallback: { value: undefined, source: 'default' },
  },
  {
    name: 'replication.role',
    flag: 'replicationRole',
    env: 'DOCDB_REPLICATION_ROLE',
    fileKey: 'replication.role',
    // leaderHost/leaderPort come from the environment so that both roles resolve.
    values: { file: 'leader', flag: 'follower', env: 'leader' },
    read: (c) => c.replication?.role,
    expected: { file: 'leader', flag: 'follower', env: 'leader' },
    sourceKey: 'replication',
    fallback: { value: undefined, source: 'default' },
  },
  {
    name: 'replication.port',
    flag: 'replicationPort',
    env: 'DOCDB_REPLICATION_PORT',
    fileKey: 'replication.port',
    values: { file: 7001, flag: '7002', env: '7003' },
    read: (c) => c.replication?.port,
    expected: { file: 7001, flag: 7002, env: 7003 },
    sourceKey: 'replication.port',
    fallback: { value: 5500, source: 'default' },
    base: { flags: {}, file: { replication: { role: 'leader' } } },
  },
  {
    name: 'replication.leaderHost',
    flag: 'leaderHost',
    env: 'DOCDB_LEADER_HOST',
    fileKey: 'replication.leaderHost',
    values: { file: 'file-host', flag: 'flag-host', env: 'env-host' },
    read: (c) => c.replication?.leaderHost,
    expected: { file: 'file-host', flag: 'flag-host', env: 'env-host' },
    sourceKey: 'replication.leaderHost',
    fallback: { error: 'a follower needs the leader host' },
    base: { flags: {}, file: { replication: { role: 'follower', leaderPort: 7100 } } },
  },
  {
    name: 'replication.leaderPort',
    flag: 'leaderPort',
    env: 'DOCDB_LEADER_PORT',
    fileKey: 'replication.leaderPort',
    values: { file: 7101, flag: '7102', env: '7103' },
    read: (c) => c.replication?.leaderPort,
    expected: { file: 7101, flag: 7102, env: 7103 },
    sourceKey: 'replication.leaderPort',
    fallback: { error: 'a follower needs the leader port' },
    base: { flags: {}, file: { replication: { role: 'follower', leaderHost: 'h' } } },
  },
  {
    name: 'replication.autoFailover.silenceSeconds',
    flag: 'autoFailoverSeconds',
    env: 'DOCDB_AUTO_FAILOVER_SECONDS',
    fileKey: 'replication.autoFailover.silenceSeconds',
    values: { file: 11, flag: '12', env: '13' },
    read: (c) => c.replication?.autoFailover?.silenceSeconds,
    expected: { file: 11, flag: 12, env: 13 },
    sourceKey: 'replication.autoFailover.silenceSeconds',
    fallback: { value: undefined, source: undefined },
    base: FOLLOWER,
  },
  {
    name: 'replication.autoFailover.newLeaderPort',
    flag: 'autoFailoverNewPort',
    env: 'DOCDB_AUTO_FAILOVER_NEW_PORT',
    fileKey: 'replication.autoFailover.newLeaderPort',
    values: { file: 7201, flag: '7202', env: '7203' },
    read: (c) => c.replication?.autoFailover?.newLeaderPort,
    expected: { file: 7201, flag: 7202, env: 7203 },
    sourceKey: 'replication.autoFailover.newLeaderPort',
    fallback: { value: 7100, source: 'default' },
    base: {
      flags: {},
      file: {
        replication: {
          role: 'follower',
          leaderHost: 'h',
          leaderPort: 7100,
          autoFailover: { silenceSeconds: 5 },
        },
      },
    },
  },
];

/** Sets `a.b.c` in a nested object. */
function setPath(object: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let node = object;
  for (const part of parts.slice(0, -1)) {
    node[part] = { ...((node[part] as Record<string, unknown>) ?? {}) };
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1) as string] = value;
}

const COMBINATIONS = [
  { file: false, flag: false, env: false, winner: 'default' },
  { file: true, flag: false, env: false, winner: 'file' },
  { file: false, flag: true, env: false, winner: 'flag' },
  { file: false, flag: false, env: true, winner: 'env' },
  { file: true, flag: true, env: false, winner: 'flag' },
  { file: true, flag: false, env: true, winner: 'file' },
  { file: false, flag: true, env: true, winner: 'flag' },
  { file: true, flag: true, env: true, winner: 'flag' },
] as const;

describe('precedence: flag over file, a variable only for what neither set, then defaults', () => {
  for (const c of CASES) {
    for (const combo of COMBINATIONS) {
      const given = (['file', 'flag', 'env'] as const).filter((s) => combo[s]).join('+') || 'none';
      it(`${c.name}: ${given} → ${combo.winner}`, () => {
        // Without a file value the file is left out entirely when the case needs none
        // (nodeName, port and dataDir are required in a file).
        const file: Record<string, unknown> = structuredClone({ ...BASE, ...c.base?.file });
        const useFile = combo.file || c.base !== undefined;
        const flags: ServeFlags = { ...c.base?.flags };
        // Role cases need the leader's address for the follower outcome.
        const env: Record<string, string> =
          c.name === 'replication.role'
            ? { DOCDB_LEADER_HOST: 'h', DOCDB_LEADER_PORT: '7100' }
            : {};
        if (combo.file) setPath(file, c.fileKey, c.values.file);
        if (combo.flag) (flags as Record<string, string>)[c.flag] = c.values.flag;
        if (combo.env) env[c.env] = c.values.env;
        const run = () => resolve({ ...(useFile && { file }), flags, env });
        if (combo.winner !== 'default') {
          const { config, sources } = run();
          expect(c.read(config)).toEqual(c.expected[combo.winner]);
          expect(sources[c.sourceKey as keyof typeof sources]).toBe(combo.winner);
        } else if ('error' in c.fallback) {
          expectInvalid(run, c.fallback.error);
        } else {
          const { config, sources } = run();
          expect(c.read(config)).toEqual(c.fallback.value);
          expect(sources[c.sourceKey as keyof typeof sources]).toBe(c.fallback.source);
        }
      });
    }
  }

  it('fills each setting from its own source: file, flag and variable in one start', () => {
    const { config, sources } = resolve({
      file: { nodeName: 'from-file', port: 6000, dataDir: '/from/file' },
      flags: { port: '6100' },
      env: { DOCDB_API_KEY: 'env-key', DOCDB_NODE_NAME: 'ignored', DOCDB_PORT: '6200' },
    });
    expect(config).toMatchObject({
      nodeName: 'from-file',
      port: 6100,
      dataDir: '/from/file',
      apiKey: 'env-key',
    });
    expect(sources).toMatchObject({
      nodeName: 'file',
      port: 'flag',
      dataDir: 'file',
      apiKey: 'env',
    });
  });

  it('takes every variable when there is no file and no flag', () => {
    const { config, sources } = resolve({
      env: {
        DOCDB_NODE_NAME: 'env-node',
        DOCDB_PORT: '6300',
        DOCDB_DATA_DIR: '/env/data',
        DOCDB_API_KEY: 'env-key',
        DOCDB_CORS_ORIGIN: 'http://env-ui:3000',
        DOCDB_REPLICATION_SECRET: 'env-secret',
        DOCDB_REPLICATION_ROLE: 'follower',
        DOCDB_REPLICATION_PORT: '6301',
        DOCDB_LEADER_HOST: 'leader.example',
        DOCDB_LEADER_PORT: '6302',
        DOCDB_AUTO_FAILOVER_SECONDS: '30',
        DOCDB_AUTO_FAILOVER_NEW_PORT: '6303',
        DOCDB_SYNC_FOLLOWERS: '1',
        DOCDB_REPLICATION_ADVERTISE_ADDRESS: 'env-node.example:6401',
        DOCDB_AUTO_REJOIN: 'true',
        DOCDB_CHANGE_LOG_RETAIN_MIB: '64',
        DOCDB_PAGE_CHECK: 'off',
        DOCDB_MAX_FILE_MIB: '2048',
        DOCDB_CHECKPOINT_MIB: '32',
        DOCDB_SYNC_TIMEOUT_SECONDS: '3',
        DOCDB_IDLE_TIMEOUT_SECONDS: '30',
        DOCDB_HEADER_TIMEOUT_SECONDS: '5',
        DOCDB_REQUEST_TIMEOUT_SECONDS: '20',
        DOCDB_QUERY_TIMEOUT_SECONDS: '7',
        DOCDB_SERVE_PROCESSES: '3',
        DOCDB_LOG_ARCHIVE_DIR: '/env/archive',
      },
    });
    expect(config).toEqual({
      nodeName: 'env-node',
      port: 6300,
      dataDir: '/env/data',
      bindAll: false,
      changeLogRetainMiB: 64,
      pageCheck: 'off',
      maxFileMiB: 2048,
      checkpointMiB: 32,
      idleTimeoutSeconds: 30,
      headerTimeoutSeconds: 5,
      requestTimeoutSeconds: 20,
      queryTimeoutSeconds: 7,
      serveProcesses: 3,
      apiKey: 'env-key',
      corsOrigin: 'http://env-ui:3000',
      replicationSecret: 'env-secret',
      replication: {
        role: 'follower',
        port: 6301,
        syncFollowers: 1,
        syncTimeoutSeconds: 3,
        advertiseAddress: 'env-node.example:6401',
        autoRejoin: true,
        leaderHost: 'leader.example',
        leaderPort: 6302,
        autoFailover: { silenceSeconds: 30, newLeaderPort: 6303 },
      },
      backup: { logArchiveDir: '/env/archive' },
    });
    for (const source of Object.entries(sources)) {
      // No variable names a coordinator here: a role and a coordinator exclude each other.
      if (!['bindAll', 'tls', 'replication.coordinator'].includes(source[0])) {
        expect(source).toEqual([source[0], 'env']);
      }
    }
  });

  it('does not read (or check) a variable that a flag or the file overrides', () => {
    const { config } = resolve({
      file: BASE,
      flags: { port: '6100' },
      env: { DOCDB_PORT: 'abc', DOCDB_NODE_NAME: '', DOCDB_DATA_DIR: '' },
    });
    expect(config.port).toBe(6100);
    expect(config.nodeName).toBe('file-node');
  });
});

describe('bind address', () => {
  it('is loopback by default and all interfaces with --bind-all or bindAllInterfaces', () => {
    expect(resolve().config.bindAll).toBe(false);
    expect(describeSettings(resolve().config, resolve().sources)).toContain(
      'bind=127.0.0.1 (default)',
    );
    const fromFlag = resolve({ flags: { bindAll: true } });
    expect(fromFlag.config.bindAll).toBe(true);
    expect(describeSettings(fromFlag.config, fromFlag.sources)).toContain('bind=0.0.0.0 (flag)');
    const fromFile = resolve({ file: { ...BASE, bindAllInterfaces: true } });
    expect(fromFile.config.bindAll).toBe(true);
    expect(describeSettings(fromFile.config, fromFile.sources)).toContain('bind=0.0.0.0 (file)');
  });

  it('lets --bind-all override bindAllInterfaces: false, and has no variable', () => {
    const both = resolve({ file: { ...BASE, bindAllInterfaces: false }, flags: { bindAll: true } });
    expect(both.config.bindAll).toBe(true);
    expect(both.sources.bindAll).toBe('flag');
    const fileFalse = resolve({ file: { ...BASE, bindAllInterfaces: false } });
    expect(fileFalse.config.bindAll).toBe(false);
    expect(fileFalse.sources.bindAll).toBe('file');
    expect(resolve({ env: { DOCDB_BIND_ALL: 'true' } }).config.bindAll).toBe(false);
  });

  it('rejects a non-boolean bindAllInterfaces', () => {
    expectInvalid(
      () => resolve({ file: { ...BASE, bindAllInterfaces: 'yes' } }),
      'bindAllInterfaces',
      'true or false',
    );
  });
});

describe('the config file', () => {
  it('reads every field of spec §2', () => {
    const { config, sources } = resolve({
      file: {
        nodeName: 'n',
        port: 6000,
        dataDir: 'd',
        bindAllInterfaces: true,
        changeLog: { retainMiB: 1024 },
        storage: { pageCheck: 'off', maxFileMiB: 4096, checkpointMiB: 128 },
        http: {
          idleTimeoutSeconds: 120,
          headerTimeoutSeconds: 15,
          requestTimeoutSeconds: 90,
          serveProcesses: 4,
        },
        query: { timeoutSeconds: 45 },
        cors: { origin: 'http://ui:3000' },
        security: {
          apiKey: 'k',
          replicationSecret: 's',
          tls: { certPath: '/certs/node.p12', certPassword: 'pw' },
        },
        replication: {
          role: 'follower',
          port: 6001,
          syncFollowers: 2,
          syncTimeoutSeconds: 4,
          advertiseAddress: '[::1]:6004',
          autoRejoin: true,
          leaderHost: 'leader',
          leaderPort: 6002,
          autoFailover: { silenceSeconds: 9, newLeaderPort: 6003 },
        },
        backup: { logArchiveDir: 'archive' },
      },
    });
    expect(config).toEqual({
      nodeName: 'n',
      port: 6000,
      dataDir: 'd',
      bindAll: true,
      changeLogRetainMiB: 1024,
      pageCheck: 'off',
      maxFileMiB: 4096,
      checkpointMiB: 128,
      idleTimeoutSeconds: 120,
      headerTimeoutSeconds: 15,
      requestTimeoutSeconds: 90,
      queryTimeoutSeconds: 45,
      serveProcesses: 4,
      apiKey: 'k',
      corsOrigin: 'http://ui:3000',
      replicationSecret: 's',
      tls: { certPath: '/certs/node.p12', certPassword: 'pw' },
      replication: {
        role: 'follower',
        port: 6001,
        syncFollowers: 2,
        syncTimeoutSeconds: 4,
        advertiseAddress: '[::1]:6004',
        autoRejoin: true,
        leaderHost: 'leader',
        leaderPort: 6002,
        autoFailover: { silenceSeconds: 9, newLeaderPort: 6003 },
      },
      backup: { logArchiveDir: 'archive' },
    });
    const { 'replication.coordinator': coordinator, ...rest } = sources;
    expect(coordinator).toBe('default');
    expect(Object.values(rest).every((source) => source === 'file')).toBe(true);
  });

  for (const key of ['nodeName', 'port', 'dataDir'] as const) {
    it(`requires ${key}, even when a flag gives it`, () => {
      const file: Record<string, unknown> = { ...BASE };
      delete file[key];
      expectInvalid(
        () => resolve({ file, flags: { nodeName: 'x', port: '6000', dataDir: 'x' } }),
        key,
        'missing',
      );
    });
  }

  it('names an unknown key at any depth with its path', () => {
    expectInvalid(() => resolve({ file: { ...BASE, prot: 1 } }), 'prot', 'unknown key');
    expectInvalid(
      () => resolve({ file: { ...BASE, security: { tlss: { certPath: 'x' } } } }),
      'security.tlss',
      'unknown key',
      'security.tls',
    );
    expectInvalid(
      () => resolve({ file: { ...BASE, security: { tls: { certPath: 'x', password: 'p' } } } }),
      'security.tls.password',
    );
    expectInvalid(
      () =>
        resolve({
          file: {
            ...BASE,
            replication: { role: 'leader', autoFailover: { silenceSeconds: 1, seconds: 2 } },
          },
        }),
      'replication.autoFailover.seconds',
    );
    // Even inherited-looking names are just unknown keys.
    expectInvalid(
      () => resolve({ file: `{"nodeName":"n","port":1,"dataDir":"d","toString":1}` }),
      'toString',
    );
  });

  it('rejects wrong JSON types, naming the key and the type', () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ...BASE, port: '6000' }, 'port', 'not a string'],
      [{ ...BASE, port: 6000.5 }, 'port', '6000.5'],
      [{ ...BASE, nodeName: 5 }, 'nodeName', 'must be a string'],
      [{ ...BASE, dataDir: null }, 'dataDir', 'not null'],
      [{ ...BASE, security: [] }, 'security', 'must be an object, not an array'],
      [{ ...BASE, security: null }, 'security', 'must be an object, not null'],
      [{ ...BASE, security: { tls: 'cert.pem' } }, 'security.tls', 'must be an object'],
      [{ ...BASE, security: { tls: { certPath: 1 } } }, 'security.tls.certPath', 'string'],
      [{ ...BASE, replication: 'leader' }, 'replication', 'must be an object'],
      [{ ...BASE, replication: { role: 'primary' } }, 'replication.role', 'leader or follower'],
      [{ ...BASE, replication: { role: 'leader', port: '5500' } }, 'replication.port', 'string'],
    ];
    for (const [file, key, problem] of cases) {
      expectInvalid(() => resolve({ file }), key, problem);
    }
  });

  it('never echoes a secret value in an error', () => {
    const message = expectInvalid(
      () => resolve({ file: { ...BASE, security: { apiKey: 1234567 } } }),
      'security.apiKey',
      'must be a string',
    );
    expect(message).not.toContain('1234567');
  });

  it('explains a missing file, text that is not JSON, and JSON that is not an object', () => {
    expectInvalid(
      () => resolveConfig({ configPath: path.join(dir, 'nope.json'), flags: {}, env: {} }),
      '--config',
      'nope.json',
      'ENOENT',
    );
    expectInvalid(() => resolve({ file: '{ "nodeName": ' }), '--config', 'not valid JSON');
    expectInvalid(() => resolve({ file: '[1, 2]' }), '--config', 'JSON object');
  });

  it('allows empty security and replication sections (no security, single node)', () => {
    const { config } = resolve({ file: { ...BASE, security: {}, replication: {} } });
    expect(config.apiKey).toBeUndefined();
    expect(config.tls).toBeUndefined();
    expect(config.replication).toBeUndefined();
  });
});

describe('ports', () => {
  it('accepts 1 and 65535 from every source', () => {
    expect(resolve({ flags: { port: '1' } }).config.port).toBe(1);
    expect(resolve({ flags: { port: '65535' } }).config.port).toBe(65535);
    expect(resolve({ env: { DOCDB_PORT: '65535' } }).config.port).toBe(65535);
    expect(resolve({ file: { ...BASE, port: 1 } }).config.port).toBe(1);
  });

  it('rejects 0, 65536 and non-integers, naming the flag, variable or key', () => {
    for (const bad of ['0', '65536', 'abc', '5000.0', '-1', ' 5000', '', '1e3', '0x10']) {
      expectInvalid(() => resolve({ flags: { port: bad } }), '--port');
      expectInvalid(() => resolve({ env: { DOCDB_PORT: bad } }), 'DOCDB_PORT');
    }
    for (const bad of [0, 65536, -1, 1.5]) {
      expectInvalid(() => resolve({ file: { ...BASE, port: bad } }), 'port in', '1 to 65535');
    }
    expectInvalid(() => resolve({ env: { DOCDB_PORT: 'abc' } }), 'DOCDB_PORT', '"abc"');
    expectInvalid(
      () => resolve({ flags: { replicationRole: 'leader', replicationPort: '70000' } }),
      '--replication-port',
    );
    expectInvalid(
      () =>
        resolve({
          flags: { replicationRole: 'follower', leaderHost: 'h' },
          env: { DOCDB_LEADER_PORT: 'x' },
        }),
      'DOCDB_LEADER_PORT',
    );
  });

  it('requires the replication port to differ from the HTTP port, from any source', () => {
    expectInvalid(
      () =>
        resolve({ flags: { port: '6000', replicationRole: 'leader', replicationPort: '6000' } }),
      '--replication-port',
      '--port',
      'HTTP port',
    );
    expectInvalid(
      () => resolve({ file: { ...BASE, replication: { role: 'leader', port: 6000 } } }),
      'replication.port',
    );
    expectInvalid(
      () =>
        resolve({
          env: {
            DOCDB_PORT: '7000',
            DOCDB_REPLICATION_PORT: '7000',
            DOCDB_REPLICATION_ROLE: 'leader',
          },
        }),
      'DOCDB_REPLICATION_PORT',
      'DOCDB_PORT',
    );
    // The default replication port counts too.
    expectInvalid(
      () => resolve({ flags: { port: '5500', replicationRole: 'leader' } }),
      'default 5500',
    );
    // A single node never listens for replication, so 5500 is a fine HTTP port there.
    expect(resolve({ flags: { port: '5500' } }).config.port).toBe(5500);
  });
});

describe('values from flags and variables', () => {
  it('rejects empty values, naming where they came from', () => {
    expectInvalid(() => resolve({ flags: { nodeName: '' } }), '--node-name', 'empty');
    expectInvalid(() => resolve({ env: { DOCDB_API_KEY: '' } }), 'DOCDB_API_KEY', 'empty');
    expectInvalid(
      () => resolve({ file: { ...BASE, security: { apiKey: '' } } }),
      'security.apiKey',
    );
  });

  it('rejects control characters in names and paths', () => {
    expectInvalid(() => resolve({ flags: { nodeName: 'a\nb' } }), '--node-name', 'control');
  });

  it('rejects a role that is not leader or follower', () => {
    expectInvalid(
      () => resolve({ env: { DOCDB_REPLICATION_ROLE: 'primary' } }),
      'DOCDB_REPLICATION_ROLE',
      'leader or follower',
    );
    expectInvalid(() => resolve({ flags: { replicationRole: 'Leader' } }), '--replication-role');
  });

  it('rejects a leader host that is a URL', () => {
    expectInvalid(
      () =>
        resolve({
          flags: { replicationRole: 'follower', leaderHost: 'http://x', leaderPort: '1' },
        }),
      '--leader-host',
    );
  });
});

describe('replication', () => {
  it('reads only role and port on a leader', () => {
    const { config, sources } = resolve({
      file: {
        ...BASE,
        replication: {
          role: 'leader',
          port: 6001,
          leaderHost: 17,
          leaderPort: 'not read',
          autoFailover: { silenceSeconds: -1 },
        },
      },
      flags: { leaderHost: 'ignored' },
    });
    expect(config.replication).toEqual({
      role: 'leader',
      port: 6001,
      syncFollowers: 0,
      syncTimeoutSeconds: 10,
      autoRejoin: false,
    });
    expect(sources['replication.leaderHost']).toBeUndefined();
  });

  it('takes an advertise address as host:port and names a bad one', () => {
    const leader = { ...BASE, replication: { role: 'leader', port: 6001 } };
    for (const address of ['db-1.example:5500', '10.0.0.7:1', '[fe80::1]:65535']) {
      const { config } = resolve({
        file: { ...leader, replication: { ...leader.replication, advertiseAddress: address } },
      });
      expect(config.replication?.advertiseAddress).toBe(address);
    }
    for (const address of [
      'db-1.example',
      'http://db:5500',
      'db:0',
      'db:65536',
      'fe80::1:5500',
      'a b:1',
    ]) {
      expectInvalid(
        () =>
          resolve({
            file: { ...leader, replication: { ...leader.replication, advertiseAddress: address } },
          }),
        'replication.advertiseAddress',
        'host:port',
      );
    }
    expectInvalid(
      () => resolve({ flags: { replicationRole: 'leader', replicationAdvertiseAddress: 'x' } }),
      '--replication-advertise-address',
      'host:port',
    );
    expect(
      resolve({ flags: { replicationRole: 'leader', autoRejoin: true } }).config.replication
        ?.autoRejoin,
    ).toBe(true);
  });

  it('needs the leader host and port on a follower', () => {
    expectInvalid(
      () => resolve({ flags: { replicationRole: 'follower', leaderPort: '6001' } }),
      '--replication-role',
      'leader host',
      '--leader-host',
    );
    expectInvalid(
      () => resolve({ file: { ...BASE, replication: { role: 'follower', leaderHost: 'h' } } }),
      'replication.role in',
      'leader port',
      'replication.leaderPort',
    );
  });

  it('defaults the auto-failover port to the leader port and checks it against --port', () => {
    const { config, sources } = resolve({
      flags: {
        replicationRole: 'follower',
        leaderHost: 'h',
        leaderPort: '6001',
        autoFailoverSeconds: '10',
      },
    });
    expect(config.replication?.autoFailover).toEqual({ silenceSeconds: 10, newLeaderPort: 6001 });
    expect(sources['replication.autoFailover.newLeaderPort']).toBe('default');
    expectInvalid(
      () =>
        resolve({
          flags: {
            port: '6001',
            replicationRole: 'follower',
            leaderHost: 'h',
            leaderPort: '6001',
            autoFailoverSeconds: '10',
          },
        }),
      'new leader port',
      'HTTP port',
    );
    expectInvalid(
      () =>
        resolve({
          flags: {
            port: '6000',
            replicationRole: 'follower',
            leaderHost: 'h',
            leaderPort: '6001',
            autoFailoverSeconds: '10',
            autoFailoverNewPort: '6000',
          },
        }),
      '--auto-failover-new-port',
    );
  });

  it('rejects a new leader port without auto-failover', () => {
    expectInvalid(
      () =>
        resolve({
          flags: {
            replicationRole: 'follower',
            leaderHost: 'h',
            leaderPort: '6001',
            autoFailoverNewPort: '6002',
          },
        }),
      '--auto-failover-new-port',
      '--auto-failover-seconds',
    );
  });

  it('bounds the auto-failover silence', () => {
    const follower = { replicationRole: 'follower', leaderHost: 'h', leaderPort: '6001' };
    const at = resolve({
      flags: { ...follower, autoFailoverSeconds: String(AUTO_FAILOVER_SECONDS_MAX) },
    });
    expect(at.config.replication?.autoFailover?.silenceSeconds).toBe(AUTO_FAILOVER_SECONDS_MAX);
    for (const bad of ['0', String(AUTO_FAILOVER_SECONDS_MAX + 1), '1.5']) {
      expectInvalid(
        () => resolve({ flags: { ...follower, autoFailoverSeconds: bad } }),
        '--auto-failover-seconds',
      );
    }
  });

  it('rejects replication settings written without a role, but ignores such variables', () => {
    expectInvalid(
      () => resolve({ flags: { replicationPort: '6001' } }),
      '--replication-port',
      'no replication role',
    );
    expectInvalid(
      () => resolve({ file: { ...BASE, replication: { leaderHost: 'h' } } }),
      'replication.leaderHost',
      'no replication role',
    );
    const { config } = resolve({ env: { DOCDB_REPLICATION_PORT: '6001', DOCDB_LEADER_HOST: 'h' } });
    expect(config.replication).toBeUndefined();
  });
});

describe('TLS settings', () => {
  it('takes certPath and a literal certPassword from the file', () => {
    const { config, sources } = resolve({
      file: { ...BASE, security: { tls: { certPath: 'node.pem', certPassword: 'pw' } } },
    });
    expect(config.tls).toEqual({ certPath: 'node.pem', certPassword: 'pw' });
    expect(sources.tls).toBe('file');
  });

  it('reads certPassword from the variable named by env:VAR_NAME', () => {
    const file = { ...BASE, security: { tls: { certPath: 'n.p12', certPassword: 'env:CERT_PW' } } };
    expect(resolve({ file, env: { CERT_PW: 's3cret' } }).config.tls).toEqual({
      certPath: 'n.p12',
      certPassword: 's3cret',
    });
    expectInvalid(() => resolve({ file }), 'security.tls.certPassword', 'CERT_PW', 'not set');
    expectInvalid(
      () => resolve({ file, env: { CERT_PW: '' } }),
      'security.tls.certPassword',
      'empty',
    );
  });

  it('rejects env: without a valid variable name', () => {
    for (const bad of ['env:', 'env:1ABC', 'env:A-B']) {
      expectInvalid(
        () =>
          resolve({ file: { ...BASE, security: { tls: { certPath: 'c', certPassword: bad } } } }),
        'security.tls.certPassword',
        'env:VAR_NAME',
      );
    }
  });

  it('needs certPath when security.tls is present', () => {
    expectInvalid(
      () => resolve({ file: { ...BASE, security: { tls: {} } } }),
      'security.tls.certPath',
      'missing',
    );
    expectInvalid(
      () => resolve({ file: { ...BASE, security: { tls: { certPassword: 'pw' } } } }),
      'security.tls.certPath',
    );
  });

  it('keeps TLS off without security.tls', () => {
    expect(resolve({ file: { ...BASE, security: { apiKey: 'k' } } }).config.tls).toBeUndefined();
  });
});

describe('the start-up description', () => {
  it('shows where each setting came from and never a secret', () => {
    const { config, sources } = resolve({
      file: {
        ...BASE,
        security: { apiKey: 'file-api-key', tls: { certPath: 'c.pem', certPassword: 'env:PW' } },
      },
      flags: { port: '6100', replicationSecret: 'flag-repl-secret' },
      env: { PW: 'tls-password', DOCDB_DATA_DIR: '/ignored' },
    });
    const line = describeSettings(config, sources);
    expect(line).toContain('node=file-node (file)');
    expect(line).toContain('port=6100 (flag)');
    expect(line).toContain('dataDir=/srv/file-data (file)');
    expect(line).toContain('apiKey=set (file)');
    expect(line).toContain('tls=on (file)');
    for (const secret of ['file-api-key', 'flag-repl-secret', 'tls-password']) {
      expect(line).not.toContain(secret);
    }
  });
});

describe('sync followers and the change log size, at their limits', () => {
  it('takes 0 to 32 sync followers on a node with a role, and nothing past', () => {
    const role = { replicationRole: 'leader' } as const;
    expect(
      resolve({ flags: { ...role, syncFollowers: '0' } }).config.replication?.syncFollowers,
    ).toBe(0);
    expect(
      resolve({ flags: { ...role, syncFollowers: '32' } }).config.replication?.syncFollowers,
    ).toBe(32);
    for (const bad of ['33', '-1', '1.5', 'two']) {
      expectInvalid(
        () => resolve({ flags: { ...role, syncFollowers: bad } }),
        '--sync-followers',
        'an integer from 0 to 32',
      );
    }
    expectInvalid(
      () => resolve({ flags: { syncFollowers: '1' } }),
      '--sync-followers',
      'no replication role',
    );
  });

  it('takes 1 MiB to 1 TiB of change log, and nothing past', () => {
    expect(resolve({ flags: { changeLogRetainMib: '1' } }).config.changeLogRetainMiB).toBe(1);
    expect(resolve({ flags: { pageCheck: 'off' } }).config.pageCheck).toBe('off');
    expectInvalid(() => resolve({ flags: { pageCheck: 'never' } }), '--page-check');
    expectInvalid(() => resolve({ env: { DOCDB_PAGE_CHECK: 'Open' } }), 'DOCDB_PAGE_CHECK');
    expect(
      resolve({ env: { DOCDB_CHANGE_LOG_RETAIN_MIB: '1048576' } }).config.changeLogRetainMiB,
    ).toBe(1_048_576);
    for (const bad of ['0', '1048577', 'big']) {
      expectInvalid(
        () => resolve({ flags: { changeLogRetainMib: bad } }),
        '--change-log-retain-mib',
        'a whole number of MiB from 1 to 1048576',
      );
    }
    expectInvalid(
      () => resolve({ file: { ...BASE, changeLog: { retainMiB: '64' } } }),
      'changeLog.retainMiB',
      'not a string',
    );
  });

  it('caps the data file at 1 MiB to 1 TiB from flag, variable or file, and no cap by default', () => {
    expect(resolve({}).config.maxFileMiB).toBeUndefined();
    expect(resolve({ flags: { maxFileMib: '1' } }).config.maxFileMiB).toBe(1);
    expect(resolve({ env: { DOCDB_MAX_FILE_MIB: '1048576' } }).config.maxFileMiB).toBe(1_048_576);
    const fromFile = resolve({ file: { ...BASE, storage: { maxFileMiB: 512 } } });
    expect(fromFile.config.maxFileMiB).toBe(512);
    expect(fromFile.sources.maxFileMiB).toBe('file');
    for (const bad of ['0', '1048577', 'big']) {
      expectInvalid(
        () => resolve({ flags: { maxFileMib: bad } }),
        '--max-file-mib',
        'a whole number of MiB from 1 to 1048576',
      );
    }
    expectInvalid(
      () => resolve({ file: { ...BASE, storage: { maxFileMiB: '64' } } }),
      'storage.maxFileMiB',
      'not a string',
    );
  });
});

describe('serve processes, at their limits (issue 25)', () => {
  it('takes 1 to SERVE_PROCESSES_MAX processes, and nothing past', () => {
    expect(resolve({ flags: { serveProcesses: '1' } }).config.serveProcesses).toBe(1);
    expect(
      resolve({ flags: { serveProcesses: String(SERVE_PROCESSES_MAX) } }).config.serveProcesses,
    ).toBe(SERVE_PROCESSES_MAX);
    for (const bad of ['0', String(SERVE_PROCESSES_MAX + 1), '-1', '1.5', 'all']) {
      expectInvalid(
        () => resolve({ flags: { serveProcesses: bad } }),
        '--serve-processes',
        `an integer from 1 to ${SERVE_PROCESSES_MAX}`,
      );
    }
  });

  it('defaults to the cores, and says so in the start-up line', () => {
    const { config, sources } = resolve();
    expect(config.serveProcesses).toBe(availableParallelism());
    expect(describeSettings(config, sources)).toContain(
      `processes=${availableParallelism()} (default)`,
    );
  });
});

describe('the CORS origin', () => {
  it('is normalised as a browser sends Origin: lower case, no default port, no slash', () => {
    const { config } = resolve({ flags: { corsOrigin: 'HTTP://UI.Example:80/' } });
    expect(config.corsOrigin).toBe('http://ui.example');
    expect(resolve({ env: { DOCDB_CORS_ORIGIN: 'https://ui:8443' } }).config.corsOrigin).toBe(
      'https://ui:8443',
    );
  });

  it('refuses a path, a query, credentials, another scheme and a bare host', () => {
    for (const bad of [
      'http://ui.example/admin',
      'http://ui.example?x=1',
      'http://user:pw@ui.example',
      'ftp://ui.example',
      'ui.example:3000',
      '*',
    ]) {
      expectInvalid(
        () => resolve({ flags: { corsOrigin: bad } }),
        '--cors-origin',
        'http(s)://host[:port]',
      );
    }
    expectInvalid(() => resolve({ file: { ...BASE, cors: { origin: 3000 } } }), 'cors.origin');
  });
});

describe('a coordinated node (issue 24)', () => {
  const coordinated = { coordinator: 'etcd://127.0.0.1:2379', replicaSet: 'rs1' } as const;

  it('reads the coordinator, its replica set and lease settings, and the replication ones', () => {
    const { config, sources } = resolve({
      flags: { ...coordinated, replicationPort: '6501', syncFollowers: '1' },
    });
    expect(config.replication).toEqual({
      coordinator: 'etcd://127.0.0.1:2379',
      replicaSet: 'rs1',
      leaseSeconds: 10,
      port: 6501,
      syncFollowers: 1,
      syncTimeoutSeconds: 10,
      autoRejoin: false,
    });
    expect(sources['replication.coordinator']).toBe('flag');
    expect(sources.replication).toBe('flag');
    expect(describeSettings(config, sources)).toContain('replication=coordinated');
    expect(describeSettings(config, sources)).toContain(
      'coordinator=etcd://127.0.0.1:2379 (flag) replicaSet=rs1 (flag)',
    );
  });

  it('takes them from the file and from variables alike', () => {
    const file = resolve({
      file: {
        ...BASE,
        replication: {
          coordinator: 'etcd://a:1,b',
          replicaSet: 'set.a',
          leaseSeconds: 4,
          writeStopMarginMs: 2000,
        },
      },
    }).config.replication;
    expect(file).toMatchObject({
      coordinator: 'etcd://a:1,b:2379',
      replicaSet: 'set.a',
      leaseSeconds: 4,
      writeStopMarginMs: 2000,
      port: 5500,
    });
    const env = resolve({
      env: {
        DOCDB_COORDINATOR: 'etcd://127.0.0.1:2381',
        DOCDB_REPLICA_SET: 's',
        DOCDB_COORDINATOR_LEASE_SECONDS: '300',
        DOCDB_WRITE_STOP_MARGIN_MS: '150000',
      },
    }).config.replication;
    expect(env).toMatchObject({ leaseSeconds: 300, writeStopMarginMs: 150_000 });
  });

  it('refuses a bad coordinator URL, naming the setting and what is wrong', () => {
    expectInvalid(
      () => resolve({ flags: { ...coordinated, coordinator: 'http://127.0.0.1:2379' } }),
      '--coordinator: coordinator URL',
      'the scheme is http://',
    );
    expectInvalid(
      () => resolve({ env: { DOCDB_COORDINATOR: 'etcd://h:99999', DOCDB_REPLICA_SET: 'a' } }),
      'DOCDB_COORDINATOR:',
      'the port "99999"',
    );
  });

  it('needs a replica set whose name fits an etcd key, and a node name that does too', () => {
    expectInvalid(
      () => resolve({ flags: { coordinator: coordinated.coordinator } }),
      '--coordinator: a coordinated node needs its replica set',
      '--replica-set, DOCDB_REPLICA_SET or replication.replicaSet',
    );
    expectInvalid(
      () => resolve({ flags: { ...coordinated, replicaSet: 'a/b' } }),
      '--replica-set: a replica set name is 1 to 64 letters',
    );
    expectInvalid(
      () => resolve({ flags: { ...coordinated, nodeName: 'my node' } }),
      '--node-name: a member name is 1 to 64 letters',
    );
  });

  it('takes lease TTLs from 2 to 300 s and a margin of at most half the TTL', () => {
    for (const bad of ['1', '301', 'x']) {
      expectInvalid(
        () => resolve({ flags: { ...coordinated, coordinatorLeaseSeconds: bad } }),
        '--coordinator-lease-seconds',
        'from 2 to 300',
      );
    }
    expect(
      resolve({ flags: { ...coordinated, coordinatorLeaseSeconds: '2' } }).config.replication
        ?.leaseSeconds,
    ).toBe(2);
    expect(
      resolve({
        flags: { ...coordinated, coordinatorLeaseSeconds: '4', writeStopMarginMs: '2000' },
      }).config.replication?.writeStopMarginMs,
    ).toBe(2000);
    expectInvalid(
      () =>
        resolve({
          flags: { ...coordinated, coordinatorLeaseSeconds: '4', writeStopMarginMs: '2001' },
        }),
      '--write-stop-margin-ms: the write-stop margin is whole milliseconds above 0 and at most half the lease TTL (2000 ms); got 2001',
    );
    expectInvalid(
      () => resolve({ flags: { ...coordinated, writeStopMarginMs: '0' } }),
      '--write-stop-margin-ms',
      'from 1 to 150000',
    );
  });

  it('refuses a role, a leader or auto-failover beside a coordinator, naming both', () => {
    const conflicts: Array<[ServeFlags | Record<string, string>, string]> = [
      [{ replicationRole: 'leader' }, '--replication-role: set, but so is a coordinator'],
      [{ leaderHost: 'h' }, '--leader-host: set, but so is a coordinator'],
      [{ leaderPort: '7000' }, '--leader-port: set, but so is a coordinator'],
      [{ autoFailoverSeconds: '5' }, '--auto-failover-seconds: set, but so is a coordinator'],
    ];
    for (const [flags, message] of conflicts) {
      expectInvalid(
        () => resolve({ flags: { ...coordinated, ...flags } }),
        message,
        '(--coordinator)',
      );
    }
    expectInvalid(
      () => resolve({ flags: coordinated, env: { DOCDB_REPLICATION_ROLE: 'follower' } }),
      'DOCDB_REPLICATION_ROLE: set, but so is a coordinator',
    );
  });

  it('refuses the coordinator settings without a coordinator', () => {
    expectInvalid(
      () => resolve({ flags: { replicaSet: 'rs' } }),
      '--replica-set: set, but no coordinator is; add --coordinator, DOCDB_COORDINATOR or replication.coordinator',
    );
    // Variables are ambient: one for a coordinator's set is not read on a node without one.
    expect(resolve({ env: { DOCDB_REPLICA_SET: 'rs' } }).config.replication).toBeUndefined();
  });
});

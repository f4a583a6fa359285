/**
 * Resolves the settings of `docdb serve` from the JSON config file, the flags, the `DOCDB_*`
 * environment variables and the defaults (spec §1, §2), and validates them strictly. It reads
 * the config file and nothing else: it never opens the data dir or the certificate (node.ts does).
 */

import * as fs from 'node:fs';
import { DbError } from '../errors/index.js';
import { NODE_DEFAULTS, type NodeConfig, type SettingSource } from './node-config.js';

/**
 * Flag values as commander hands them over: text, parsed and checked here so that a flag, a
 * variable and a file key get the same rules and errors. `bindAll` is true when given.
 */
export interface ServeFlags {
  nodeName?: string;
  port?: string;
  dataDir?: string;
  apiKey?: string;
  replicationSecret?: string;
  bindAll?: boolean;
  replicationRole?: string;
  replicationPort?: string;
  leaderHost?: string;
  leaderPort?: string;
  autoFailoverSeconds?: string;
  autoFailoverNewPort?: string;
}

/** What resolveConfig reads: the `--config` path, the flags and an environment. */
export interface ResolveInput {
  configPath?: string | undefined;
  flags: ServeFlags;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The settings whose source is reported: the fields of NodeConfig, plus the parts of
 * replication and TLS (the log line shows the top-level ones).
 */
export type SettingKey =
  | keyof NodeConfig
  | 'tls.certPassword'
  | 'replication.port'
  | 'replication.leaderHost'
  | 'replication.leaderPort'
  | 'replication.autoFailover.silenceSeconds'
  | 'replication.autoFailover.newLeaderPort';

/** The resolved settings and where each came from. */
export interface ResolvedConfig {
  config: NodeConfig;
  sources: Partial<Record<SettingKey, SettingSource>>;
}

/**
 * Longest auto-failover silence: the largest delay a Node timer holds (2^31 - 1 ms), so the
 * follower's silence timer can always be armed with it.
 */
export const AUTO_FAILOVER_SECONDS_MAX = 2_147_483;

const PORT_MIN = 1;
const PORT_MAX = 65_535;

type Kind = 'text' | 'secret' | 'port' | 'seconds' | 'role' | 'host';

/** One setting: its key in the file, its flag, its variable, and how its value is checked. */
interface Setting {
  file: string;
  flag?: keyof ServeFlags;
  flagName?: string;
  env?: string;
  kind: Kind;
}

const SETTINGS = {
  nodeName: {
    file: 'nodeName',
    flag: 'nodeName',
    flagName: '--node-name',
    env: 'DOCDB_NODE_NAME',
    kind: 'text',
  },
  port: { file: 'port', flag: 'port', flagName: '--port', env: 'DOCDB_PORT', kind: 'port' },
  dataDir: {
    file: 'dataDir',
    flag: 'dataDir',
    flagName: '--data-dir',
    env: 'DOCDB_DATA_DIR',
    kind: 'text',
  },
  apiKey: {
    file: 'security.apiKey',
    flag: 'apiKey',
    flagName: '--api-key',
    env: 'DOCDB_API_KEY',
    kind: 'secret',
  },
  replicationSecret: {
    file: 'security.replicationSecret',
    flag: 'replicationSecret',
    flagName: '--replication-secret',
    env: 'DOCDB_REPLICATION_SECRET',
    kind: 'secret',
  },
  certPath: { file: 'security.tls.certPath', kind: 'text' },
  certPassword: { file: 'security.tls.certPassword', kind: 'secret' },
  role: {
    file: 'replication.role',
    flag: 'replicationRole',
    flagName: '--replication-role',
    env: 'DOCDB_REPLICATION_ROLE',
    kind: 'role',
  },
  replicationPort: {
    file: 'replication.port',
    flag: 'replicationPort',
    flagName: '--replication-port',
    env: 'DOCDB_REPLICATION_PORT',
    kind: 'port',
  },
  leaderHost: {
    file: 'replication.leaderHost',
    flag: 'leaderHost',
    flagName: '--leader-host',
    env: 'DOCDB_LEADER_HOST',
    kind: 'host',
  },
  leaderPort: {
    file: 'replication.leaderPort',
    flag: 'leaderPort',
    flagName: '--leader-port',
    env: 'DOCDB_LEADER_PORT',
    kind: 'port',
  },
  silenceSeconds: {
    file: 'replication.autoFailover.silenceSeconds',
    flag: 'autoFailoverSeconds',
    flagName: '--auto-failover-seconds',
    env: 'DOCDB_AUTO_FAILOVER_SECONDS',
    kind: 'seconds',
  },
  // Spec §1 gives every serve flag but --config and --bind-all a variable; its table leaves
  // this one out, so it follows the naming of the others.
  newLeaderPort: {
    file: 'replication.autoFailover.newLeaderPort',
    flag: 'autoFailoverNewPort',
    flagName: '--auto-failover-new-port',
    env: 'DOCDB_AUTO_FAILOVER_NEW_PORT',
    kind: 'port',
  },
} satisfies Record<string, Setting>;

type SettingName = keyof typeof SETTINGS;

/** The shape of the config file: a branch maps its keys, a leaf is `true`. */
type Shape = { readonly [key: string]: Shape | true };

const FILE_SHAPE: Shape = {
  nodeName: true,
  port: true,
  dataDir: true,
  bindAllInterfaces: true,
  security: {
    apiKey: true,
    replicationSecret: true,
    tls: { certPath: true, certPassword: true },
  },
  replication: {
    role: true,
    port: true,
    leaderHost: true,
    leaderPort: true,
    autoFailover: { silenceSeconds: true, newLeaderPort: true },
  },
};

const FILE_REQUIRED = ['nodeName', 'port', 'dataDir'] as const;

function invalid(message: string): DbError {
  return new DbError('ERR_CONFIG_INVALID', message);
}

/** A value for an error message: quoted, and cut short so a huge value cannot flood stderr. */
function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The config file as a flat map from key path (`security.tls.certPath`) to raw JSON value. */
type FileValues = Map<string, unknown>;

function readConfigFile(configPath: string): FileValues {
  let text: string;
  try {
    text = fs.readFileSync(configPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw invalid(`--config: cannot read the config file ${configPath} (${code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(
      `--config: ${configPath} is not valid JSON (${(error as Error).message}); fix the file`,
    );
  }
  if (!isPlainObject(json)) {
    throw invalid(`--config: ${configPath} must hold a JSON object, not ${typeName(json)}`);
  }
  const values: FileValues = new Map();
  flatten(json, FILE_SHAPE, '', configPath, values);
  for (const key of FILE_REQUIRED) {
    if (!values.has(key)) {
      throw invalid(
        `${key} in ${configPath}: missing; the config file must set nodeName, port and dataDir`,
      );
    }
  }
  return values;
}

/** Walks the file against its shape: unknown keys and non-object branches are errors. */
function flatten(
  object: Record<string, unknown>,
  shape: Shape,
  prefix: string,
  configPath: string,
  into: FileValues,
): void {
  for (const [key, value] of Object.entries(object)) {
    const path = `${prefix}${key}`;
    const expected = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (expected === undefined) {
      const known = Object.keys(shape)
        .map((name) => `${prefix}${name}`)
        .join(', ');
      throw invalid(`${path} in ${configPath}: unknown key; the keys here are ${known}`);
    }
    if (expected === true) {
      into.set(path, value);
    } else if (isPlainObject(value)) {
      // The branch itself is kept too: `"tls": {}` is there and must then name certPath.
      into.set(path, value);
      flatten(value, expected, `${path}.`, configPath, into);
    } else {
      throw invalid(`${path} in ${configPath}: must be an object, not ${typeName(value)}`);
    }
  }
}

/** A value the user gave, with how they wrote it (for messages) and where it came from. */
interface Given<T> {
  value: T;
  source: Exclude<SettingSource, 'default'>;
  label: string;
}

type KindValue<K extends Kind> = K extends 'port' | 'seconds' ? number : string;

function describeRange(kind: 'port' | 'seconds'): string {
  return kind === 'port'
    ? `an integer from ${PORT_MIN} to ${PORT_MAX}`
    : `a whole number of seconds from 1 to ${AUTO_FAILOVER_SECONDS_MAX}`;
}

function checkRange(kind: 'port' | 'seconds', value: number, label: string, raw: unknown): number {
  const max = kind === 'port' ? PORT_MAX : AUTO_FAILOVER_SECONDS_MAX;
  if (!Number.isInteger(value) || value < PORT_MIN || value > max) {
    throw invalid(`${label}: ${show(raw)} is not valid; give ${describeRange(kind)}`);
  }
  return value;
}

function checkText(kind: Kind, value: string, label: string): string {
  const secret = kind === 'secret';
  if (value.length === 0) {
    throw invalid(`${label}: must not be empty; give a value or leave it out`);
  }
  // Names and paths end up in logs and file names: control characters are always a mistake.
  if (!secret && /[\u0000-\u001f\u007f]/.test(value)) {
    throw invalid(`${label}: ${show(value)} contains control characters`);
  }
  if (kind === 'role' && value !== 'leader' && value !== 'follower') {
    throw invalid(`${label}: ${show(value)} is not a role; give leader or follower`);
  }
  if (kind === 'host' && /[\s/]/.test(value)) {
    throw invalid(`${label}: ${show(value)} is not a host name or address (no URL, no spaces)`);
  }
  return value;
}

/** Parses a flag or variable (always text). */
function parseText<K extends Kind>(kind: K, raw: string, label: string): KindValue<K> {
  if (kind === 'port' || kind === 'seconds') {
    if (!/^\d+$/.test(raw)) {
      throw invalid(`${label}: ${show(raw)} is not valid; give ${describeRange(kind)}`);
    }
    return checkRange(kind, Number(raw), label, raw) as KindValue<K>;
  }
  return checkText(kind, raw, label) as KindValue<K>;
}

/** Checks a config file value, whose JSON type must already be right (no "5000" for 5000). */
function parseJson<K extends Kind>(kind: K, raw: unknown, label: string): KindValue<K> {
  if (kind === 'port' || kind === 'seconds') {
    if (typeof raw !== 'number') {
      throw invalid(`${label}: must be ${describeRange(kind)}, not ${typeName(raw)}`);
    }
    return checkRange(kind, raw, label, raw) as KindValue<K>;
  }
  if (typeof raw !== 'string') {
    throw invalid(`${label}: must be a string, not ${typeName(raw)}`);
  }
  return checkText(kind, raw, label) as KindValue<K>;
}

/** Resolves settings in the order of spec §1: flag, then file, then variable. */
class Resolver {
  constructor(
    private readonly input: ResolveInput,
    private readonly file: FileValues,
  ) {}

  fileLabel(key: string): string {
    return `${key} in ${this.input.configPath}`;
  }

  /** The raw value when the user wrote this setting (flag or file); variables do not count. */
  explicit(name: SettingName): Given<unknown> | undefined {
    const setting: Setting = SETTINGS[name];
    const flag = setting.flag && this.input.flags[setting.flag];
    if (flag !== undefined && setting.flagName) {
      return { value: flag, source: 'flag', label: setting.flagName };
    }
    if (this.file.has(setting.file)) {
      return {
        value: this.file.get(setting.file),
        source: 'file',
        label: this.fileLabel(setting.file),
      };
    }
    return undefined;
  }

  /** The setting's parsed value from the first source that has it, or undefined. */
  get<N extends SettingName>(name: N): Given<KindValue<(typeof SETTINGS)[N]['kind']>> | undefined {
    const setting: Setting = SETTINGS[name];
    const kind = setting.kind as (typeof SETTINGS)[N]['kind'];
    const flag = setting.flag && this.input.flags[setting.flag];
    if (typeof flag === 'string' && setting.flagName) {
      const label = setting.flagName;
      return { value: parseText(kind, flag, label), source: 'flag', label };
    }
    if (this.file.has(setting.file)) {
      const label = this.fileLabel(setting.file);
      return { value: parseJson(kind, this.file.get(setting.file), label), source: 'file', label };
    }
    const env = setting.env === undefined ? undefined : this.input.env[setting.env];
    if (env !== undefined && setting.env) {
      const label = setting.env;
      return { value: parseText(kind, env, label), source: 'env', label };
    }
    return undefined;
  }
}

/**
 * Resolves and validates the node settings.
 *
 * Precedence (spec §1), per setting: a flag wins over the config file; a `DOCDB_*` variable
 * applies only when neither a flag nor the file set that setting; then the default. A variable
 * that does not apply is not read, so it is not checked either.
 *
 * The file is strict: nodeName, port and dataDir are required, unknown keys at any level are
 * errors naming the key path, and values must have the JSON type of spec §2 (a port is an
 * integer, not a string). Ports are integers 1–65535 and the replication port must differ
 * from the HTTP port. A follower needs a leader host and port; on a leader only the role
 * and the port are read. `security.tls.certPassword` of the form `env:VAR_NAME` reads that
 * variable. Paths are used as written (relative ones against the working directory).
 *
 * Throws DbError ERR_CONFIG_INVALID naming the flag, variable or file key and the problem;
 * messages never contain a secret.
 */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const file = input.configPath === undefined ? new Map() : readConfigFile(input.configPath);
  const resolver = new Resolver(input, file);
  const sources: Partial<Record<SettingKey, SettingSource>> = {};
  const pick = <T>(key: SettingKey, given: Given<T> | undefined, fallback: T): T => {
    sources[key] = given?.source ?? 'default';
    return given?.value ?? fallback;
  };

  const portGiven = resolver.get('port');
  const config: NodeConfig = {
    nodeName: pick('nodeName', resolver.get('nodeName'), NODE_DEFAULTS.nodeName),
    port: pick('port', portGiven, NODE_DEFAULTS.port),
    dataDir: pick('dataDir', resolver.get('dataDir'), NODE_DEFAULTS.dataDir),
    bindAll: pick('bindAll', bindAll(input, file, resolver), NODE_DEFAULTS.bindAll),
  };
  const apiKey = pick('apiKey', resolver.get('apiKey'), undefined);
  if (apiKey !== undefined) config.apiKey = apiKey;
  const replicationSecret = pick('replicationSecret', resolver.get('replicationSecret'), undefined);
  if (replicationSecret !== undefined) config.replicationSecret = replicationSecret;

  const tls = resolveTls(input, file, resolver, sources);
  if (tls) config.tls = tls;

  const http: PortUse = {
    port: config.port,
    label: portGiven ? portGiven.label : `port (default ${NODE_DEFAULTS.port})`,
  };
  const replication = resolveReplication(resolver, sources, http);
  if (replication) config.replication = replication;
  return { config, sources };
}

function bindAll(
  input: ResolveInput,
  file: FileValues,
  resolver: Resolver,
): Given<boolean> | undefined {
  if (input.flags.bindAll === true) return { value: true, source: 'flag', label: '--bind-all' };
  if (!file.has('bindAllInterfaces')) return undefined;
  const raw = file.get('bindAllInterfaces');
  const label = resolver.fileLabel('bindAllInterfaces');
  if (typeof raw !== 'boolean') {
    throw invalid(`${label}: must be true or false, not ${typeName(raw)}`);
  }
  return { value: raw, source: 'file', label };
}

const ENV_REFERENCE = /^env:(.*)$/s;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function resolveTls(
  input: ResolveInput,
  file: FileValues,
  resolver: Resolver,
  sources: Partial<Record<SettingKey, SettingSource>>,
): NodeConfig['tls'] {
  sources.tls = file.has('security.tls') ? 'file' : 'default';
  if (!file.has('security.tls')) return undefined;
  const certPath = resolver.get('certPath');
  if (!certPath) {
    throw invalid(
      `${resolver.fileLabel('security.tls.certPath')}: missing; security.tls needs certPath ` +
        '(a .pfx/.p12 file or a PEM file with the certificate chain and key), or remove security.tls',
    );
  }
  const password = resolver.get('certPassword');
  if (!password) return { certPath: certPath.value };
  sources['tls.certPassword'] = 'file';
  const reference = ENV_REFERENCE.exec(password.value);
  if (!reference) return { certPath: certPath.value, certPassword: password.value };
  const variable = reference[1] as string;
  if (!ENV_NAME.test(variable)) {
    throw invalid(
      `${password.label}: ${show(`env:${variable}`)} does not name an environment variable; ` +
        'write env:VAR_NAME (letters, digits, underscores)',
    );
  }
  const value = input.env[variable];
  if (value === undefined) {
    throw invalid(
      `${password.label}: reads the environment variable ${variable} (env:${variable}), ` +
        'which is not set; set it or put the password in the file',
    );
  }
  if (value === '') {
    throw invalid(
      `${password.label}: the environment variable ${variable} (env:${variable}) is empty; ` +
        'set it to the certificate password',
    );
  }
  return { certPath: certPath.value, certPassword: value };
}

/** A port in use by the node and how the user named it, for the "must differ" messages. */
interface PortUse {
  port: number;
  label: string;
}

function requireDifferent(http: PortUse, other: PortUse): void {
  if (other.port !== http.port) return;
  throw invalid(
    `${other.label}: ${other.port} is also the HTTP port (${http.label}); ` +
      'replication needs a port of its own',
  );
}

const REPLICATION_DETAILS = [
  'replicationPort',
  'leaderHost',
  'leaderPort',
  'silenceSeconds',
  'newLeaderPort',
] as const satisfies readonly SettingName[];

function resolveReplication(
  resolver: Resolver,
  sources: Partial<Record<SettingKey, SettingSource>>,
  http: PortUse,
): NodeConfig['replication'] {
  const role = resolver.get('role');
  sources.replication = role?.source ?? 'default';
  if (!role) {
    // Replication settings without a role are a mistake when the user wrote them; variables
    // are ambient (a shared environment), so they are simply not read on a single node.
    for (const name of REPLICATION_DETAILS) {
      const given = resolver.explicit(name);
      if (given) {
        throw invalid(
          `${given.label}: set, but no replication role is; add --replication-role ` +
            '(or replication.role in the config file) with leader or follower, or remove it',
        );
      }
    }
    return undefined;
  }
  const portGiven = resolver.get('replicationPort');
  const port = portGiven?.value ?? NODE_DEFAULTS.replicationPort;
  sources['replication.port'] = portGiven?.source ?? 'default';
  requireDifferent(http, {
    port,
    label: portGiven?.label ?? `replication port (default ${NODE_DEFAULTS.replicationPort})`,
  });
  const roleValue = role.value as 'leader' | 'follower';
  // Spec §2: on a leader only role and port are read.
  if (roleValue === 'leader') return { role: 'leader', port };

  const leaderHost = resolver.get('leaderHost');
  const leaderPort = resolver.get('leaderPort');
  if (!leaderHost || !leaderPort) {
    const missing = !leaderHost
      ? 'the leader host (replication.leaderHost, --leader-host or DOCDB_LEADER_HOST)'
      : 'the leader port (replication.leaderPort, --leader-port or DOCDB_LEADER_PORT)';
    throw invalid(`${role.label}: a follower needs ${missing}`);
  }
  sources['replication.leaderHost'] = leaderHost.source;
  sources['replication.leaderPort'] = leaderPort.source;
  const settings: NodeConfig['replication'] = {
    role: 'follower',
    port,
    leaderHost: leaderHost.value,
    leaderPort: leaderPort.value,
  };
  const silence = resolver.get('silenceSeconds');
  const newPort = resolver.get('newLeaderPort');
  if (!silence) {
    if (newPort) {
      throw invalid(
        `${newPort.label}: only used with auto-failover; set --auto-failover-seconds ` +
          '(replication.autoFailover.silenceSeconds) too, or remove it',
      );
    }
    return settings;
  }
  sources['replication.autoFailover.silenceSeconds'] = silence.source;
  sources['replication.autoFailover.newLeaderPort'] = newPort?.source ?? 'default';
  // Spec §1: once promoted the node binds the leader's port unless told otherwise.
  const newLeaderPort = newPort?.value ?? leaderPort.value;
  requireDifferent(http, {
    port: newLeaderPort,
    label: newPort?.label ?? `auto-failover new leader port (default: the leader port)`,
  });
  settings.autoFailover = { silenceSeconds: silence.value, newLeaderPort };
  return settings;
}

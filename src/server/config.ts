/**
 * Resolves the settings of `docdb serve` from the JSON config file, the flags, the `DOCDB_*`
 * environment variables and the defaults, and validates them strictly. Which settings exist,
 * their keys, flags, variables, kinds and defaults come from the table in settings.ts; this
 * module holds the rules that apply to every row and the few that tie settings together. It
 * reads the config file and nothing else: it never opens the data dir or the certificate
 * (node.ts does).
 */

import * as fs from 'node:fs';
import {
  checkName,
  leaseTiming,
  parseCoordinatorUrl,
  writeStopMarginMs,
} from '../coordinator/index.js';
import { type DbError, dbError } from '../errors/index.js';
import type { NodeConfig, SettingSource } from './node-config.js';
import {
  AUTO_FAILOVER_SECONDS_MAX,
  CHANGE_LOG_RETAIN_MIB_MAX,
  defaultText,
  describeKind,
  type FileShape,
  fileShape,
  flagKey,
  flagName,
  LEASE_TTL_SECONDS_MAX,
  LEASE_TTL_SECONDS_MIN,
  PORT_MAX,
  PORT_MIN,
  REPLICATION_FOLLOWERS_MAX,
  SERVE_PROCESSES_MAX,
  SETTING_NAMES,
  SETTINGS,
  type ServeFlags,
  type SettingKind,
  type SettingName,
  type SettingSpec,
  settingSpec,
  WRITE_STOP_MARGIN_MS_MAX,
  whereToSet,
} from './settings.js';

export { AUTO_FAILOVER_SECONDS_MAX, type ServeFlags } from './settings.js';

/** What resolveConfig reads: the `--config` path, the flags and an environment. */
export interface ResolveInput {
  configPath?: string | undefined;
  flags: ServeFlags;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * The keys sources are reported under: each setting's place in NodeConfig (`replication.port`),
 * and the sections `tls` and `replication`, on or off (the log line shows those).
 */
export type SettingKey = (typeof SETTINGS)[SettingName]['config'] | 'tls' | 'replication';

/** Every dotted path into an object type: `tls`, `tls.certPath`, … */
type Paths<T> = {
  [K in keyof T & string]-?: NonNullable<T[K]> extends object
    ? K | `${K}.${Paths<NonNullable<T[K]>>}`
    : K;
}[keyof T & string];

/**
 * Compiles only while every row's `config` path is a field of NodeConfig: a new setting needs
 * its field there, where its users read it.
 */
const _everyConfigPathIsAField: (typeof SETTINGS)[SettingName]['config'] extends Paths<NodeConfig>
  ? true
  : never = true;

/** The resolved settings and where each came from. */
export interface ResolvedConfig {
  config: NodeConfig;
  sources: Partial<Record<SettingKey, SettingSource>>;
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

/** "a, b and c". */
function listOf(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The key path of the section holding a key: `security.tls.certPath` → `security.tls`. */
function sectionOf(key: string): string {
  return key.slice(0, key.lastIndexOf('.'));
}

const FILE_SHAPE: FileShape = fileShape();
const FILE_REQUIRED = SETTING_NAMES.map(settingSpec)
  .filter((spec) => spec.fileRequired)
  .map((spec) => spec.file);
/** The file section whose presence turns TLS on (as does a certificate flag or variable). */
const TLS_SECTION = sectionOf(SETTINGS.certPath.file);

/** TLS is on when the config file has its section or a flag or variable names the certificate. */
function tlsOn(resolver: Resolver): boolean {
  return resolver.file.has(TLS_SECTION) || resolver.get(SETTINGS.certPath) !== undefined;
}

/** The config file as a flat map from key path (`security.tls.certPath`) to raw JSON value. */
type FileValues = Map<string, unknown>;

function readConfigFile(configPath: string): FileValues {
  let text: string;
  try {
    text = fs.readFileSync(configPath, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw dbError('ERR_CONFIG_INVALID', 'configUnreadable', { configPath, code });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw dbError('ERR_CONFIG_INVALID', 'configNotJson', {
      configPath,
      cause: (error as Error).message,
    });
  }
  if (!isPlainObject(json)) {
    throw dbError('ERR_CONFIG_INVALID', 'configNotObject', { configPath, type: typeName(json) });
  }
  const values: FileValues = new Map();
  flatten(json, FILE_SHAPE, '', configPath, values);
  for (const key of FILE_REQUIRED) {
    if (!values.has(key)) {
      throw dbError('ERR_CONFIG_INVALID', 'requiredKey', {
        key,
        configPath,
        list: listOf(FILE_REQUIRED),
      });
    }
  }
  return values;
}

/** Walks the file against its shape: unknown keys and non-object branches are errors. */
function flatten(
  object: Record<string, unknown>,
  shape: FileShape,
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
      throw dbError('ERR_CONFIG_INVALID', 'unknownKey', { path, configPath, known });
    }
    if (expected === true) {
      into.set(path, value);
    } else if (isPlainObject(value)) {
      // The branch itself is kept too: `"tls": {}` is there and must then name certPath.
      into.set(path, value);
      flatten(value, expected, `${path}.`, configPath, into);
    } else {
      throw dbError('ERR_CONFIG_INVALID', 'sectionNotObject', {
        path,
        configPath,
        type: typeName(value),
      });
    }
  }
}

/** A setting's value: a number for ports and seconds, a boolean for switches, else text. */
type Value = string | number | boolean;

/** A value the user gave, with how they wrote it (for messages) and where it came from. */
interface Given {
  value: Value;
  source: Exclude<SettingSource, 'default'>;
  label: string;
}

/** The accepted range of each numeric kind. */
const RANGES = {
  port: [PORT_MIN, PORT_MAX],
  seconds: [1, AUTO_FAILOVER_SECONDS_MAX],
  count: [0, REPLICATION_FOLLOWERS_MAX],
  mebibytes: [1, CHANGE_LOG_RETAIN_MIB_MAX],
  leaseSeconds: [LEASE_TTL_SECONDS_MIN, LEASE_TTL_SECONDS_MAX],
  milliseconds: [1, WRITE_STOP_MARGIN_MS_MAX],
  processes: [1, SERVE_PROCESSES_MAX],
} as const;

type NumericKind = keyof typeof RANGES;

function isNumeric(kind: SettingKind): kind is NumericKind {
  return kind in RANGES;
}

function checkRange(kind: NumericKind, value: number, label: string, raw: unknown): number {
  const [min, max] = RANGES[kind];
  if (!Number.isInteger(value) || value < min || value > max) {
    throw dbError('ERR_CONFIG_INVALID', 'invalidValue', {
      label,
      value: show(raw),
      wanted: describeKind(kind),
    });
  }
  return value;
}

const ENV_REFERENCE = /^env:(.*)$/s;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A password, or the variable an `env:VAR_NAME` reference names. */
function readPassword(value: string, label: string, env: ResolveInput['env']): string {
  const reference = ENV_REFERENCE.exec(value);
  if (!reference) return value;
  const variable = reference[1] as string;
  if (!ENV_NAME.test(variable)) {
    throw dbError('ERR_CONFIG_INVALID', 'badEnvReference', {
      label,
      reference: show(`env:${variable}`),
    });
  }
  const text = env[variable];
  if (text === undefined) {
    throw dbError('ERR_CONFIG_INVALID', 'envUnset', { label, variable });
  }
  if (text === '') {
    throw dbError('ERR_CONFIG_INVALID', 'envEmpty', { label, variable });
  }
  return text;
}

function checkText(kind: SettingKind, value: string, label: string): string {
  const secret = kind === 'secret' || kind === 'password';
  if (value.length === 0) {
    throw dbError('ERR_CONFIG_INVALID', 'empty', { label });
  }
  // Names and paths end up in logs and file names: control characters are always a mistake.
  if (!secret && /[\u0000-\u001f\u007f]/.test(value)) {
    throw dbError('ERR_CONFIG_INVALID', 'controlCharacters', { label, value: show(value) });
  }
  if (kind === 'role' && value !== 'leader' && value !== 'follower') {
    throw dbError('ERR_CONFIG_INVALID', 'notRole', {
      label,
      value: show(value),
      wanted: describeKind('role'),
    });
  }
  if (kind === 'pageCheck' && value !== 'open' && value !== 'off') {
    throw dbError('ERR_CONFIG_INVALID', 'invalidValue', {
      label,
      value: show(value),
      wanted: describeKind('pageCheck'),
    });
  }
  if (kind === 'host' && /[\s/]/.test(value)) {
    throw dbError('ERR_CONFIG_INVALID', 'notHost', { label, value: show(value) });
  }
  if (kind === 'address') return checkAddress(value, label);
  if (kind === 'origin') return checkOrigin(value, label);
  if (kind === 'coordinatorUrl') return labelled(label, () => parseCoordinatorUrl(value).url);
  if (kind === 'setName') labelled(label, () => checkName('replica set', value));
  return value;
}

/** Runs a check of another module, its error message prefixed with the setting's label. */
function labelled<T>(label: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw dbError('ERR_CONFIG_INVALID', 'labelled', { label, cause: (error as Error).message });
  }
}

/** `host:port`: a host name or address (an IPv6 one in brackets) and a port. */
function checkAddress(value: string, label: string): string {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || port < PORT_MIN || port > PORT_MAX) {
    throw dbError('ERR_CONFIG_INVALID', 'invalidValue', {
      label,
      value: show(value),
      wanted: describeKind('address'),
    });
  }
  return value;
}

/**
 * A browser's `Origin` is exactly `scheme://host[:port]`, lower case, default port left out;
 * the setting is compared with it as text, so it is checked and normalised the same way.
 */
function checkOrigin(value: string, label: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const bare = url !== undefined && url.pathname === '/' && !url.search && !url.hash;
  if (!url || !/^https?:$/.test(url.protocol) || !bare || url.username || url.password) {
    throw dbError('ERR_CONFIG_INVALID', 'invalidValue', {
      label,
      value: show(value),
      wanted: describeKind('origin'),
    });
  }
  return url.origin;
}

/** Parses a flag or variable (always text). */
function parseText(kind: SettingKind, raw: string, label: string, env: ResolveInput['env']): Value {
  if (isNumeric(kind)) {
    if (!/^\d+$/.test(raw)) {
      throw dbError('ERR_CONFIG_INVALID', 'invalidValue', {
        label,
        value: show(raw),
        wanted: describeKind(kind),
      });
    }
    return checkRange(kind, Number(raw), label, raw);
  }
  if (kind === 'boolean') {
    if (raw !== 'true' && raw !== 'false') {
      throw dbError('ERR_CONFIG_INVALID', 'invalidValue', {
        label,
        value: show(raw),
        wanted: describeKind(kind),
      });
    }
    return raw === 'true';
  }
  const text = checkText(kind, raw, label);
  return kind === 'password' ? readPassword(text, label, env) : text;
}

/** Checks a config file value, whose JSON type must already be right (no "5000" for 5000). */
function parseJson(
  kind: SettingKind,
  raw: unknown,
  label: string,
  env: ResolveInput['env'],
): Value {
  if (isNumeric(kind)) {
    if (typeof raw !== 'number') {
      throw dbError('ERR_CONFIG_INVALID', 'wrongType', {
        label,
        wanted: describeKind(kind),
        type: typeName(raw),
      });
    }
    return checkRange(kind, raw, label, raw);
  }
  if (kind === 'boolean') {
    if (typeof raw !== 'boolean') {
      throw dbError('ERR_CONFIG_INVALID', 'wrongType', {
        label,
        wanted: describeKind(kind),
        type: typeName(raw),
      });
    }
    return raw;
  }
  if (typeof raw !== 'string') {
    throw dbError('ERR_CONFIG_INVALID', 'notString', { label, type: typeName(raw) });
  }
  const text = checkText(kind, raw, label);
  return kind === 'password' ? readPassword(text, label, env) : text;
}

/** Reads one setting from its sources in the order of precedence: flag, file, variable. */
class Resolver {
  constructor(
    private readonly input: ResolveInput,
    readonly file: FileValues,
  ) {}

  fileLabel(key: string): string {
    return `${key} in ${this.input.configPath}`;
  }

  /** The raw value when the user wrote this setting (flag or file); variables do not count. */
  explicit(spec: SettingSpec): { label: string } | undefined {
    const key = flagKey(spec);
    if (key !== undefined && this.input.flags[key] !== undefined) {
      return { label: flagName(spec) as string };
    }
    return this.file.has(spec.file) ? { label: this.fileLabel(spec.file) } : undefined;
  }

  /** The setting's parsed value from the first source that has it, or undefined. */
  get(spec: SettingSpec): Given | undefined {
    const { env } = this.input;
    const key = flagKey(spec);
    const flag = key === undefined ? undefined : this.input.flags[key];
    const label = flagName(spec) as string;
    if (spec.kind === 'boolean' ? flag === true : typeof flag === 'string') {
      const value = flag === true ? true : parseText(spec.kind, flag as string, label, env);
      return { value, source: 'flag', label };
    }
    if (this.file.has(spec.file)) {
      const label = this.fileLabel(spec.file);
      const value = parseJson(spec.kind, this.file.get(spec.file), label, env);
      return { value, source: 'file', label };
    }
    const text = spec.env === undefined ? undefined : env[spec.env];
    if (text !== undefined && spec.env !== undefined) {
      return { value: parseText(spec.kind, text, spec.env, env), source: 'env', label: spec.env };
    }
    return undefined;
  }
}

/** What one resolution has found so far; passed through its steps. */
interface Resolution {
  resolver: Resolver;
  /** What each setting the user gave holds, and how they named it. */
  given: Partial<Record<SettingName, Given>>;
  /** Each setting's value, given or default. */
  values: Partial<Record<SettingName, Value>>;
  sources: Partial<Record<SettingKey, SettingSource>>;
  /** NodeConfig as it is built, by the rows' `config` paths. */
  config: Record<string, unknown>;
}

/**
 * Whether a setting is read in this resolution (see SettingScope). Throws when the user wrote
 * a replication setting without a role, or an auto-failover setting without its silence.
 */
function inScope(run: Resolution, spec: SettingSpec): boolean {
  if (spec.scope === 'node') return true;
  if (spec.scope === 'tls') {
    if (tlsOn(run.resolver)) return true;
    // A key or password without a certificate is a mistake when the user wrote it.
    const written = run.resolver.explicit(spec);
    if (written) {
      throw dbError('ERR_CONFIG_INVALID', 'withoutCertificate', {
        label: written.label,
        certPath: whereToSet(SETTINGS.certPath),
      });
    }
    return false;
  }
  // A role beside a coordinator is named before the role's own needs (a leader host…).
  if (run.values.coordinator !== undefined && run.given.role) {
    throw conflictWithCoordinator(run, run.given.role.label);
  }
  if (spec.scope === 'coordinator') return coordinatorScope(run, spec);
  const role = run.values.role;
  if (role === undefined && run.values.coordinator !== undefined) {
    if (spec.scope === 'replication') return true;
    // Who leads, and so whom to follow, comes from etcd: a leader address or an
    // auto-failover silence would contradict it, from whichever source.
    const given = run.resolver.get(spec);
    if (given) throw conflictWithCoordinator(run, given.label);
    return false;
  }
  if (role === undefined) {
    // Replication settings without a role are a mistake when the user wrote them; variables
    // are ambient (a shared environment), so they are simply not read on a single node.
    const written = run.resolver.explicit(spec);
    if (written) {
      throw dbError('ERR_CONFIG_INVALID', 'withoutRole', {
        label: written.label,
        role: flagName(SETTINGS.role),
        file: SETTINGS.role.file,
      });
    }
    return false;
  }
  if (spec.scope === 'replication') return true;
  // Spec §2: on a leader only role and port are read.
  if (role !== 'follower') return false;
  if (spec.scope === 'follower' || run.values.silenceSeconds !== undefined) return true;
  const given = run.resolver.get(spec);
  if (given) {
    throw dbError('ERR_CONFIG_INVALID', 'withoutAutoFailover', {
      label: given.label,
      silenceSeconds: flagName(SETTINGS.silenceSeconds),
      file: SETTINGS.silenceSeconds.file,
    });
  }
  return false;
}

/** A coordinator's own settings are read with one, and are a mistake written without. */
function coordinatorScope(run: Resolution, spec: SettingSpec): boolean {
  if (run.values.coordinator !== undefined) return true;
  const written = run.resolver.explicit(spec);
  if (written) {
    throw dbError('ERR_CONFIG_INVALID', 'withoutCoordinator', {
      label: written.label,
      coordinator: whereToSet(SETTINGS.coordinator),
    });
  }
  return false;
}

function conflictWithCoordinator(run: Resolution, label: string): DbError {
  const coordinator = run.given.coordinator?.label ?? flagName(SETTINGS.coordinator);
  return dbError('ERR_CONFIG_INVALID', 'withCoordinator', { label, coordinator });
}

/**
 * The rules that tie a coordinated node's settings together: no role besides the
 * coordinator; a node name that can be a member's name in etcd; a write-stop margin that fits
 * the lease TTL (lease-timing.ts, whose rules these are).
 */
function requireCoordinated(run: Resolution): void {
  if (run.values.coordinator === undefined) return;
  const nodeName = run.given.nodeName?.label ?? `${SETTINGS.nodeName.title} (default)`;
  labelled(nodeName, () => checkName('member', String(run.values.nodeName)));
  const ttlSeconds = run.values.leaseSeconds as number;
  const margin = run.given.writeStopMarginMs;
  labelled(margin?.label ?? `${SETTINGS.writeStopMarginMs.title} (default)`, () =>
    leaseTiming({
      ttlSeconds,
      marginMs: (margin?.value as number | undefined) ?? writeStopMarginMs(ttlSeconds),
      callTimeoutMs: 1,
    }),
  );
}

function missing(run: Resolution, spec: SettingSpec): DbError {
  if (spec.scope === 'coordinator') {
    const coordinator = run.given.coordinator?.label;
    return dbError('ERR_CONFIG_INVALID', 'coordinatedNeeds', {
      coordinator,
      title: spec.title,
      whereToSet: whereToSet(spec),
    });
  }
  if (spec.scope === 'tls') {
    const section = sectionOf(spec.file);
    return dbError('ERR_CONFIG_INVALID', 'sectionMissingKey', {
      file: run.resolver.fileLabel(spec.file),
      section,
      setting: spec.file.slice(section.length + 1),
      help: spec.help,
    });
  }
  const role = run.given.role;
  return dbError('ERR_CONFIG_INVALID', 'followerNeeds', {
    label: role?.label,
    title: spec.title,
    whereToSet: whereToSet(spec),
  });
}

/** Puts a value at a dotted path, making the objects on the way. */
function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = object;
  for (const part of parts.slice(0, -1)) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts.at(-1) as string] = value;
}

/** Resolves one setting that is in scope: its value, its source, its place in NodeConfig. */
function resolveSetting(run: Resolution, name: SettingName, spec: SettingSpec): void {
  const given = run.resolver.get(spec);
  const fallback =
    spec.defaultFrom === undefined
      ? (spec.default ?? spec.defaultOfMachine?.())
      : run.values[spec.defaultFrom as SettingName];
  const value = given?.value ?? fallback;
  if (value === undefined) {
    if (spec.required) throw missing(run, spec);
    // The node's own settings show as off in the log; absent optional parts of a section
    // are simply not there.
    if (spec.scope === 'node') run.sources[spec.config as SettingKey] = 'default';
    return;
  }
  if (given) run.given[name] = given;
  run.values[name] = value;
  run.sources[spec.config as SettingKey] = given?.source ?? 'default';
  setPath(run.config, spec.config, value);
}

/** How a port setting was named, for the "must differ" message. */
function portLabel(run: Resolution, name: SettingName): string {
  const given = run.given[name];
  if (given) return given.label;
  const spec = settingSpec(name);
  return name === 'port'
    ? `default ${defaultText(spec)}`
    : `${spec.title} (default ${defaultText(spec)})`;
}

/** Every port the node binds besides the HTTP port must differ from it. */
function requireOwnPorts(run: Resolution): void {
  for (const name of SETTING_NAMES) {
    const value = run.values[name];
    if (!settingSpec(name).ownPort || value === undefined || value !== run.values.port) continue;
    throw dbError('ERR_CONFIG_INVALID', 'replicationPortIsHttp', {
      replicationPort: portLabel(run, name),
      value,
      httpPort: portLabel(run, 'port'),
    });
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
 * errors naming the key path, and values must have the JSON type of their kind (a port is an
 * integer, not a string). Ports are integers 1–65535, and the ports the node binds for
 * replication must differ from the HTTP port. A follower needs a leader host and port; on a
 * leader only the role and the port are read. `security.tls.certPassword` of the form
 * `env:VAR_NAME` reads that variable. Paths are used as written (relative ones against the
 * working directory).
 *
 * Throws DbError ERR_CONFIG_INVALID naming the flag, variable or file key and the problem;
 * messages never contain a secret.
 */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const file = input.configPath === undefined ? new Map() : readConfigFile(input.configPath);
  const run: Resolution = {
    resolver: new Resolver(input, file),
    given: {},
    values: {},
    sources: {},
    config: {},
  };
  // Table order matters: a row's scope may depend on an earlier row (the role, the silence).
  for (const name of SETTING_NAMES) {
    const spec = settingSpec(name);
    if (inScope(run, spec)) resolveSetting(run, name, spec);
  }
  requireOwnPorts(run);
  requireCoordinated(run);
  run.sources.tls = file.has(TLS_SECTION) ? 'file' : (run.sources['tls.certPath'] ?? 'default');
  run.sources.replication =
    run.sources[
      run.values.coordinator === undefined ? 'replication.role' : 'replication.coordinator'
    ] ?? 'default';
  // Every row's config path is a field of NodeConfig (_everyConfigPathIsAField), and the
  // scopes keep each section whole.
  return { config: run.config as unknown as NodeConfig, sources: run.sources };
}

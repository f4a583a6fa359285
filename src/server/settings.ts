/**
 * The settings of `docdb serve`, declared once. Each row gives a setting's key in the config
 * file, its flag, its environment variable, the kind of value it takes, its default, where it
 * lands in NodeConfig, when it is read, and its help. The config file's shape and checks, the
 * resolution (config.ts), the options of `serve` (cli/commands.ts), the start-up log line
 * (node.ts) and the settings tables of the docs (settings-docs.ts) all derive from it. It
 * holds data and small pure helpers only; it reads nothing.
 */

/**
 * What a value is, and so how a flag, a variable or a file value is parsed and checked:
 * text (non-empty, no control characters), secret (non-empty; never shown), password (a
 * secret, or `env:VAR_NAME` naming the variable that holds it), port
 * (1–65535), seconds (1–AUTO_FAILOVER_SECONDS_MAX), role (leader or follower), host (a host
 * name or address, no URL), address (`host:port`, an IPv6 host in brackets), count (0–REPLICATION_FOLLOWERS_MAX), mebibytes
 * (1–CHANGE_LOG_RETAIN_MIB_MAX), boolean (a flag without a value; true or false in the file)
 * origin (a web origin, `http(s)://host[:port]`, as a browser sends it in `Origin`),
 * coordinatorUrl (`etcd://host:port[,host:port]`), setName (a replica set or member name, part
 * of an etcd key), leaseSeconds (LEASE_TTL_SECONDS_MIN–_MAX), milliseconds
 * (1–WRITE_STOP_MARGIN_MS_MAX) and processes (1–SERVE_PROCESSES_MAX).
 */
export type SettingKind =
  | 'text'
  | 'secret'
  | 'password'
  | 'port'
  | 'seconds'
  | 'role'
  | 'host'
  | 'address'
  | 'count'
  | 'mebibytes'
  | 'boolean'
  | 'origin'
  | 'pageCheck'
  | 'coordinatorUrl'
  | 'setName'
  | 'leaseSeconds'
  | 'milliseconds'
  | 'processes';

/**
 * When a setting is read. `node`: always. `tls`: when the config file has `security.tls` or
 * the certificate is given by flag or variable.
 * `replication`: when a replication role is set. `follower`: on a follower only (a leader
 * reads only the role and the port). `autoFailover`: on a follower with an auto-failover
 * silence. `coordinator`: when a coordinator is set (the replication settings are read then
 * too, the follower's and auto-failover's never). A setting written by flag or file while no
 * role (or coordinator) is set is an error; one written for auto-failover without its silence
 * is too.
 */
export type SettingScope =
  | 'node'
  | 'tls'
  | 'replication'
  | 'follower'
  | 'autoFailover'
  | 'coordinator';

/** One row of the table. */
export interface SettingSpec {
  /** A short name for messages: "the leader port is missing", "replication port (default 5500)". */
  readonly title: string;
  /** Key path in the config file, e.g. `security.tls.certPath`. */
  readonly file: string;
  /** The config file must set it. */
  readonly fileRequired?: true;
  /** The flag as commander declares it, with its value's placeholder: `--port <port>`. */
  readonly flag?: string;
  /** The environment variable that fills the setting when neither flag nor file sets it. */
  readonly env?: string;
  readonly kind: SettingKind;
  readonly scope: SettingScope;
  /** Key path in NodeConfig where the value lands, e.g. `replication.port`. */
  readonly config: string;
  /** The value when no source sets it. */
  readonly default?: string | number | boolean;
  /** The value when no source sets it depends on the machine (read when settings resolve). */
  readonly defaultOfMachine?: () => number;
  /** The value when no source sets it is another setting's (already resolved) value. */
  readonly defaultFrom?: string;
  /** How help and docs state the default when there is no plain default value. */
  readonly defaultText?: string;
  /** Its scope needs it: missing is an error naming where it can be given. */
  readonly required?: true;
  /** A port this node binds besides the HTTP port: it must differ from it. */
  readonly ownPort?: true;
  /** Its name in the start-up log line; settings without one are not shown there. */
  readonly log?: string;
  /** How the log line shows a value (default: as is; secrets as `set`). */
  readonly shown?: (value: unknown) => string;
  /** One line for `docdb serve --help` and the docs. */
  readonly help: string;
}

import { availableParallelism } from 'node:os';
import {
  CHANGE_LOG_RETAIN_BYTES,
  CHECKPOINT_BYTES,
  HTTP_HEADER_TIMEOUT_SECONDS_DEFAULT,
  HTTP_IDLE_TIMEOUT_SECONDS_DEFAULT,
  HTTP_REQUEST_TIMEOUT_SECONDS_DEFAULT,
  QUERY_TIMEOUT_SECONDS_DEFAULT,
  LEASE_TTL_SECONDS_DEFAULT,
  LEASE_TTL_SECONDS_MAX,
  LEASE_TTL_SECONDS_MIN,
  PORT_MAX,
  PORT_MIN,
  PORT_RANGE_TEXT,
  REPLICATION_FOLLOWERS_MAX,
  SERVE_PROCESSES_MAX,
} from '../util/index.js';

const MiB = 1024 * 1024;

/** The largest change log a node may be told to keep, in MiB (1 TiB). */
export const CHANGE_LOG_RETAIN_MIB_MAX = 1_048_576;

/**
 * Longest auto-failover silence: the largest delay a Node timer holds (2^31 - 1 ms), so the
 * follower's silence timer can always be armed with it.
 */
export const AUTO_FAILOVER_SECONDS_MAX = 2_147_483;

/**
 * The largest write-stop margin a setting may hold: half the longest lease TTL (the
 * coordinator then checks it against the TTL in force: at most half of it).
 */
export const WRITE_STOP_MARGIN_MS_MAX = (LEASE_TTL_SECONDS_MAX * 1000) / 2;

export {
  LEASE_TTL_SECONDS_MAX,
  LEASE_TTL_SECONDS_MIN,
  PORT_MAX,
  PORT_MIN,
  REPLICATION_FOLLOWERS_MAX,
  SERVE_PROCESSES_MAX,
};

/**
 * Every setting, in the order of help, docs and the log line. Adding a setting is adding a
 * row here (and its field in NodeConfig, and its use).
 */
export const SETTINGS = {
  nodeName: {
    title: 'node name',
    file: 'nodeName',
    fileRequired: true,
    flag: '--node-name <name>',
    env: 'DOCDB_NODE_NAME',
    kind: 'text',
    scope: 'node',
    config: 'nodeName',
    default: 'node-1',
    log: 'node',
    help: 'name in logs, health output and shard descriptors',
  },
  port: {
    title: 'HTTP port',
    file: 'port',
    fileRequired: true,
    flag: '--port <port>',
    env: 'DOCDB_PORT',
    kind: 'port',
    scope: 'node',
    config: 'port',
    default: 5000,
    log: 'port',
    help: 'HTTP port (HTTPS when TLS is configured)',
  },
  dataDir: {
    title: 'data directory',
    file: 'dataDir',
    fileRequired: true,
    flag: '--data-dir <dir>',
    env: 'DOCDB_DATA_DIR',
    kind: 'text',
    scope: 'node',
    config: 'dataDir',
    default: './data',
    log: 'dataDir',
    help: 'directory of the data file and its logs',
  },
  bindAll: {
    title: 'bind address',
    file: 'bindAllInterfaces',
    flag: '--bind-all',
    kind: 'boolean',
    scope: 'node',
    config: 'bindAll',
    default: false,
    defaultText: 'loopback only',
    log: 'bind',
    shown: (value) => (value ? '0.0.0.0' : '127.0.0.1'),
    help: 'listen on all interfaces (0.0.0.0) instead of 127.0.0.1; for trusted networks only',
  },
  apiKey: {
    title: 'API key',
    file: 'security.apiKey',
    flag: '--api-key <key>',
    env: 'DOCDB_API_KEY',
    kind: 'secret',
    scope: 'node',
    config: 'apiKey',
    defaultText: 'off',
    log: 'apiKey',
    help: 'require Authorization: Bearer <key> on every request but GET /health',
  },
  // The admin UI built with NEXT_PUBLIC_DOCDB_URL runs on another origin than the node's.
  corsOrigin: {
    title: 'CORS origin',
    file: 'cors.origin',
    flag: '--cors-origin <origin>',
    env: 'DOCDB_CORS_ORIGIN',
    kind: 'origin',
    scope: 'node',
    config: 'corsOrigin',
    defaultText: 'off',
    log: 'cors',
    help:
      'let pages of this origin (http(s)://host[:port]) call the API from a browser, e.g. an ' +
      'admin UI served elsewhere; requests still need the API key when one is set',
  },
  changeLogRetainMiB: {
    title: 'change log size',
    file: 'changeLog.retainMiB',
    flag: '--change-log-retain-mib <MiB>',
    env: 'DOCDB_CHANGE_LOG_RETAIN_MIB',
    kind: 'mebibytes',
    scope: 'node',
    config: 'changeLogRetainMiB',
    default: CHANGE_LOG_RETAIN_BYTES / MiB,
    help:
      'MiB of change log the node keeps; a follower further behind catches up from a snapshot ' +
      '(followers connected hold up to 4 times this)',
  },
  // Beyond the spec: LMDB trusts its pages, so a damaged one could crash the node on a read.
  pageCheck: {
    title: 'page check',
    file: 'storage.pageCheck',
    flag: '--page-check <when>',
    env: 'DOCDB_PAGE_CHECK',
    kind: 'pageCheck',
    scope: 'node',
    config: 'pageCheck',
    default: 'open',
    help:
      'open: walk every page of the data file before serving it and refuse a damaged file ' +
      '(about 1 s per 450 MB); off: start without the walk',
  },
  // Beyond the spec (issue 14): lmdb-js grows its map on its own, so a cap is a setting.
  maxFileMiB: {
    title: 'data file size cap',
    file: 'storage.maxFileMiB',
    flag: '--max-file-mib <MiB>',
    env: 'DOCDB_MAX_FILE_MIB',
    kind: 'mebibytes',
    scope: 'node',
    config: 'maxFileMiB',
    defaultText: 'no cap',
    log: 'maxFileMiB',
    help:
      'MiB the data file may hold: past it a write is refused with 507 ERR_STORAGE_FULL while ' +
      'reads go on; deletes still go through and their space is used again (the change log ' +
      'counts too: keep its size well below this)',
  },
  // Beyond the spec (issue 22): the write-ahead log's checkpoints bound what an open replays.
  checkpointMiB: {
    title: 'checkpoint interval',
    file: 'storage.checkpointMiB',
    flag: '--checkpoint-mib <MiB>',
    env: 'DOCDB_CHECKPOINT_MIB',
    kind: 'mebibytes',
    scope: 'node',
    config: 'checkpointMiB',
    default: CHECKPOINT_BYTES / MiB,
    help:
      'MiB the write-ahead log (or the data file) may grow by before the next checkpoint ' +
      'flushes the data file: what an open after a crash applies again at most (about a ' +
      'second per 30 MiB); a quarter of the free room instead on a disk with less than four ' +
      'times this free',
  },
  // Beyond the spec: how long a slow or silent client may hold a connection.
  idleTimeoutSeconds: {
    title: 'idle timeout',
    file: 'http.idleTimeoutSeconds',
    flag: '--idle-timeout-seconds <seconds>',
    env: 'DOCDB_IDLE_TIMEOUT_SECONDS',
    kind: 'seconds',
    scope: 'node',
    config: 'idleTimeoutSeconds',
    default: HTTP_IDLE_TIMEOUT_SECONDS_DEFAULT,
    help:
      'close a connection on which no byte moved either way for this long when it has no ' +
      'request, or when its client stopped reading the answer (a request still being worked ' +
      'on is not cut)',
  },
  headerTimeoutSeconds: {
    title: 'header timeout',
    file: 'http.headerTimeoutSeconds',
    flag: '--header-timeout-seconds <seconds>',
    env: 'DOCDB_HEADER_TIMEOUT_SECONDS',
    kind: 'seconds',
    scope: 'node',
    config: 'headerTimeoutSeconds',
    default: HTTP_HEADER_TIMEOUT_SECONDS_DEFAULT,
    help:
      'close a connection whose request headers are not complete this long after it opened ' +
      'or after its previous request (at most the request timeout)',
  },
  requestTimeoutSeconds: {
    title: 'request timeout',
    file: 'http.requestTimeoutSeconds',
    flag: '--request-timeout-seconds <seconds>',
    env: 'DOCDB_REQUEST_TIMEOUT_SECONDS',
    kind: 'seconds',
    scope: 'node',
    config: 'requestTimeoutSeconds',
    default: HTTP_REQUEST_TIMEOUT_SECONDS_DEFAULT,
    help: 'answer 408 and close when a request (headers and body) is not received within this long',
  },
  // Beyond the spec: how long one SELECT may hold a process (sql/executor/budget.ts).
  queryTimeoutSeconds: {
    title: 'query timeout',
    file: 'query.timeoutSeconds',
    flag: '--query-timeout-seconds <seconds>',
    env: 'DOCDB_QUERY_TIMEOUT_SECONDS',
    kind: 'seconds',
    scope: 'node',
    config: 'queryTimeoutSeconds',
    default: QUERY_TIMEOUT_SECONDS_DEFAULT,
    log: 'queryTimeout',
    shown: (value) => `${value}s`,
    help:
      'stop a SELECT that runs longer than this with ERR_QUERY_TIMEOUT (503): while it reads, ' +
      'its process answers nothing else (a stream is timed until its first line, not while ' +
      'the client reads it)',
  },
  // Beyond the spec (issue 25): reads served by every core (server/readers.ts).
  serveProcesses: {
    title: 'serve processes',
    file: 'http.serveProcesses',
    flag: '--serve-processes <count>',
    env: 'DOCDB_SERVE_PROCESSES',
    kind: 'processes',
    scope: 'node',
    config: 'serveProcesses',
    defaultOfMachine: availableParallelism,
    defaultText: 'the cores (`os.availableParallelism()`)',
    log: 'processes',
    help:
      'processes that accept connections: each serves the document reads (GET of a ' +
      'document, a page, by key) and the /query SELECTs read through an index or of a whole ' +
      'collection from the data file and passes everything else (writes, other statements, admin, the change feed) ' +
      'to the first, the one writer, which also keeps each connection whose first request ' +
      'is not one of those (1: a single process, which can serve faster where busy ' +
      "clients run on the node's own few cores)",
  },
  logArchiveDir: {
    title: 'log archive directory',
    file: 'backup.logArchiveDir',
    flag: '--log-archive-dir <dir>',
    env: 'DOCDB_LOG_ARCHIVE_DIR',
    kind: 'text',
    scope: 'node',
    config: 'backup.logArchiveDir',
    defaultText: 'off',
    log: 'logArchive',
    help:
      'directory the node copies its change log to, in NDJSON segments, as it commits: what ' +
      'point-in-time recovery replays after a backup (docs/backup.md)',
  },
  replicationSecret: {
    title: 'replication secret',
    file: 'security.replicationSecret',
    flag: '--replication-secret <secret>',
    env: 'DOCDB_REPLICATION_SECRET',
    kind: 'secret',
    scope: 'node',
    config: 'replicationSecret',
    defaultText: 'off',
    help: 'shared secret the replication handshake enforces',
  },
  certPath: {
    title: 'certificate file',
    file: 'security.tls.certPath',
    flag: '--tls-cert <file>',
    env: 'DOCDB_TLS_CERT',
    kind: 'text',
    scope: 'tls',
    config: 'tls.certPath',
    required: true,
    defaultText: 'no TLS',
    log: 'tls',
    shown: () => 'on',
    help:
      'TLS certificate: a .pfx/.p12 file, or a PEM file with the certificate chain (and the ' +
      'private key, unless the key file is given); the port then serves HTTPS only',
  },
  // A PEM chain and its key often live in two files (certbot's fullchain.pem, privkey.pem).
  keyPath: {
    title: 'private key file',
    file: 'security.tls.keyPath',
    flag: '--tls-key <file>',
    env: 'DOCDB_TLS_KEY',
    kind: 'text',
    scope: 'tls',
    config: 'tls.keyPath',
    defaultText: 'in the certificate file',
    help: 'PEM private key of a PEM certificate that holds only the chain',
  },
  certPassword: {
    title: 'certificate password',
    file: 'security.tls.certPassword',
    flag: '--tls-cert-password <password>',
    env: 'DOCDB_TLS_CERT_PASSWORD',
    kind: 'password',
    scope: 'tls',
    config: 'tls.certPassword',
    defaultText: 'none',
    help: 'unlocks the certificate; env:VAR_NAME reads it from that environment variable',
  },
  role: {
    title: 'replication role',
    file: 'replication.role',
    flag: '--replication-role <role>',
    env: 'DOCDB_REPLICATION_ROLE',
    kind: 'role',
    scope: 'node',
    config: 'replication.role',
    defaultText: 'off',
    log: 'replication',
    help: 'leader or follower; omitted means a single node',
  },
  // Issue 24: leadership by an etcd lease. Read before the replication rows, whose scope
  // it widens (a coordinated node has no role but leads or follows all the same).
  coordinator: {
    title: 'coordinator',
    file: 'replication.coordinator',
    flag: '--coordinator <url>',
    env: 'DOCDB_COORDINATOR',
    kind: 'coordinatorUrl',
    scope: 'node',
    config: 'replication.coordinator',
    defaultText: 'off',
    log: 'coordinator',
    help:
      'etcd to take leadership from (etcd://host:port[,host:port]): the node joins its replica ' +
      'set there, leads while it holds the lease and follows whoever holds it otherwise; ' +
      'no role, leader host or auto-failover with it',
  },
  replicaSet: {
    title: 'replica set',
    file: 'replication.replicaSet',
    flag: '--replica-set <name>',
    env: 'DOCDB_REPLICA_SET',
    kind: 'setName',
    scope: 'coordinator',
    config: 'replication.replicaSet',
    required: true,
    defaultText: 'none',
    log: 'replicaSet',
    help: 'with a coordinator: the replica set this node is a member of (its etcd keys)',
  },
  leaseSeconds: {
    title: 'coordinator lease TTL',
    file: 'replication.leaseSeconds',
    flag: '--coordinator-lease-seconds <seconds>',
    env: 'DOCDB_COORDINATOR_LEASE_SECONDS',
    kind: 'leaseSeconds',
    scope: 'coordinator',
    config: 'replication.leaseSeconds',
    default: LEASE_TTL_SECONDS_DEFAULT,
    help:
      "with a coordinator: the leader lease's TTL; a dead leader's set has a new one within " +
      'about this long',
  },
  writeStopMarginMs: {
    title: 'write-stop margin',
    file: 'replication.writeStopMarginMs',
    flag: '--write-stop-margin-ms <ms>',
    env: 'DOCDB_WRITE_STOP_MARGIN_MS',
    kind: 'milliseconds',
    scope: 'coordinator',
    config: 'replication.writeStopMarginMs',
    defaultText: 'max(1000, a quarter of the lease TTL)',
    help:
      'with a coordinator: a leader that could not renew its lease stops acknowledging writes ' +
      'this long before etcd may expire it (at most half the TTL)',
  },
  replicationPort: {
    title: 'replication port',
    file: 'replication.port',
    flag: '--replication-port <port>',
    env: 'DOCDB_REPLICATION_PORT',
    kind: 'port',
    scope: 'replication',
    config: 'replication.port',
    default: 5500,
    ownPort: true,
    help:
      'leader (or a coordinated node): port of the replication listener; must differ from the ' +
      'HTTP port',
  },
  // Beyond the spec (DESIGN §6): durable replication.
  syncFollowers: {
    title: 'sync followers',
    file: 'replication.syncFollowers',
    flag: '--sync-followers <count>',
    env: 'DOCDB_SYNC_FOLLOWERS',
    kind: 'count',
    scope: 'replication',
    config: 'replication.syncFollowers',
    default: 0,
    log: 'syncFollowers',
    help:
      'leader: acknowledge a write only once this many followers applied it, so a failover ' +
      'loses no acknowledged write (0: at once)',
  },
  syncTimeoutSeconds: {
    title: 'sync timeout',
    file: 'replication.syncTimeoutSeconds',
    flag: '--sync-timeout-seconds <seconds>',
    env: 'DOCDB_SYNC_TIMEOUT_SECONDS',
    kind: 'seconds',
    scope: 'replication',
    config: 'replication.syncTimeoutSeconds',
    default: 10,
    help:
      'leader with sync followers: how long a write waits for them before it answers 503 ' +
      '(the write is committed on the leader)',
  },
  // Beyond the spec (issue 21): partitions.
  advertiseAddress: {
    title: 'replication advertise address',
    file: 'replication.advertiseAddress',
    flag: '--replication-advertise-address <host:port>',
    env: 'DOCDB_REPLICATION_ADVERTISE_ADDRESS',
    kind: 'address',
    scope: 'replication',
    config: 'replication.advertiseAddress',
    defaultText: 'the address the other node sees, with the replication port',
    help:
      "where other nodes reach this node's replication listener; a promoted node tells it to the " +
      'node it replaced, which follows it there',
  },
  autoRejoin: {
    title: 'auto-rejoin',
    file: 'replication.autoRejoin',
    flag: '--auto-rejoin',
    env: 'DOCDB_AUTO_REJOIN',
    kind: 'boolean',
    scope: 'replication',
    config: 'replication.autoRejoin',
    default: false,
    log: 'autoRejoin',
    help:
      'a leader that a newer leader fences (after a partition) follows that leader by itself, ' +
      'rolling back what it never had',
  },
  leaderHost: {
    title: 'the leader host',
    file: 'replication.leaderHost',
    flag: '--leader-host <host>',
    env: 'DOCDB_LEADER_HOST',
    kind: 'host',
    scope: 'follower',
    config: 'replication.leaderHost',
    required: true,
    defaultText: 'none',
    help: 'follower: host name or address of the leader',
  },
  leaderPort: {
    title: 'the leader port',
    file: 'replication.leaderPort',
    flag: '--leader-port <port>',
    env: 'DOCDB_LEADER_PORT',
    kind: 'port',
    scope: 'follower',
    config: 'replication.leaderPort',
    required: true,
    defaultText: 'none',
    help: 'follower: replication port on the leader',
  },
  silenceSeconds: {
    title: 'auto-failover silence',
    file: 'replication.autoFailover.silenceSeconds',
    flag: '--auto-failover-seconds <seconds>',
    env: 'DOCDB_AUTO_FAILOVER_SECONDS',
    kind: 'seconds',
    scope: 'follower',
    config: 'replication.autoFailover.silenceSeconds',
    defaultText: 'off',
    help: 'follower: promote itself once the leader has been silent this many seconds',
  },
  // The spec gives every serve flag but --config and --bind-all a variable; its table leaves
  // this one out, so it follows the naming of the others.
  newLeaderPort: {
    title: 'auto-failover new leader port',
    file: 'replication.autoFailover.newLeaderPort',
    flag: '--auto-failover-new-port <port>',
    env: 'DOCDB_AUTO_FAILOVER_NEW_PORT',
    kind: 'port',
    scope: 'autoFailover',
    config: 'replication.autoFailover.newLeaderPort',
    defaultFrom: 'leaderPort',
    defaultText: 'the leader port',
    ownPort: true,
    help: 'follower: port to bind as leader once promoted',
  },
} as const satisfies Record<string, SettingSpec>;

/** The `--config` flag of `serve`: not a setting itself, but the file the settings come from. */
export const CONFIG_FLAG = {
  flag: '--config <file>',
  help: 'node config file (JSON); flags override it',
} as const;

/** The name of a setting: a key of SETTINGS. */
export type SettingName = keyof typeof SETTINGS;

/** The settings as rows, in table order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** A row by name, typed as the general row (for code that treats every row alike). */
export function settingSpec(name: SettingName): SettingSpec {
  return SETTINGS[name];
}

type Table = typeof SETTINGS;
type FlagName<F> = F extends `--${infer Name} <${string}>`
  ? Name
  : F extends `--${infer Name}`
    ? Name
    : never;
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;

/**
 * Flag values as commander hands them over, keyed by commander's attribute name
 * (`--node-name` → `nodeName`): text, parsed and checked by the resolver so that a flag, a
 * variable and a file key get the same rules and errors. A boolean flag is true when given.
 */
export type ServeFlags = {
  [N in SettingName as Table[N] extends { flag: string }
    ? Camel<FlagName<Table[N]['flag']>>
    : never]?: Table[N]['kind'] extends 'boolean' ? boolean : string;
};

/** The flag itself, without its value placeholder: `--port`. */
export function flagName(spec: SettingSpec): string | undefined {
  return spec.flag?.split(' ')[0];
}

/** The key commander stores a flag's value under: `--auto-failover-new-port` → `autoFailoverNewPort`. */
export function flagKey(spec: SettingSpec): keyof ServeFlags | undefined {
  const name = flagName(spec);
  if (name === undefined) return undefined;
  return name
    .slice(2)
    .replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as keyof ServeFlags;
}

/**
 * Where a setting can be given, for messages: "--leader-host, DOCDB_LEADER_HOST or
 * replication.leaderHost in the config file".
 */
export function whereToSet(spec: SettingSpec): string {
  const places = [flagName(spec), spec.env, `${spec.file} in the config file`].filter(
    (place) => place !== undefined,
  );
  return places.length < 2
    ? places.join('')
    : `${places.slice(0, -1).join(', ')} or ${places.at(-1)}`;
}

/** The default as help and docs state it: the plain value, or the row's words for it. */
export function defaultText(spec: SettingSpec): string | undefined {
  return spec.defaultText ?? (spec.default === undefined ? undefined : String(spec.default));
}

/** The accepted values of a kind, in words (docs, messages). */
export function describeKind(kind: SettingKind): string {
  switch (kind) {
    case 'text':
      return 'text without control characters';
    case 'secret':
      return 'text (never shown)';
    case 'password':
      return 'text, or env:VAR_NAME to read it from that variable';
    case 'port':
      return PORT_RANGE_TEXT;
    case 'seconds':
      return `a whole number of seconds from 1 to ${AUTO_FAILOVER_SECONDS_MAX}`;
    case 'role':
      return 'leader or follower';
    case 'host':
      return 'a host name or address (no URL)';
    case 'address':
      return 'host:port (an IPv6 host in brackets)';
    case 'count':
      return `an integer from 0 to ${REPLICATION_FOLLOWERS_MAX}`;
    case 'processes':
      return `an integer from 1 to ${SERVE_PROCESSES_MAX}`;
    case 'mebibytes':
      return `a whole number of MiB from 1 to ${CHANGE_LOG_RETAIN_MIB_MAX}`;
    case 'boolean':
      return 'true or false';
    case 'origin':
      return 'a web origin, http(s)://host[:port] without a path';
    case 'pageCheck':
      return 'open or off';
    case 'coordinatorUrl':
      return 'etcd://host:port, or several hosts of one etcd cluster joined by commas';
    case 'setName':
      return "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit";
    case 'leaseSeconds':
      return `a whole number of seconds from ${LEASE_TTL_SECONDS_MIN} to ${LEASE_TTL_SECONDS_MAX}`;
    case 'milliseconds':
      return `a whole number of milliseconds from 1 to ${WRITE_STOP_MARGIN_MS_MAX}`;
  }
}

/** The shape of the config file: a branch maps its keys, a leaf is `true`. */
export type FileShape = { readonly [key: string]: FileShape | true };

/** The config file's shape, built from the rows' file keys. */
export function fileShape(): FileShape {
  const shape: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const parts = settingSpec(name).file.split('.');
    let node = shape;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1) as string] = true;
  }
  return shape as FileShape;
}

/** The defaults as values, by setting (for code that needs one, e.g. the serve help). */
export const NODE_DEFAULTS = {
  nodeName: SETTINGS.nodeName.default,
  port: SETTINGS.port.default,
  dataDir: SETTINGS.dataDir.default,
  bindAll: SETTINGS.bindAll.default,
  replicationPort: SETTINGS.replicationPort.default,
} as const;

/**
 * Set in a reader process's environment. The single-file binary runs its CLI whatever module
 * a fork names; the CLI sees this and runs the reader instead (cli/main.ts), which
 * imports it from here because this module is plain data.
 */
export const READER_PROCESS_ENV = 'DOCDB_SERVE_READER';

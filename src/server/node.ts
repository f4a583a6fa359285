/**
 * Runs a node: opens the data directory, builds the app, listens (HTTPS when TLS is set),
 * starts its reader processes on the same socket (`serveProcesses`, readers.ts), logs one
 * start-up line with the effective settings and their sources (never secrets), and shuts down
 * gracefully on SIGINT/SIGTERM: stop the readers, stop accepting, finish in-flight requests,
 * flush, close the file.
 */

import * as fs from 'node:fs';
import type { RequestListener } from 'node:http';
import * as os from 'node:os';
import { createSecureContext } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { type Database, open } from '../engine/index.js';
import { CALL_TIMEOUT_MS_DEFAULT, Coordinator, writeStopMarginMs } from '../coordinator/index.js';
import { dbError } from '../errors/index.js';
import { Replication, type ReplicationLog } from '../replication/index.js';
import { buildApp, metricsOf, requestsInFlight } from './app.js';
import type { SettingKey } from './config.js';
import { listenQuietly } from './listen.js';
import { type LogArchive, startLogArchive } from './log-archive.js';
import type { NodeConfig, ReplicationSettings, SettingSource } from './node-config.js';
import { type NodeStatus, newNodeStatus } from './node-status.js';
import { Readers } from './readers.js';
import { replicationPort } from './replication-port.js';
import { removeStaleBackupCopies } from './routes/admin.js';
import { endChangeFeeds } from './routes/changes.js';
import {
  flagName,
  SETTING_NAMES,
  SETTINGS,
  type SettingSpec,
  settingSpec,
  whereToSet,
} from './settings.js';

/** A running node. */
export interface RunningNode {
  app: FastifyInstance;
  db: Database;
  status: NodeStatus;
  replication: Replication;
  /** The address it listens on, e.g. https://127.0.0.1:5000. */
  url: string;
  /** The change-log archive, when `backup.logArchiveDir` is set. */
  archive: LogArchive | undefined;
  /** The reader processes, when the node serves from more than one (`serveProcesses`). */
  readers: Readers | undefined;
  /** Stops accepting, finishes in-flight requests, flushes and closes the data file. */
  close(): Promise<void>;
}

/** Options of startNode. */
export interface StartOptions {
  /** Where each setting came from, for the start-up log line. */
  sources?: Partial<Record<SettingKey, SettingSource>>;
  /** Log to stdout (default true; tests may turn it off). */
  log?: boolean;
  /** Install SIGINT/SIGTERM handlers that close the node and exit (default true). */
  handleSignals?: boolean;
}

/** A TLS file's bytes; a file that cannot be read names its setting. */
function readTlsFile(file: string, spec: SettingSpec): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw dbError('ERR_CONFIG_INVALID', 'tlsFileUnreadable', {
      title: spec.title,
      whereToSet: whereToSet(spec),
      file,
      code: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
    });
  }
}

function tlsOptions(config: NodeConfig): { https: Record<string, unknown> } | undefined {
  if (!config.tls) return undefined;
  const { certPath, keyPath, certPassword } = config.tls;
  const pkcs12 = /\.(pfx|p12)$/i.test(certPath);
  if (pkcs12 && keyPath !== undefined) {
    throw dbError('ERR_CONFIG_INVALID', 'keyWithPkcs12', {
      title: SETTINGS.keyPath.title,
      whereToSet: whereToSet(SETTINGS.keyPath),
      certPath,
    });
  }
  const content = readTlsFile(certPath, SETTINGS.certPath);
  const key = keyPath === undefined ? content : readTlsFile(keyPath, SETTINGS.keyPath);
  const passphrase = certPassword === undefined ? {} : { passphrase: certPassword };
  const https = pkcs12
    ? { pfx: content, ...passphrase }
    : // A PEM file holds the chain and the key, unless the key has a file of its own.
      { cert: content, key, ...passphrase };
  try {
    // Build the context now, so a bad file or password fails here with a clear message.
    createSecureContext(https);
  } catch (error) {
    throw dbError('ERR_CONFIG_INVALID', 'tlsUnusable', {
      certPath,
      withKey: keyPath === undefined ? '' : ` with the key ${keyPath}`,
      cause: (error as Error).message,
      certFlag: flagName(SETTINGS.certPath),
      keyFlag: flagName(SETTINGS.keyPath),
      passwordFlag: flagName(SETTINGS.certPassword),
    });
  }
  return { https };
}

/** The value at a dotted path of the config (`replication.role`), or undefined. */
function valueAt(config: NodeConfig, path: string): unknown {
  let value: unknown = config;
  for (const part of path.split('.'))
    value = (value as Record<string, unknown> | undefined)?.[part];
  return value;
}

/**
 * Describes the effective settings for the log: every setting the table gives a log name, in
 * table order, with its source when known. Secrets show as `set` or `off`, never their value.
 * Adding a `log` name to a row adds it here.
 */
export function describeSettings(
  config: NodeConfig,
  sources: Partial<Record<SettingKey, SettingSource>> = {},
): string {
  const parts: string[] = [];
  for (const spec of SETTING_NAMES.map(settingSpec)) {
    if (spec.log === undefined) continue;
    const value = valueAt(config, spec.config);
    const secret = spec.kind === 'secret' || spec.kind === 'password';
    // A coordinated node has no role of its own: the coordinator gives it (issue 24).
    const off =
      spec === SETTINGS.role && config.replication?.coordinator !== undefined
        ? 'coordinated'
        : 'off';
    const shown =
      value === undefined ? off : secret ? 'set' : (spec.shown?.(value) ?? String(value));
    // A setting of a section that is off (no TLS) reports the section's source.
    const section = spec.config.split('.')[0] as SettingKey;
    const source = sources[spec.config as SettingKey] ?? sources[section];
    parts.push(`${spec.log}=${shown}${source ? ` (${source})` : ''}`);
  }
  return parts.join(' ');
}

/**
 * The data directory is created when missing; a regular file in its place is a setting to
 * correct, not an EEXIST from deep in the storage layer (issue 23, mend 11). A path ending in
 * `.docdb` names the data file itself.
 */
function requireDataDirectory(dataDir: string): void {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dataDir, { throwIfNoEntry: false });
  } catch {
    return; // a path the open cannot make either: it says why (ERR_STORAGE_NOT_FOUND)
  }
  if (stat === undefined || stat.isDirectory() || dataDir.endsWith('.docdb')) return;
  throw dbError('ERR_CONFIG_INVALID', 'dataDirIsFile', {
    dataDir,
    whereToSet: whereToSet(SETTINGS.dataDir),
  });
}

/** The query timeout every process of the node runs its SELECTs with. */
function queryTimeoutMs(config: NodeConfig): number | undefined {
  const seconds = config.queryTimeoutSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}

/** Starts a node with resolved settings. Rejects with a DbError naming what is wrong. */
export async function startNode(
  config: NodeConfig,
  options: StartOptions = {},
): Promise<RunningNode> {
  const https = tlsOptions(config);
  requireDataDirectory(config.dataDir);
  const db = await open(config.dataDir, {
    name: config.nodeName,
    changeLogRetainBytes: config.changeLogRetainMiB * 1024 * 1024,
    pageCheck: config.pageCheck,
    checkpointBytes: config.checkpointMiB * 1024 * 1024,
    queryTimeoutMs: queryTimeoutMs(config),
    ...(config.maxFileMiB === undefined ? {} : { maxFileBytes: config.maxFileMiB * 1024 * 1024 }),
  });
  removeStaleBackupCopies(db.file);
  const status = newNodeStatus();
  const log = options.log !== false;
  const url = `${https ? 'https' : 'http'}://${bindAddress(config)}:${config.port}`;
  // The app's logger exists only once the app does; replication logs through it from then on.
  let logTo: ReplicationLog | undefined;
  const replication = new Replication({
    port: replicationPort(db),
    nodeName: config.nodeName,
    httpPort: config.port,
    // Followers name this address in their 503s: on all interfaces, the machine's name says
    // more to a client than 0.0.0.0 does.
    httpUrl: config.bindAll ? `${https ? 'https' : 'http'}://${os.hostname()}:${config.port}` : url,
    bindAll: config.bindAll,
    secret: config.replicationSecret,
    tls: https?.https as never,
    syncFollowers: config.replication?.syncFollowers ?? 0,
    syncTimeoutMs: (config.replication?.syncTimeoutSeconds ?? 10) * 1000,
    advertiseAddress: config.replication?.advertiseAddress,
    autoRejoin: config.replication?.autoRejoin === true,
    log: {
      info: (message) => logTo?.info(message),
      warn: (message) => logTo?.warn(message),
      error: (message) => logTo?.error(message),
    },
  });
  const timeouts = {
    idleSeconds: config.idleTimeoutSeconds,
    headerSeconds: config.headerTimeoutSeconds,
    requestSeconds: config.requestTimeoutSeconds,
  };
  let app: FastifyInstance;
  try {
    app = buildApp(db, {
      timeouts,
      apiKey: config.apiKey,
      corsOrigin: config.corsOrigin,
      status,
      replication,
      logger: log ? { level: 'info' } : false,
      ...(https && { https: https as never }),
    });
    logTo = {
      info: (message) => app.log.info(message),
      warn: (message) => app.log.warn(message),
      error: (message) => app.log.error(message),
    };
    // Listening comes before replication knows the node's role: until it does, writes wait.
    if (config.replication) db.gate.setStarting(true);
    await listenQuietly(app, { port: config.port, host: bindAddress(config) });
  } catch (error) {
    await db.close();
    throw listenError(error, config);
  }
  let archive: LogArchive | undefined;
  let readers: Readers | undefined;
  try {
    const processes = config.serveProcesses ?? 1;
    if (processes > 1) {
      readers = await startReaders(app, db, config, {
        count: processes - 1,
        timeouts,
        https: https as never,
        log,
      });
    }
    const archiveDir = config.backup?.logArchiveDir;
    if (archiveDir !== undefined) {
      archive = startLogArchive(db.store, archiveDir, {
        warn: (message) => app.log.warn(message),
        error: (message) => app.log.error(message),
      });
    }
    if (config.replication) await startReplication(replication, config.replication);
    db.gate.setStarting(false);
  } catch (error) {
    await readers?.close();
    await archive?.close();
    await replication.close();
    await app.close();
    await db.close();
    throw error;
  }
  // The line scripts wait for: the node serves, in the replication role it was given.
  app.log.info(`docdb node listening on ${url}; ${describeSettings(config, options.sources)}`);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // No new connection from now on (refused; Fastify's close below finds the server
      // closed already, which it allows). The readers stop first, finishing their requests,
      // and what they passed on is answered by this app, which closes after them. The change
      // feeds end first (a live feed never ends by itself), those passed through readers too.
      app.server.close();
      app.server.closeIdleConnections();
      if (readers) {
        endChangeFeeds(app);
        await readers.close();
      }
      await replication.close();
      await app.close();
      await db.flush();
      // Every committed entry reaches the archive before the file closes.
      await archive?.caughtUp();
      await archive?.close();
      await db.close();
    })();
    return closing;
  };
  if (options.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      app.log.info(
        `${signal}: stopping with ${requestsInFlight(app)} requests in flight (finishing them, then flushing)`,
      );
      close().then(
        () => {
          app.log.info('stopped: every request answered, data flushed and closed');
          process.exit(0);
        },
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  return { app, db, status, replication, url, archive, readers, close };
}

/**
 * Starts the node's reader processes on its listening socket (readers.ts): they answer the
 * document reads, pass the rest to `app`, and their request counts join its `/metrics`.
 */
async function startReaders(
  app: FastifyInstance,
  db: Database,
  config: NodeConfig,
  options: {
    count: number;
    timeouts: { idleSeconds: number; headerSeconds: number; requestSeconds: number };
    https: { https: Record<string, unknown> } | undefined;
    log: boolean;
  },
): Promise<Readers> {
  const [answer] = app.server.listeners('request') as RequestListener[];
  if (!answer) throw new Error('the node app has no request listener');
  const readers = await Readers.start({
    count: options.count,
    listening: app.server,
    answer,
    // The wire's Upgrades (server/wire.ts) that reach a reader are served here.
    upgrade: (request, socket, head) => app.server.emit('upgrade', request, socket, head),
    start: {
      file: db.file,
      nodeName: config.nodeName,
      apiKey: config.apiKey,
      corsOrigin: config.corsOrigin,
      timeouts: options.timeouts,
      queryTimeoutMs: queryTimeoutMs(config),
      https: options.https as never,
      log: options.log,
    },
    log: {
      info: (message) => app.log.info(message),
      warn: (message) => app.log.warn(message),
      error: (message) => app.log.error(message),
    },
  });
  metricsOf(app)?.sumWith(() => readers.metrics());
  return readers;
}

/**
 * Leads or follows as the settings say: with a coordinator, by its lease (issue 24);
 * otherwise in the role given.
 */
async function startReplication(
  replication: Replication,
  settings: ReplicationSettings,
): Promise<void> {
  const { coordinator: url, replicaSet, role } = settings;
  if (url !== undefined && replicaSet !== undefined) {
    const coordinator = await Coordinator.open(url, coordinatorTiming(settings));
    await replication.startCoordinated({ coordinator, replicaSet, port: settings.port });
  } else if (role !== undefined) {
    await replication.startFromSettings({ ...settings, role });
  }
}

/**
 * The coordinator's timing from the settings. Each etcd call may take at most half the time
 * a lease stays valid (TTL − margin), and CALL_TIMEOUT_MS_DEFAULT at most, so a short TTL's
 * renewal that gets no answer still leaves time for the next one.
 */
function coordinatorTiming(settings: ReplicationSettings): {
  ttlSeconds: number;
  marginMs: number;
  callTimeoutMs: number;
} {
  const ttlSeconds = settings.leaseSeconds ?? SETTINGS.leaseSeconds.default;
  const marginMs = settings.writeStopMarginMs ?? writeStopMarginMs(ttlSeconds);
  const validMs = ttlSeconds * 1000 - marginMs;
  return {
    ttlSeconds,
    marginMs,
    callTimeoutMs: Math.min(CALL_TIMEOUT_MS_DEFAULT, Math.floor(validMs / 2)),
  };
}

/** The address the node listens on, as the log line shows it. */
function bindAddress(config: NodeConfig): string {
  return SETTINGS.bindAll.shown(config.bindAll);
}

function listenError(error: unknown, config: NodeConfig): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return dbError('ERR_CONFIG_INVALID', 'portInUse', {
      port: config.port,
      whereToSet: whereToSet(SETTINGS.port),
    });
  }
  if (code === 'EACCES') {
    return dbError('ERR_CONFIG_INVALID', 'portPrivileged', { port: config.port });
  }
  return error;
}

/**
 * `docdb router --config <cluster.json> [--port N] [--bind-all]`: serves the node REST API
 * over the shards of a cluster.json (DESIGN §7, ADR 0014). The port is `router.port` from the
 * file unless `--port`; it binds 127.0.0.1 unless `--bind-all`; it logs one start line, follows
 * changes to the file (a new topology serves new requests within a second), and stops
 * gracefully on SIGINT/SIGTERM (requests in flight are answered first).
 */

import { ReloadingRouter, readClusterConfig } from '../cluster/index.js';
import { dbError } from '../errors/index.js';
import { buildRouterApp, listenQuietly } from '../server/index.js';

interface RouterFlags {
  config: string;
  port?: number;
  bindAll?: boolean;
  followerReadLagMs?: number;
}

/** Starts the router; resolves once it listens, with its URL and a close function. */
export async function startRouter(
  flags: RouterFlags,
  options: { handleSignals?: boolean } = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  const config = await readClusterConfig(flags.config);
  // The app's logger exists only once the app does; the reload events reach it through this.
  let log: { info(message: string): void; error(message: string): void } = console;
  const router = new ReloadingRouter(
    flags.config,
    config,
    {
      reloaded: (next, previous) => {
        const ignored =
          next.router.port !== previous.router.port ? ' (router.port changes need a restart)' : '';
        log.info(
          `${flags.config} changed: now ${next.shards.length} shards (${next.shards.map((s) => s.name).join(', ')}), ${Object.keys(next.collections).length} collections${ignored}`,
        );
      },
      refused: (error) =>
        log.error(
          `${flags.config} changed but cannot be used, the running topology stays: ${(error as Error).message}`,
        ),
    },
    {
      ...(flags.followerReadLagMs !== undefined && {
        followerReadMaxLagMs: flags.followerReadLagMs,
      }),
    },
  );
  const app = buildRouterApp(router, { logger: { level: 'info' } });
  log = { info: (m) => app.log.info(m), error: (m) => app.log.error(m) };
  const host = flags.bindAll ? '0.0.0.0' : '127.0.0.1';
  const wanted = flags.port ?? config.router.port;
  let url: string;
  try {
    url = await listenQuietly(app, { port: wanted, host });
  } catch (error) {
    await app.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw dbError('ERR_CONFIG_INVALID', 'routerPortInUse', {
        port: wanted,
        config: flags.config,
      });
    }
    throw error;
  }
  const names = config.shards.map((s) => s.name).join(', ');
  app.log.info(
    `docdb router listening on ${url}; ${config.shards.length} shards (${names}), ${Object.keys(config.collections).length} collections from ${flags.config}`,
  );
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= app.close();
    return closing;
  };
  if (options.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      app.log.info(`${signal}: stopping the router (finishing requests in flight)`);
      close().then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'router shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  return { url, close };
}

/** Runs `docdb router` (declared in commands.ts). */
export async function runRouter(flags: RouterFlags): Promise<void> {
  await startRouter(flags);
}

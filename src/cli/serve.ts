/**
 * `docdb serve`: runs one node with the REST API. It only wires the flags of spec §1 to
 * resolveConfig (with process.env) and startNode; the rules live in server/config.ts and the
 * node's life in server/node.ts. Replication settings are checked but not run yet.
 */

import type { Command } from 'commander';
// server/index.ts does not re-export the resolver yet; config.ts is its own module.
import { resolveConfig, type ServeFlags } from '../server/index.js';
import { NODE_DEFAULTS, type NodeConfig, startNode } from '../server/index.js';

interface ServeOptions extends ServeFlags {
  config?: string;
}

/** One sentence for the log when the settings ask for replication this build cannot run. */
function replicationNotice(replication: NonNullable<NodeConfig['replication']>): string {
  const where =
    replication.role === 'leader'
      ? `listener port ${replication.port}`
      : `leader ${replication.leaderHost}:${replication.leaderPort}`;
  return (
    `replication role ${replication.role} (${where}) is configured, but replication is not ` +
    'available in this build yet; this node runs on its own'
  );
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run a node: the REST API over one data directory')
    .option('--config <file>', 'node config file (JSON, spec §2); flags override it')
    .option(
      '--node-name <name>',
      `name in logs, health output and shard descriptors (default ${NODE_DEFAULTS.nodeName}; env DOCDB_NODE_NAME)`,
    )
    .option(
      '--port <port>',
      `HTTP port, HTTPS when TLS is configured (default ${NODE_DEFAULTS.port}; env DOCDB_PORT)`,
    )
    .option(
      '--data-dir <dir>',
      `directory of the data file and its logs (default ${NODE_DEFAULTS.dataDir}; env DOCDB_DATA_DIR)`,
    )
    .option(
      '--api-key <key>',
      'require Authorization: Bearer <key> on every request but GET /health (env DOCDB_API_KEY)',
    )
    .option(
      '--replication-secret <secret>',
      'shared secret the replication handshake enforces (env DOCDB_REPLICATION_SECRET)',
    )
    .option('--bind-all', 'listen on all interfaces (0.0.0.0) instead of 127.0.0.1')
    .option(
      '--replication-role <role>',
      'leader or follower; omitted means single-node (env DOCDB_REPLICATION_ROLE)',
    )
    .option(
      '--replication-port <port>',
      `leader: replication listener port, not the HTTP port (default ${NODE_DEFAULTS.replicationPort}; env DOCDB_REPLICATION_PORT)`,
    )
    .option('--leader-host <host>', 'follower: host name of the leader (env DOCDB_LEADER_HOST)')
    .option(
      '--leader-port <port>',
      'follower: replication port on the leader (env DOCDB_LEADER_PORT)',
    )
    .option(
      '--auto-failover-seconds <seconds>',
      'follower: promote itself after the leader is silent this long (env DOCDB_AUTO_FAILOVER_SECONDS)',
    )
    .option(
      '--auto-failover-new-port <port>',
      'follower: replication port to bind once promoted (default the leader port; env DOCDB_AUTO_FAILOVER_NEW_PORT)',
    )
    .addHelpText(
      'after',
      '\nPrecedence: a flag overrides the config file; a DOCDB_* variable applies only to a ' +
        'setting\nthat neither set; then the defaults. SIGINT/SIGTERM stop the node gracefully.',
    )
    .action(async (options: ServeOptions) => {
      const { config: configPath, ...flags } = options;
      const { config, sources } = resolveConfig({ configPath, flags, env: process.env });
      const node = await startNode(config, { sources });
      if (config.replication) node.app.log.warn(replicationNotice(config.replication));
    });
}

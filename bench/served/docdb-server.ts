/**
 * docdb's REST server as the benchmark runs it: `startNode` on a data directory, in its own
 * process like any deployment, stopped with SIGTERM (graceful: finish requests, flush,
 * close). Its settings are resolved from flags exactly as `docdb serve` resolves them, so a
 * leader or a follower (`replicationRole`, …) is configured as an operator would.
 *
 * Usage: docdb-server.ts <dataDir> <port> ['<ServerFlags as JSON>']
 */

import { resolveConfig, startNode } from '../engine.js';
import { createDocdbIndexes } from '../embedded/docdb.js';

/** What the harness may set beyond the directory and the port. */
export interface ServerFlags {
  nodeName?: string;
  replicationRole?: 'leader' | 'follower';
  replicationPort?: number;
  syncFollowers?: number;
  leaderHost?: string;
  leaderPort?: number;
  /** Processes the node serves from (`--serve-processes`); the default (the cores) when unset. */
  serveProcesses?: number;
  /** Create the five indexes on `orders` before saying ready (not on a follower). */
  indexes?: boolean;
}

function flagsOf(dataDir: string, port: number, extra: ServerFlags): Record<string, string> {
  const flags: Record<string, string> = {
    nodeName: extra.nodeName ?? 'bench',
    port: String(port),
    dataDir,
  };
  for (const key of [
    'replicationRole',
    'replicationPort',
    'syncFollowers',
    'leaderHost',
    'leaderPort',
    'serveProcesses',
  ] as const) {
    if (extra[key] !== undefined) flags[key] = String(extra[key]);
  }
  return flags;
}

async function main(): Promise<void> {
  const [dataDir, portText, flagsText] = process.argv.slice(2);
  if (!dataDir || !portText) throw new Error('usage: docdb-server.ts <dataDir> <port> [flags]');
  const extra = JSON.parse(flagsText ?? '{}') as ServerFlags;
  const { config } = resolveConfig({ flags: flagsOf(dataDir, Number(portText), extra), env: {} });
  const node = await startNode(config, { log: false, handleSignals: false });
  if (extra.indexes) await createDocdbIndexes(node.db.collection('orders'));
  process.once('SIGTERM', () => {
    node.close().finally(() => process.exit(0));
  });
  process.stdout.write(`${JSON.stringify({ ready: true, port: Number(portText) })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * `docdb serve`: runs one node with the REST API. Its options (declared in commands.ts) are
 * the rows of the settings table (server/settings.ts) that have a flag; this only wires them
 * to resolveConfig (with process.env) and startNode. The rules live in server/config.ts and
 * the node's life in server/node.ts (replication included).
 */

import { resolveConfig, type ServeFlags, startNode } from '../server/index.js';

interface ServeOptions extends ServeFlags {
  config?: string;
}

/** Runs `docdb serve` (declared in commands.ts). */
export async function runServe(options: ServeOptions): Promise<void> {
  const { config: configPath, ...flags } = options;
  const { config, sources } = resolveConfig({ configPath, flags, env: process.env });
  await startNode(config, { sources });
}

/**
 * `docdb cluster init|show|add-shard|add-member|remove-member|add-collection`: writes and
 * prints cluster.json (DESIGN §7). Every command reads the file through the validator and writes it atomically; none
 * talks to a shard. API keys are never printed.
 */

import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Command } from 'commander';
import {
  type ClusterConfig,
  type CollectionPlacement,
  describePlacement,
  newClusterConfig,
  readClusterConfig,
  redactClusterConfig,
  shardMembers,
  withCollection,
  withMember,
  withoutMember,
  withShard,
  writeClusterConfig,
} from '../cluster/index.js';
import { dbError } from '../errors/index.js';
import { bold, printJson } from './output.js';
import { renderTable } from './table.js';

/** `1 shard`, `3 shards`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The config for people: router port, then a table of shards and one of collections. */
function renderConfig(file: string, config: ClusterConfig): string {
  const shown = redactClusterConfig(config);
  const shards = shown.shards.map((s) => ({
    name: s.name,
    endpoint: s.members === undefined ? s.endpoint : `replica set: ${shardMembers(s).join(', ')}`,
    'api key': s.apiKey ?? '-',
  }));
  const collections = Object.entries(shown.collections).map(([name, placement]) => ({
    name,
    strategy: placement.strategy,
    'shard key': placement.strategy === 'hash' ? placement.path : '-',
  }));
  return [
    `${bold('cluster config')}  ${file}`,
    `${bold('router port')}     ${config.router.port}`,
    '',
    `${bold('shards')} (${shards.length})`,
    shards.length === 0
      ? '(none: docdb cluster add-shard <config> <name> <endpoint>)'
      : renderTable(shards),
    '',
    `${bold('collections')} (${collections.length})`,
    collections.length === 0
      ? '(none: docdb cluster add-collection <config> <name> (hash <path> | replicated))'
      : renderTable(collections),
  ].join('\n');
}

/** Runs `docdb cluster init` (declared in commands.ts). */
export async function runClusterInit(
  file: string,
  options: { routerPort: number; force?: boolean },
): Promise<void> {
  if (!options.force && fs.existsSync(file)) {
    throw dbError('ERR_BAD_ARGUMENT', 'clusterConfigExists', { file }, { file });
  }
  await writeClusterConfig(file, newClusterConfig({ routerPort: options.routerPort }), {
    exclusive: !options.force,
  });
  process.stdout.write(
    `created ${file} (router port ${options.routerPort}); next: docdb cluster add-shard ${file} <name> <endpoint>\n`,
  );
}

/** Runs `docdb cluster show` (declared in commands.ts). */
export async function runClusterShow(file: string, options: { json?: boolean }): Promise<void> {
  const config = await readClusterConfig(file);
  if (options.json) printJson(redactClusterConfig(config));
  else process.stdout.write(`${renderConfig(file, config)}\n`);
}

/** Runs `docdb cluster add-shard` (declared in commands.ts). */
export async function runClusterAddShard(
  file: string,
  name: string,
  endpoint: string,
  more: string[],
  options: { apiKey?: string },
): Promise<void> {
  const config = await readClusterConfig(file);
  const shard = {
    name,
    ...(more.length === 0 ? { endpoint } : { members: [endpoint, ...more] }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  };
  const updated = withShard(config, shard, nodePath.resolve(file));
  await writeClusterConfig(file, updated);
  const added = updated.shards.at(-1)!;
  const at =
    added.members === undefined
      ? `at ${added.endpoint}`
      : `with ${count(added.members.length, 'member')} (${added.members.join(', ')})`;
  process.stdout.write(
    `added shard ${added.name} ${at}${added.apiKey === undefined ? '' : ' (api key set)'}; the cluster has ${count(updated.shards.length, 'shard')}\n`,
  );
}

/** Runs `docdb cluster add-member` (declared in commands.ts). */
export async function runClusterAddMember(
  file: string,
  shard: string,
  endpoint: string,
): Promise<void> {
  const updated = withMember(
    await readClusterConfig(file),
    shard,
    endpoint,
    nodePath.resolve(file),
  );
  await writeClusterConfig(file, updated);
  reportMembers(updated, shard, `added ${new URL(endpoint).origin} to`);
}

/** Runs `docdb cluster remove-member` (declared in commands.ts). */
export async function runClusterRemoveMember(
  file: string,
  shard: string,
  endpoint: string,
): Promise<void> {
  const updated = withoutMember(
    await readClusterConfig(file),
    shard,
    endpoint,
    nodePath.resolve(file),
  );
  await writeClusterConfig(file, updated);
  reportMembers(updated, shard, `removed ${endpoint} from`);
}

function reportMembers(config: ClusterConfig, name: string, what: string): void {
  const shard = config.shards.find((s) => s.name.toLowerCase() === name.toLowerCase())!;
  const members = shardMembers(shard);
  process.stdout.write(
    `${what} shard ${shard.name}: ${count(members.length, 'member')} (${members.join(', ')})\n`,
  );
}

/** Runs `docdb cluster add-collection` (declared in commands.ts). */
export async function runClusterAddCollection(
  this: Command,
  file: string,
  name: string,
  strategy: 'hash' | 'replicated',
  path: string | undefined,
): Promise<void> {
  let placement: CollectionPlacement;
  if (strategy === 'hash') {
    if (path === undefined)
      this.error('error: hash needs a path: add-collection <config> <name> hash <path>');
    placement = { strategy: 'hash', path };
  } else {
    if (path !== undefined) {
      this.error(`error: a replicated collection takes no path (got '${path}')`);
    }
    placement = { strategy: 'replicated' };
  }
  const config = await readClusterConfig(file);
  const updated = withCollection(config, name, placement, nodePath.resolve(file));
  await writeClusterConfig(file, updated);
  const added = Object.keys(updated.collections).find((n) => !(n in config.collections))!;
  process.stdout.write(
    `added collection ${added} (${describePlacement(updated.collections[added]!)})\n`,
  );
}

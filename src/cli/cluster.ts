/**
 * `docdb cluster init|show|add-shard|add-collection`: writes and prints cluster.json (DESIGN
 * §7). Every command reads the file through the validator and writes it atomically; none
 * talks to a shard. API keys are never printed.
 */

import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Argument, type Command, InvalidArgumentError } from 'commander';
import {
  type ClusterConfig,
  type CollectionPlacement,
  describePlacement,
  newClusterConfig,
  ROUTER_PORT_DEFAULT,
  readClusterConfig,
  redactClusterConfig,
  withCollection,
  withShard,
  writeClusterConfig,
} from '../cluster/index.js';
import { DbError } from '../errors/index.js';
import { isPort, PORT_RANGE_TEXT } from '../util/index.js';
import { bold, printJson } from './output.js';
import { renderTable } from './table.js';

function port(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !isPort(value)) {
    throw new InvalidArgumentError(`a port is ${PORT_RANGE_TEXT}`);
  }
  return value;
}

/** `1 shard`, `3 shards`. */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The config for people: router port, then a table of shards and one of collections. */
function renderConfig(file: string, config: ClusterConfig): string {
  const shown = redactClusterConfig(config);
  const shards = shown.shards.map((s) => ({
    name: s.name,
    endpoint: s.endpoint,
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

function registerInit(cluster: Command): void {
  cluster
    .command('init')
    .description('create a cluster config with no shards and no collections')
    .argument('<config>', 'the cluster.json file to create')
    .option('--router-port <n>', 'the port the router listens on', port, ROUTER_PORT_DEFAULT)
    .option('--force', 'replace the file if it exists')
    .action(async (file: string, options: { routerPort: number; force?: boolean }) => {
      if (!options.force && fs.existsSync(file)) {
        throw new DbError(
          'ERR_BAD_ARGUMENT',
          `${file} already exists: pass --force to replace it, or add to it with docdb cluster add-shard`,
          { file },
        );
      }
      await writeClusterConfig(file, newClusterConfig({ routerPort: options.routerPort }), {
        exclusive: !options.force,
      });
      process.stdout.write(
        `created ${file} (router port ${options.routerPort}); next: docdb cluster add-shard ${file} <name> <endpoint>\n`,
      );
    });
}

function registerShow(cluster: Command): void {
  cluster
    .command('show')
    .description('print the shards, collections and router port of a cluster config')
    .argument('<config>', 'a cluster.json file')
    .option('--json', 'print JSON for scripts (API keys shown as "set")')
    .action(async (file: string, options: { json?: boolean }) => {
      const config = await readClusterConfig(file);
      if (options.json) printJson(redactClusterConfig(config));
      else process.stdout.write(`${renderConfig(file, config)}\n`);
    });
}

function registerAddShard(cluster: Command): void {
  cluster
    .command('add-shard')
    .description('register a shard (a docdb node) by name and HTTP endpoint')
    .argument('<config>', 'a cluster.json file')
    .argument('<name>', 'the shard name: 1 to 64 letters, digits, ".", "_" or "-"')
    .argument('<endpoint>', "the node's base URL, http(s)://host:port")
    .option('--api-key <key>', "the node's API key (stored in the file, never printed)")
    .action(async (file: string, name: string, endpoint: string, options: { apiKey?: string }) => {
      const config = await readClusterConfig(file);
      const shard = {
        name,
        endpoint,
        ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      };
      const updated = withShard(config, shard, nodePath.resolve(file));
      await writeClusterConfig(file, updated);
      const added = updated.shards.at(-1)!;
      process.stdout.write(
        `added shard ${added.name} at ${added.endpoint}${added.apiKey === undefined ? '' : ' (api key set)'}; the cluster has ${count(updated.shards.length, 'shard')}\n`,
      );
    });
}

function registerAddCollection(cluster: Command): void {
  cluster
    .command('add-collection')
    .description(
      'register a collection as hash-sharded on a field path or replicated to every shard',
    )
    .argument('<config>', 'a cluster.json file')
    .argument('<name>', 'the collection name')
    .addArgument(
      new Argument(
        '<strategy>',
        'hash (on the owner of the path value) or replicated (on every shard)',
      ).choices(['hash', 'replicated']),
    )
    .argument('[path]', 'for hash: the shard-key path, such as pnr or customer.id')
    .addHelpText(
      'after',
      '\nExamples:\n  docdb cluster add-collection cluster.json orders hash pnr\n  docdb cluster add-collection cluster.json airports replicated\n',
    )
    .action(async function (
      this: Command,
      file: string,
      name: string,
      strategy: 'hash' | 'replicated',
      path: string | undefined,
    ) {
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
    });
}

/** Registers `docdb cluster` and its four subcommands, each with its own help. */
export function registerCluster(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('create and edit a cluster config (cluster.json): shards and collections')
    .addHelpText(
      'after',
      '\nA cluster config names every shard (a docdb node) and, for each collection, whether it\n' +
        'is hash-sharded on a path or replicated to every shard. See docs/cluster.md.\n',
    );
  registerInit(cluster);
  registerShow(cluster);
  registerAddShard(cluster);
  registerAddCollection(cluster);
}

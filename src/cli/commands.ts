/**
 * The command table: every subcommand's name, summary, arguments, flags and help, and the
 * module that runs it. A command's module (and with it the engine, storage, the SQL engine,
 * the server or the cluster) is imported only when that command runs, so `docdb version`
 * and every help start fast (issue 23); this file must import nothing heavy, and neither
 * must the parsers it uses (arguments.ts).
 */

import { Argument, type Command, Option } from 'commander';
// The settings table itself, not the server's index: the index loads Fastify, and the rows
// are plain data (server/settings.ts imports only util/).
import {
  CONFIG_FLAG,
  defaultText,
  SETTING_NAMES,
  type SettingSpec,
  settingSpec,
} from '../server/settings.js';
import {
  HEALTH_TIMEOUT_MS_DEFAULT,
  ROUTER_PORT_DEFAULT,
  SEED_COUNT_DEFAULT,
  SEED_COUNT_MAX,
} from '../util/index.js';
import { VERSION } from '../version.js';
import {
  batchArgument,
  integerArgument,
  paramsArgument,
  portArgument,
  seqArgument,
  timeArgument,
  timeoutArgument,
} from './arguments.js';

/**
 * Documents `docdb import` sends per bulk insert (offline: per write) unless `--batch-size`
 * says otherwise.
 */
export const IMPORT_BATCH_DEFAULT = 1000;

type Action<A extends unknown[]> = (this: Command, ...args: A) => void | Promise<void>;

/**
 * An action that imports its command's module when the command runs, not when the program
 * is built: `load` returns the module's action, which gets the arguments and `this` as
 * commander hands them over.
 */
function runs<A extends unknown[]>(load: () => Promise<Action<A>>): Action<A> {
  return async function (this: Command, ...args: A): Promise<void> {
    const action = await load();
    await action.apply(this, args);
  };
}

function declareVersion(program: Command): void {
  program
    .command('version')
    .description('print the version')
    .action(() => {
      process.stdout.write(`${VERSION}\n`);
    });
}

function declareInspect(program: Command): void {
  program
    .command('inspect')
    .description('print size, pages, collections and indexes of a data file (starts no server)')
    .argument('<file>', 'a data directory or its data.docdb file')
    .option('--json', 'print JSON for scripts')
    .action(runs(async () => (await import('./inspect.js')).runInspect));
}

function declareQuery(program: Command): void {
  program
    .command('query')
    .description('run one SQL statement against a local data file and print the results')
    .argument('<file>', 'a data directory or its data.docdb file')
    .argument('<sql>', 'the statement, e.g. "SELECT * FROM orders WHERE pnr = \'ABC123\'"')
    .option('--json', 'print the whole result as JSON for scripts')
    .option('--params <json>', 'values for ? placeholders, as a JSON array', paramsArgument)
    .action(runs(async () => (await import('./query.js')).runQuery));
}

function declareRepl(program: Command): void {
  program
    .command('repl')
    .description('interactive SQL console (stats, collections, indexes <c>, help, exit)')
    .argument('<file>', 'a data directory or its data.docdb file (created if missing)')
    .option('--json', 'print results as JSON')
    .action(runs(async () => (await import('./repl.js')).runRepl));
}

function declareCompact(program: Command): void {
  program
    .command('compact')
    .description("rewrite a collection's pages and release freed pages (exclusive lock)")
    .argument('<file>', 'a data directory or its data.docdb file')
    .argument('<collection>', 'the collection to compact')
    .option('--json', 'print JSON for scripts')
    .action(runs(async () => (await import('./compact.js')).runCompact));
}

function declareVerify(program: Command): void {
  program
    .command('verify')
    .description(
      'check a whole data file: pages are sound, documents decode, indexes agree with documents, the change log is contiguous, counts match (read-only; exits 1 when anything is wrong)',
    )
    .argument('<file>', 'a data directory or its data.docdb file')
    .option(
      '--peer <file>',
      "another node's data directory or file: also compare the two change logs and say where their histories part (exits 1 when they diverged)",
    )
    .option('--json', 'print the report as JSON for scripts')
    .action(runs(async () => (await import('./verify.js')).runVerify));
}

function declareSeed(program: Command): void {
  program
    .command('seed')
    .description(
      `load sample reservation orders with nested passengers and flights (default ${SEED_COUNT_DEFAULT})`,
    )
    .argument('<file>', 'a data directory or its data.docdb file (created if missing)')
    .argument(
      '[count]',
      'how many orders',
      integerArgument('count', SEED_COUNT_MAX),
      SEED_COUNT_DEFAULT,
    )
    .option(
      '--seed <n>',
      'random seed, for reproducible data',
      integerArgument('--seed', 2 ** 31),
      1,
    )
    .option('--json', 'print the result as JSON')
    .action(runs(async () => (await import('./seed.js')).runSeed));
}

/** A setting's help line in `serve --help`: what it does, then its default and its variable. */
export function optionHelp(spec: SettingSpec): string {
  const fallback = defaultText(spec);
  const notes = [
    ...(fallback === undefined ? [] : [`default ${fallback}`]),
    ...(spec.env === undefined ? [] : [`env ${spec.env}`]),
  ];
  return notes.length === 0 ? spec.help : `${spec.help} (${notes.join('; ')})`;
}

/**
 * The options of `serve`, one per row of the settings table (server/settings.ts) with a
 * flag, so help, flags and the config file cannot drift apart. Commander gets no defaults
 * and no variables: it would fill them in as if given, and the config file must rank above
 * a variable and a default (resolveConfig applies the order).
 */
export function serveOptions(): Option[] {
  return SETTING_NAMES.map(settingSpec)
    .filter((spec) => spec.flag !== undefined)
    .map((spec) => new Option(spec.flag as string, optionHelp(spec)));
}

/**
 * `serve` takes no arguments. A user who writes `docdb serve ./data` meant the data
 * directory, so the usage error says to write `--data-dir ./data` (issue 23, mend 11).
 */
function strayArguments(command: Command): void {
  const [first, ...rest] = command.args;
  if (first === undefined) return;
  const extra = rest.length === 0 ? '' : ` (and ${rest.length} more)`;
  command.error(
    `error: serve takes no arguments, but got '${first}'${extra}; to serve that data directory, write --data-dir ${first}`,
    { code: 'commander.excessArguments', exitCode: 2 },
  );
}

function declareServe(program: Command): void {
  const command = program
    .command('serve')
    .description('run a node: the REST API over one data directory')
    .option(CONFIG_FLAG.flag, CONFIG_FLAG.help);
  for (const option of serveOptions()) command.addOption(option);
  command
    .addHelpText(
      'after',
      '\nPrecedence: a flag overrides the config file; a DOCDB_* variable applies only to a ' +
        'setting\nthat neither set; then the defaults. SIGINT/SIGTERM stop the node gracefully.',
    )
    // Commander's "too many arguments" would not say where a path belongs: see strayArguments.
    .allowExcessArguments(true)
    .hook('preAction', strayArguments)
    .action(runs(async () => (await import('./serve.js')).runServe));
}

function declareCluster(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('create and edit a cluster config (cluster.json): shards and collections')
    .addHelpText(
      'after',
      '\nA cluster config names every shard (a docdb node) and, for each collection, whether it\n' +
        'is hash-sharded on a path or replicated to every shard. See docs/cluster.md.\n',
    );
  cluster
    .command('init')
    .description('create a cluster config with no shards and no collections')
    .argument('<config>', 'the cluster.json file to create')
    .option(
      '--router-port <n>',
      'the port the router listens on',
      portArgument(),
      ROUTER_PORT_DEFAULT,
    )
    .option('--force', 'replace the file if it exists')
    .action(runs(async () => (await import('./cluster.js')).runClusterInit));
  cluster
    .command('show')
    .description('print the shards, collections and router port of a cluster config')
    .argument('<config>', 'a cluster.json file')
    .option('--json', 'print JSON for scripts (API keys shown as "set")')
    .action(runs(async () => (await import('./cluster.js')).runClusterShow));
  cluster
    .command('add-shard')
    .description(
      'register a shard by name: a docdb node by its HTTP endpoint, or a replica set by its members',
    )
    .argument('<config>', 'a cluster.json file')
    .argument('<name>', 'the shard name: 1 to 64 letters, digits, ".", "_" or "-"')
    .argument('<endpoint>', "the node's base URL, http(s)://host:port")
    .argument(
      '[members...]',
      "more nodes of the shard's replica set (a leader and its followers, any order)",
    )
    .option('--api-key <key>', "the nodes' API key (stored in the file, never printed)")
    .addHelpText(
      'after',
      '\nExamples:\n  docdb cluster add-shard cluster.json s1 http://10.0.0.1:5000\n' +
        '  docdb cluster add-shard cluster.json s2 http://10.0.0.2:5000 http://10.0.0.3:5000 http://10.0.0.4:5000\n' +
        '\nWith several endpoints the router finds the leader among them and follows a failover.\n',
    )
    .action(runs(async () => (await import('./cluster.js')).runClusterAddShard));
  cluster
    .command('add-member')
    .description("add a node to a shard's replica set (a one-endpoint shard becomes one)")
    .argument('<config>', 'a cluster.json file')
    .argument('<shard>', 'the shard name')
    .argument('<endpoint>', "the node's base URL, http(s)://host:port")
    .action(runs(async () => (await import('./cluster.js')).runClusterAddMember));
  cluster
    .command('remove-member')
    .description("remove a node gone for good from a shard's replica set")
    .argument('<config>', 'a cluster.json file')
    .argument('<shard>', 'the shard name')
    .argument('<endpoint>', "the node's base URL, as the config lists it")
    .action(runs(async () => (await import('./cluster.js')).runClusterRemoveMember));
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
    .action(runs(async () => (await import('./cluster.js')).runClusterAddCollection));
}

function declareHealth(program: Command): void {
  program
    .command('health')
    .description('ask every shard of a cluster config for its health and document counts')
    .argument('<cluster-config>', 'the cluster.json to read')
    .option('--json', 'print JSON for scripts')
    .option(
      '--timeout-ms <ms>',
      `how long to wait for each shard (default ${HEALTH_TIMEOUT_MS_DEFAULT})`,
      timeoutArgument,
    )
    .addHelpText(
      'after',
      '\nExits 1 when any shard is down or unreachable, or a replica-set shard has no leader or a\nmember down. Sends only reads.',
    )
    .action(runs(async () => (await import('./health.js')).runHealth));
}

function declareRouter(program: Command): void {
  program
    .command('router')
    .description('serve the node REST API over the shards of a cluster config')
    .requiredOption('-c, --config <cluster-config>', 'the cluster.json to route by')
    .option(
      '-p, --port <port>',
      'the port to listen on (default: router.port in the file)',
      portArgument({ zero: true }),
    )
    .option('--bind-all', 'listen on every interface, not only 127.0.0.1')
    .option(
      '--follower-read-lag-ms <ms>',
      "let reads go to a replica-set shard's follower whose data is at most this old (default: reads go to the leader)",
      integerArgument('--follower-read-lag-ms', 3_600_000),
    )
    .addHelpText(
      'after',
      '\nReads go to the shards that may hold the rows and are merged; writes go to the owner of\nthe shard key (docs/cluster.md). Edits to the config file take effect within a second\n(an invalid edit is logged and ignored). SIGINT/SIGTERM stop the router gracefully.',
    )
    .action(runs(async () => (await import('./router.js')).runRouter));
}

function declareRebalance(program: Command): void {
  program
    .command('rebalance')
    .description(
      'move documents from one cluster.json placement to another (shards added or removed)',
    )
    .argument('<old-config>', 'the cluster.json the shards hold their documents by now')
    .argument('<new-config>', 'the cluster.json to move to')
    .option('--plan-only', 'print what would move, per collection and shard, and move nothing')
    .option('--json', 'print the plan or the result as JSON')
    .addHelpText(
      'after',
      '\nEach document is copied with its _id, read back and compared on its new shard before it\n' +
        'is deleted from the old one (only if unchanged since it was copied). Writes that reach the\n' +
        'old shards meanwhile are carried over. Progress is journaled in\n' +
        '<new-config>.rebalance-journal: re-running after an interruption finishes the job. When it\n' +
        'is done, write the new topology to the file the routers run with (they follow it), then\n' +
        'run rebalance once more to carry what they sent to the old shards during the switch.',
    )
    .action(runs(async () => (await import('./rebalance.js')).runRebalance));
}

function declareBackup(program: Command): void {
  program
    .command('backup')
    .description('take a hot backup of a data directory or a running node (docs/backup.md)')
    .argument('<source>', 'a data directory, its data.docdb file, or a node URL (http://host:5000)')
    .argument('<out>', 'the backup directory to write (new or empty)')
    .option('--with-log', 'also keep the change log beside the backup, for point-in-time recovery')
    .option('--compact', 'leave free pages out of the copy (slower, smaller)')
    .option('--api-key <key>', 'the API key of a node given by URL (default: DOCDB_API_KEY)')
    .option('--json', 'print the manifest as JSON')
    .action(runs(async () => (await import('./backup.js')).runBackup));
}

function declareRestore(program: Command): void {
  program
    .command('restore')
    .description(
      'restore a backup into a data directory, optionally replaying the change log to a point',
    )
    .argument('<backup>', 'a backup directory, or a file saved from POST /admin/backup')
    .argument('<data-dir>', 'the data directory to restore into (new or empty, unless --force)')
    .option('--force', 'replace the data of a data directory that holds some')
    .addOption(
      new Option('--to-seq <seq>', 'replay change-log entries up to and including this seq')
        .argParser(seqArgument)
        .conflicts(['toTime', 'toEnd']),
    )
    .addOption(
      new Option('--to-time <time>', 'replay entries committed at or before this time (ISO 8601)')
        .argParser(timeArgument)
        .conflicts(['toEnd']),
    )
    .option('--to-end', 'replay every entry the logs hold')
    .option(
      '--log-dir <dir>',
      "change-log segments to replay from (a node's backup.logArchiveDir, another backup's log/); repeatable",
      (dir: string, dirs: string[]) => [...dirs, dir],
      [] as string[],
    )
    .option('--json', 'print what was restored as JSON')
    .action(runs(async () => (await import('./backup.js')).runRestore));
}

function declareExport(program: Command): void {
  program
    .command('export')
    .description('write one collection and its index definitions as NDJSON or a JSON array')
    .argument('<source>', 'a data directory, its data.docdb file, or a node URL')
    .argument('<collection>', 'the collection to export')
    .addOption(
      new Option('--format <format>', 'ndjson (one document per line) or json (one array)')
        .choices(['ndjson', 'json'])
        .default('ndjson'),
    )
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--api-key <key>', 'the API key of a node given by URL (default: DOCDB_API_KEY)')
    .action(runs(async () => (await import('./transfer.js')).runExport));
}

function declareImport(program: Command): void {
  program
    .command('import')
    .description('load NDJSON or a JSON array into a collection, in bulk batches')
    .argument('<target>', 'a data directory (created if missing), or a node or router URL')
    .argument('<collection>', 'the collection to load into (created if missing)')
    .argument('<file>', 'an NDJSON file or a JSON array file (- reads stdin)')
    .option('--atomic', 'all or nothing: store nothing unless every record goes in')
    .option('--batch-size <n>', 'documents per bulk insert', batchArgument, IMPORT_BATCH_DEFAULT)
    .option('--api-key <key>', 'the API key of a node given by URL (default: DOCDB_API_KEY)')
    .option('--json', 'print the result as JSON (failed records with their lines)')
    .action(runs(async () => (await import('./transfer.js')).runImport));
}

/** Every subcommand, in the order `docdb --help` lists them. */
const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  declareVersion,
  declareInspect,
  declareQuery,
  declareRepl,
  declareCompact,
  declareVerify,
  declareSeed,
  declareServe,
  declareCluster,
  declareHealth,
  declareRouter,
  declareRebalance,
  declareBackup,
  declareRestore,
  declareExport,
  declareImport,
];

/** Declares every subcommand on `program`; none of their modules is loaded yet. */
export function declareCommands(program: Command): void {
  for (const declare of COMMANDS) declare(program);
}

/**
 * `docdb serve`: runs one node with the REST API. Its options are the rows of the settings
 * table (server/settings.ts) that have a flag, so help, flags and the config file cannot
 * drift apart; it only wires them to resolveConfig (with process.env) and startNode. The rules
 * live in server/config.ts and the node's life in server/node.ts (replication included).
 */

import { type Command, Option } from 'commander';
import {
  CONFIG_FLAG,
  defaultText,
  resolveConfig,
  SETTING_NAMES,
  type ServeFlags,
  type SettingSpec,
  settingSpec,
  startNode,
} from '../server/index.js';

interface ServeOptions extends ServeFlags {
  config?: string;
}

/** A setting's help line: what it does, then its default and its variable. */
export function optionHelp(spec: SettingSpec): string {
  const fallback = defaultText(spec);
  const notes = [
    ...(fallback === undefined ? [] : [`default ${fallback}`]),
    ...(spec.env === undefined ? [] : [`env ${spec.env}`]),
  ];
  return notes.length === 0 ? spec.help : `${spec.help} (${notes.join('; ')})`;
}

/**
 * The options of `serve`, one per setting with a flag. Commander gets no defaults and no
 * variables: it would fill them in as if given, and the config file must rank above a
 * variable and a default (resolveConfig applies the order).
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

export function registerServe(program: Command): void {
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
    .action(async (options: ServeOptions, self: Command) => {
      strayArguments(self);
      const { config: configPath, ...flags } = options;
      const { config, sources } = resolveConfig({ configPath, flags, env: process.env });
      await startNode(config, { sources });
    });
}

#!/usr/bin/env node
/**
 * The `docdb` executable: the commands of commands.ts, each run by its own file, which is
 * loaded only when that command runs. Errors become a message on stderr and the exit code of
 * their class (output.ts); usage errors exit 2.
 */

import { Command, CommanderError } from 'commander';
import { dbError, isDbError } from '../errors/index.js';
import { READER_PROCESS_ENV } from '../server/settings.js';
import { VERSION } from '../version.js';
import { declareCommands } from './commands.js';
import { EXIT_USAGE, reportError } from './output.js';

export function buildProgram(): Command {
  const program = new Command('docdb')
    .description('docdb: a document database with a SQL dialect over JSON paths')
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'print help')
    .helpCommand('help [command]', 'print help for a command')
    .showHelpAfterError('(run docdb help for usage)')
    .exitOverride()
    .hook('preAction', flagTakenAsValue);
  declareCommands(program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Commander gives an option that needs a value the next word, even when that word is one of
 * the command's own flags: `serve --data-dir --port 5001` served a directory named `--port`
 * (or, for serve, called 5001 a stray argument). Such a value is refused as missing.
 */
function flagTakenAsValue(_program: Command, command: Command): void {
  const flags = new Set(command.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
  for (const option of command.options) {
    if (!option.required) continue;
    const value = command.getOptionValue(option.attributeName());
    if (typeof value !== 'string' || !flags.has(value.split('=')[0] as string)) continue;
    command.error(`error: option '${option.flags}' argument missing (got the flag '${value}')`, {
      code: 'commander.optionMissingArgument',
      exitCode: 2,
    });
  }
}

/**
 * The arguments to parse. Commander's help command, asked about a command that does not
 * exist, prints the general help to stderr, exits 2 and never says why; `docdb help nosuch`
 * runs as `docdb nosuch` instead, so it fails the same way: "unknown command 'nosuch'", the
 * closest command when there is one, exit 2.
 */
function helpTargetChecked(program: Command, argv: string[]): string[] {
  const [first, name] = argv;
  if (first !== 'help' || name === undefined || name.startsWith('-')) return argv;
  // Commander has no help for its help command: that is the general help.
  if (name === 'help') return ['help'];
  const known = program.commands.some((c) => c.name() === name || c.aliases().includes(name));
  return known ? argv : [name];
}

/**
 * A node's 401 tells an HTTP client which header to send; a user of a command that reaches a
 * node by URL sets the key with that command's `--api-key` or DOCDB_API_KEY instead, so the
 * error names those (issue 23, mend 13). Other errors pass through as they are.
 */
function inCommandLineTerms(error: unknown, command: Command | undefined): unknown {
  const takesKey = command?.options.some((option) => option.long === '--api-key') === true;
  if (!isDbError(error, 'ERR_UNAUTHORIZED') || !takesKey) return error;
  const [details, status] = [error.details, error.status];
  if (command?.opts().apiKey !== undefined) {
    return dbError('ERR_UNAUTHORIZED', 'flagKeyRefused', { cause: error.message }, details, status);
  }
  if (process.env.DOCDB_API_KEY !== undefined) {
    return dbError('ERR_UNAUTHORIZED', 'envKeyRefused', { cause: error.message }, details, status);
  }
  return dbError('ERR_UNAUTHORIZED', 'keyNeeded', {}, details, status);
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  // The command whose action ran, so an error can be told in that command's terms.
  let ran: Command | undefined;
  program.hook('preAction', (_program, actionCommand) => {
    ran = actionCommand;
  });
  try {
    await program.parseAsync(helpTargetChecked(program, argv), { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; everything else commander rejects is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    reportError(inCommandLineTerms(error, ran));
  }
}

// A reader that went away (`docdb query … | head`) ends the command quietly, not with a trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// The single-file binary runs this module whatever it is asked to run: a node's reader
// process, forked by server/readers.ts, is told by its environment (issue 25).
if (process.env[READER_PROCESS_ENV] === '1') await import('../server/reader-process.js');
else await main(process.argv.slice(2));

/**
 * Terminal output for the CLI: colour only on a TTY and never with NO_COLOR, byte sizes for
 * people, and the one place errors become stderr text and exit codes (docs/errors.md, "CLI
 * exit codes", lists the same table).
 */

import { type ErrorCode, isDbError, statusOf } from '../errors/index.js';

/** Exit code for a failure of no class below (a bad SQL statement, damage `verify` found). */
export const EXIT_FAILURE = 1;
/** Bad flags or arguments: commander's rejections and the codes of USAGE_CODES. */
export const EXIT_USAGE = 2;
/** The data file, collection, document, index or backup named does not exist. */
export const EXIT_NOT_FOUND = 3;
/** The state in the way: something exists already, another process holds it, it changed. */
export const EXIT_CONFLICT = 4;
/** A node, shard or peer did not answer, or refuses for now; trying again later may work. */
export const EXIT_UNAVAILABLE = 5;
/** The data file is damaged, full or cannot take the write. */
export const EXIT_STORAGE = 6;

/**
 * Codes that say the command was asked wrongly: an argument, or a node setting (a flag, a
 * variable or the node config file `serve --config` reads), is not valid. Their status, 400,
 * is shared with codes about the content of data and files (a SQL statement, a document, a
 * cluster.json, a backup), which stay EXIT_FAILURE.
 */
const USAGE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'ERR_BAD_ARGUMENT',
  'ERR_CONFIG_INVALID',
]);

/**
 * The exit code for an error code, derived from the catalogue's HTTP status so a new code
 * falls into its class without an edit here: 404 and 410 not found, 409 and 412 conflict,
 * 502 to 504 unavailable; an `ERR_STORAGE_*` code with a 5xx status is a storage failure.
 */
export function exitCodeOf(code: ErrorCode): number {
  if (USAGE_CODES.has(code)) return EXIT_USAGE;
  const status = statusOf(code);
  if (code.startsWith('ERR_STORAGE_') && status >= 500) return EXIT_STORAGE;
  if (status === 404 || status === 410) return EXIT_NOT_FOUND;
  if (status === 409 || status === 412) return EXIT_CONFLICT;
  if (status >= 502 && status <= 504) return EXIT_UNAVAILABLE;
  return EXIT_FAILURE;
}

function useColor(stream: NodeJS.WriteStream): boolean {
  return stream.isTTY === true && !('NO_COLOR' in process.env);
}

function paint(code: string, text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return useColor(stream) ? `\u001b[${code}m${text}\u001b[0m` : text;
}

export const bold = (text: string): string => paint('1', text);
export const dim = (text: string): string => paint('2', text);

/** 1536 → "1.5 KiB". */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** Writes a value as pretty JSON to stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints an error the user can act on and sets the exit code of its class. */
export function reportError(error: unknown): void {
  const message = isDbError(error)
    ? `${error.message} [${error.code}]`
    : error instanceof Error
      ? `unexpected error: ${error.message}`
      : String(error);
  process.stderr.write(`${paint('31', 'error:', process.stderr)} ${message}\n`);
  process.exitCode = isDbError(error) ? exitCodeOf(error.code) : EXIT_FAILURE;
}

/**
 * Terminal output for the CLI: colour only on a TTY and never with NO_COLOR, byte sizes for
 * people, and the one place errors become stderr text and exit codes.
 */

import { isDbError } from '../errors/index.js';

/** Exit code for a failed command; 2 is reserved for usage errors (commander's). */
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

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

/** Prints an error the user can act on and sets a failing exit code. */
export function reportError(error: unknown): void {
  const message = isDbError(error)
    ? `${error.message} [${error.code}]`
    : error instanceof Error
      ? `unexpected error: ${error.message}`
      : String(error);
  process.stderr.write(`${paint('31', 'error:', process.stderr)} ${message}\n`);
  process.exitCode = EXIT_FAILURE;
}

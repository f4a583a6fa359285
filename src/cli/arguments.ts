/**
 * The parsers of flag and argument values (commander's argParser): each turns the text into
 * a value or refuses it with a usage error saying what it takes. They run while the command
 * line is parsed, before a command's module is loaded, so they import nothing heavy.
 */

import { InvalidArgumentError } from 'commander';
import { BULK_DOCUMENTS_MAX, isPort, PORT_RANGE_TEXT } from '../util/index.js';

/** A port (`--router-port`); with `zero`, 0 too, to pick a free one (`router --port`). */
export function portArgument(options: { zero?: boolean } = {}): (raw: string) => number {
  const range = options.zero ? `${PORT_RANGE_TEXT}, or 0 to pick a free one` : PORT_RANGE_TEXT;
  return (raw) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !isPort(value, options)) {
      throw new InvalidArgumentError(`a port is ${range}`);
    }
    return value;
  };
}

/** A whole number from 0 to `max`; the message names the value as `name`. */
export function integerArgument(name: string, max: number): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value > max) {
      throw new InvalidArgumentError(`${name} must be an integer from 0 to ${max}`);
    }
    return value;
  };
}

/** The value of --params: a JSON array; anything else is a usage error naming the flag. */
export function paramsArgument(raw: string): unknown[] {
  const example = 'give a JSON array, e.g. \'["ABC123", 5]\'';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new InvalidArgumentError(`it is not JSON (${(error as Error).message}); ${example}`);
  }
  if (!Array.isArray(value)) throw new InvalidArgumentError(`it is not an array; ${example}`);
  return value;
}

/** A change-log seq (`restore --to-seq`). */
export function seqArgument(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError('a seq is a whole number from 0');
  }
  return value;
}

/** An ISO 8601 time (`2026-11-24T10:15:00Z`) or Unix milliseconds (`restore --to-time`). */
export function timeArgument(raw: string): number {
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isSafeInteger(ms)) {
    throw new InvalidArgumentError(
      'a time is ISO 8601 (2026-11-24T10:15:00Z) or Unix milliseconds',
    );
  }
  return ms;
}

/** How long to wait for each shard (`health --timeout-ms`). */
export function timeoutArgument(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > 600_000) {
    throw new InvalidArgumentError('milliseconds from 1 to 600000');
  }
  return value;
}

/** Documents per bulk insert (`import --batch-size`): 1 to BULK_DOCUMENTS_MAX. */
export function batchArgument(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < 1 || value > BULK_DOCUMENTS_MAX) {
    throw new InvalidArgumentError(
      `a batch size is a whole number from 1 to ${BULK_DOCUMENTS_MAX}`,
    );
  }
  return value;
}

/**
 * Proves that the "CLI exit codes" table of docs/errors.md names, for each exit code of a
 * class, exactly the catalogue codes exitCodeOf gives it, so the reference and the CLI
 * cannot drift apart when a code is added.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/index.js';
import { EXIT_FAILURE, exitCodeOf } from './output.js';

const DOC_URL = new URL('../../docs/errors.md', import.meta.url);

/** The codes each row of the exit-code table names: | 3 | not found | … `ERR_X` … |. */
function documentedClasses(): Map<number, string[]> {
  const text = readFileSync(DOC_URL, 'utf8');
  const section = text.slice(text.indexOf('## CLI exit codes'));
  const rows = new Map<number, string[]>();
  for (const line of section.split('\n')) {
    const match = /^\|\s*(\d+)\s*\|/.exec(line);
    if (match)
      rows.set(
        Number(match[1]),
        [...line.matchAll(/`(ERR_[A-Z0-9_]+)`/g)].map((m) => m[1] as string),
      );
  }
  return rows;
}

describe('exitCodeOf', () => {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const documented = documentedClasses();

  it('gives every code an exit code the table has a row for', () => {
    for (const code of codes) expect(documented.has(exitCodeOf(code)), code).toBe(true);
  });

  it('matches the table: each class row names exactly its codes', () => {
    for (const [exit, named] of documented) {
      if (exit === 0 || exit === EXIT_FAILURE) continue;
      const derived = codes.filter((code) => exitCodeOf(code) === exit);
      expect(derived.length, `exit ${exit}`).toBeGreaterThan(0);
      expect([...named].sort(), `exit ${exit}`).toEqual(derived.sort());
    }
  });

  it('keeps the classes apart: usage 2, not found 3, conflict 4, unavailable 5, storage 6', () => {
    expect(exitCodeOf('ERR_CONFIG_INVALID')).toBe(2);
    expect(exitCodeOf('ERR_STORAGE_NOT_FOUND')).toBe(3);
    expect(exitCodeOf('ERR_STORAGE_LOCKED')).toBe(4);
    expect(exitCodeOf('ERR_CLIENT_UNREACHABLE')).toBe(5);
    expect(exitCodeOf('ERR_STORAGE_CORRUPT')).toBe(6);
    expect(exitCodeOf('ERR_SQL_SYNTAX')).toBe(1);
  });
});

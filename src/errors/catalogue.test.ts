/**
 * Proves that docs/errors.md lists exactly the codes of ERROR_CATALOGUE, each with the same
 * HTTP status, so the reference table and the code cannot drift apart.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from './catalogue.js';

const DOC_URL = new URL('../../docs/errors.md', import.meta.url);

/** A table row of the form: | `ERR_SOMETHING` | 404 | meaning |. */
const ROW = /^\|\s*`(ERR_[A-Z0-9_]+)`\s*\|\s*(\d{3})\s*\|/;

function documentedCodes(): Array<[string, number]> {
  const rows: Array<[string, number]> = [];
  for (const line of readFileSync(DOC_URL, 'utf8').split('\n')) {
    const match = ROW.exec(line);
    if (match) rows.push([match[1] as string, Number(match[2])]);
  }
  return rows;
}

const byCode = (a: [string, number], b: [string, number]): number => a[0].localeCompare(b[0]);

describe('docs/errors.md', () => {
  const documented = documentedCodes();

  it('has a table row for at least one code', () => {
    expect(documented.length).toBeGreaterThan(0);
  });

  it('lists each code once', () => {
    const codes = documented.map(([code]) => code);
    expect(codes.filter((code, i) => codes.indexOf(code) !== i)).toEqual([]);
  });

  it('lists exactly the codes and statuses of the catalogue', () => {
    const catalogued = Object.entries(ERROR_CATALOGUE).map(([code, entry]): [string, number] => [
      code,
      entry.status,
    ]);
    expect([...documented].sort(byCode)).toEqual(catalogued.sort(byCode));
  });
});

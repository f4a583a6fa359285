/**
 * Proves that docs/errors.md lists exactly the codes of ERROR_CATALOGUE, each with the same
 * HTTP status, and exactly the codes whose messages are kept from clients with their fixed
 * text, so the reference tables and the code cannot drift apart.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CatalogueEntry, ERROR_CATALOGUE } from './catalogue.js';

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

/** The rows of the "Messages kept from clients" table: | `ERR_SOMETHING` | fixed text |. */
function withheldMessages(): Array<[string, string]> {
  const text = readFileSync(DOC_URL, 'utf8');
  const section = text.slice(text.indexOf('### Messages kept from clients'));
  const rows: Array<[string, string]> = [];
  for (const line of section.split('\n')) {
    const match = /^\|\s*`(ERR_[A-Z0-9_]+)`\s*\|\s*(.+?)\s*\|$/.exec(line);
    if (match) rows.push([match[1] as string, match[2] as string]);
  }
  return rows;
}

describe('docs/errors.md', () => {
  const documented = documentedCodes();

  it('has a table row for at least one code', () => {
    expect(documented.length).toBeGreaterThan(0);
  });

  it('lists each code once', () => {
    const codes = documented.map(([code]) => code);
    expect(codes.filter((code, i) => codes.indexOf(code) !== i)).toEqual([]);
  });

  it('lists exactly the codes whose messages are kept from clients, with their fixed text', () => {
    const marked = Object.entries(ERROR_CATALOGUE)
      .filter(([, entry]) => 'publicMessage' in entry)
      .map(([code, entry]): [string, string] => [code, (entry as CatalogueEntry).publicMessage!]);
    expect(marked.length).toBeGreaterThan(0);
    expect(withheldMessages().sort()).toEqual(marked.sort());
  });

  it('lists exactly the codes and statuses of the catalogue', () => {
    const catalogued = Object.entries(ERROR_CATALOGUE).map(([code, entry]): [string, number] => [
      code,
      entry.status,
    ]);
    expect([...documented].sort(byCode)).toEqual(catalogued.sort(byCode));
  });
});

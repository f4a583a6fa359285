/**
 * Proves that docs/errors.md lists exactly the codes of ERROR_CATALOGUE, each with the same
 * HTTP status, and exactly the codes whose messages are kept from clients with their fixed
 * text, so the reference tables and the code cannot drift apart; and that the message
 * templates are well formed, each named by a throw site, and filled as written.
 */

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type CatalogueEntry,
  ERROR_CATALOGUE,
  type ErrorCode,
  fillTemplate,
  PLACEHOLDER,
  RELAYED_MESSAGES,
} from './catalogue.js';
import { DbError, dbError, relayedError } from './db-error.js';

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

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** The text of every source file under src/ that is not a test. */
function sources(): Array<{ file: string; text: string }> {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => ({ file, text: readFileSync(path.join(SRC, file), 'utf8') }));
}

const templates: Array<[string, string, string]> = Object.entries(ERROR_CATALOGUE).flatMap(
  ([code, entry]) =>
    Object.entries((entry as CatalogueEntry).messages ?? {}).map(
      ([key, template]): [string, string, string] => [code, key, template],
    ),
);
const relayed = Object.entries(RELAYED_MESSAGES);

describe('message templates', () => {
  it('write each placeholder as {name}, and no other brace', () => {
    const stray = [...templates.map(([, , t]) => t), ...relayed.map(([, t]) => t)].filter(
      (template) => /[{}]/.test(template.replace(PLACEHOLDER, '')),
    );
    expect(stray).toEqual([]);
  });

  it('are each named by a throw site of their code', () => {
    const files = sources();
    const unused = templates.filter(([code, key]) => {
      const call = new RegExp(`dbError\\(\\s*'${code}'`);
      return !files.some(({ text }) => call.test(text) && text.includes(`'${key}'`));
    });
    expect(unused.map(([code, key]) => `${code}.${key}`)).toEqual([]);
  });

  it('relayed ones are each named by a throw site', () => {
    const files = sources().filter(({ text }) => text.includes('relayedError('));
    const unused = relayed.filter(([key]) => !files.some(({ text }) => text.includes(`'${key}'`)));
    expect(unused.map(([key]) => key)).toEqual([]);
  });

  it('are the only source of messages: no DbError is made from a sentence outside errors/', () => {
    // The client rebuilds a node's error from its body: the node's message, not a sentence.
    const wire = ['client/transport.ts', 'client/changes.ts'];
    const composing = sources()
      .filter(({ file }) => !file.startsWith('errors') && !wire.includes(file))
      .filter(({ text }) => text.includes('new DbError('))
      .map(({ file }) => file);
    expect(composing).toEqual([]);
  });

  it('fill each placeholder with its value, as a template literal would', () => {
    const error = dbError('ERR_DOCUMENT_NOT_FOUND', 'byId', { id: 'a1', collection: 'orders' });
    expect(error).toBeInstanceOf(DbError);
    expect(error.message).toBe('no document with _id a1 in orders');
    expect(error.status).toBe(404);
    const byKey = { collection: 'orders', field: 'pnr', value: 7 };
    expect(dbError('ERR_DOCUMENT_NOT_FOUND', 'byKey', byKey).message).toBe(
      'no document in orders has pnr = 7',
    );
    // A placeholder used twice takes its value twice; values are never filled again.
    expect(fillTemplate('{a} and {a} of {b}', { a: '{b}', b: null })).toBe('{b} and {b} of null');
  });

  it('carry details and a status when given', () => {
    const error = dbError('ERR_SQL_SYNTAX', 'notString', {}, { line: 1 }, 400);
    expect([error.message, error.details, error.status]).toEqual([
      'the SQL text must be a string',
      { line: 1 },
      400,
    ]);
  });

  it('relay another code with their own words', () => {
    const values = { position: 2, count: 3, message: 'x is wrong' };
    const error = relayedError('ERR_DOCUMENT_INVALID', 'bulkItem', values, { field: 'x' });
    expect([error.code, error.message, error.details]).toEqual([
      'ERR_DOCUMENT_INVALID',
      'document 2 of 3: x is wrong',
      { field: 'x' },
    ]);
  });

  it('are held by the types to their code and placeholders', () => {
    const code: ErrorCode = 'ERR_DOCUMENT_NOT_FOUND';
    // @ts-expect-error: ERR_DOCUMENT_NOT_FOUND has no template 'nope'
    expect(() => dbError(code, 'nope', {})).not.toThrow();
    // @ts-expect-error: byId needs collection as well as id
    expect(dbError(code, 'byId', { id: 'a' }).message).toBe('no document with _id a in undefined');
    // @ts-expect-error: byId has no placeholder extra
    dbError(code, 'byId', { id: 'a', collection: 'c', extra: 1 });
  });
});

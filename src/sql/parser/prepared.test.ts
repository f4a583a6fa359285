/**
 * Proves the prepared-statement store: a handle is derived from the text alone (the same on
 * every call and every store), a store holds at most its limit with the least recently used
 * going first, and an unknown handle is ERR_SQL_HANDLE_UNKNOWN naming it.
 */

import { describe, expect, it } from 'vitest';
import { DbError } from '../../errors/index.js';
import { PREPARED_SQL_CHARS_MAX, PREPARED_STATEMENTS_MAX } from '../../util/index.js';
import { parse } from './parser.js';
import { PreparedStatements, statementHandle } from './prepared.js';

const text = (n: number) => `SELECT * FROM c WHERE n = ${n}`;

function held(store: PreparedStatements<ReturnType<typeof parse>>, sql: string): boolean {
  try {
    store.require(statementHandle(sql));
    return true;
  } catch (error) {
    expect((error as DbError).code).toBe('ERR_SQL_HANDLE_UNKNOWN');
    return false;
  }
}

describe('statementHandle', () => {
  it('is 22 base64url characters, the same for the same text, another for another', () => {
    const handle = statementHandle('SELECT * FROM c');
    expect(handle).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(statementHandle('SELECT * FROM c')).toBe(handle);
    expect(statementHandle('SELECT * FROM c ')).not.toBe(handle);
  });
});

describe('PreparedStatements', () => {
  it('finds a statement by its handle, with its text', () => {
    const store = new PreparedStatements();
    const parsed = parse('SELECT a FROM c WHERE b = ?');
    const added = store.add('SELECT a FROM c WHERE b = ?', parsed);
    expect(store.require(added.handle)).toEqual({
      handle: added.handle,
      sql: 'SELECT a FROM c WHERE b = ?',
      parsed,
    });
  });

  it('answers ERR_SQL_HANDLE_UNKNOWN (400) naming a handle it does not hold', () => {
    const error = (() => {
      try {
        new PreparedStatements().require('nosuchhandle');
      } catch (e) {
        return e as DbError;
      }
    })();
    expect(error).toBeInstanceOf(DbError);
    expect(error?.code).toBe('ERR_SQL_HANDLE_UNKNOWN');
    expect(error?.status).toBe(400);
    expect(error?.message).toContain("'nosuchhandle'");
    expect(error?.message).toContain('POST /query/prepare');
  });

  it(`prepares texts of up to ${PREPARED_SQL_CHARS_MAX} characters, and refuses longer ones (413)`, () => {
    // A parse holds up to ~80 bytes a character: 1,000 held 1 MiB texts filled the heap.
    const held = new PreparedStatements();
    const text = (n: number) => {
      const head = 'SELECT * FROM t WHERE a IN (';
      const list = '?,'.repeat(Math.floor((n - head.length - 2) / 2));
      return `${head}${list}1)`.padEnd(n, ' ');
    };
    const longest = text(PREPARED_SQL_CHARS_MAX);
    expect(held.add(longest, parse(longest)).sql).toHaveLength(PREPARED_SQL_CHARS_MAX);
    const over = `${longest} `;
    const error = (() => {
      try {
        held.add(over, parse(over));
      } catch (e) {
        return e as DbError;
      }
    })();
    expect(error).toMatchObject({ code: 'ERR_SQL_TOO_LONG', status: 413 });
    expect(error?.message).toContain('send it as text instead');
    expect(held.size).toBe(1);
  });

  it('preparing a text again keeps one entry under the same handle', () => {
    const store = new PreparedStatements();
    const first = store.add(text(1), parse(text(1)));
    const again = store.add(text(1), parse(text(1)));
    expect(again.handle).toBe(first.handle);
    expect(store.size).toBe(1);
  });

  it(`holds ${PREPARED_STATEMENTS_MAX} statements and lets the least recently used go one past it`, () => {
    const store = new PreparedStatements();
    for (let n = 0; n < PREPARED_STATEMENTS_MAX; n++) store.add(text(n), parse(text(n)));
    expect(store.size).toBe(PREPARED_STATEMENTS_MAX);
    // Using statement 0 makes statement 1 the least recently used.
    expect(held(store, text(0))).toBe(true);
    store.add(text(PREPARED_STATEMENTS_MAX), parse(text(PREPARED_STATEMENTS_MAX)));
    expect(store.size).toBe(PREPARED_STATEMENTS_MAX);
    expect(held(store, text(1))).toBe(false);
    expect(held(store, text(0))).toBe(true);
    expect(held(store, text(PREPARED_STATEMENTS_MAX))).toBe(true);
  });
});

/**
 * Prepared statements by handle: the one rule for what a handle is (a hash of the SQL text)
 * and the bounded store that finds a parsed statement by it. A node's statement cache and a
 * router each keep one; it never runs anything.
 */

import { createHash } from 'node:crypto';
import { dbError } from '../../errors/index.js';
import { ClockCache, PREPARED_SQL_CHARS_MAX, PREPARED_STATEMENTS_MAX } from '../../util/index.js';
import type { Parsed } from './parser.js';

/**
 * The handle of a SQL text: 128 bits of its SHA-256 in base64url (22 characters). Derived
 * from the text, not counted, so preparing the same text again answers the same handle on
 * any server and after a restart, and a router, a node and its worker processes agree
 * without talking to each other.
 */
export function statementHandle(sql: string): string {
  return createHash('sha256').update(sql).digest('base64url').slice(0, 22);
}

/** A statement held by handle, with the text it was prepared from. */
export interface PreparedEntry<T extends Parsed> {
  handle: string;
  sql: string;
  parsed: T;
}

/**
 * Parsed statements by handle, at most `limit` of them: past it a cold one goes (ClockCache),
 * and its handle is then unknown (ERR_SQL_HANDLE_UNKNOWN) until prepared again. Finding one
 * is one Map lookup by a 22-character key, whatever the length of the SQL.
 */
export class PreparedStatements<T extends Parsed> {
  private readonly entries: ClockCache<PreparedEntry<T>>;

  constructor(limit = PREPARED_STATEMENTS_MAX) {
    this.entries = new ClockCache(limit);
  }

  /** Holds `parsed` (the parse of `sql`) under the text's handle and answers the entry. */
  add(sql: string, parsed: T): PreparedEntry<T> {
    if (sql.length > PREPARED_SQL_CHARS_MAX) {
      throw dbError('ERR_SQL_TOO_LONG', 'preparedTooLong', {
        length: sql.length,
        limit: PREPARED_SQL_CHARS_MAX,
      });
    }
    const handle = statementHandle(sql);
    const held = this.entries.get(handle);
    // 128 bits of SHA-256: two texts with one handle would be a broken hash, not input.
    if (held !== undefined && held.sql !== sql) {
      throw new Error(`two SQL texts hash to handle ${handle}`);
    }
    const entry = { handle, sql, parsed };
    this.entries.set(handle, entry);
    return entry;
  }

  /** The statement prepared under `handle`; ERR_SQL_HANDLE_UNKNOWN when none is held. */
  require(handle: string): PreparedEntry<T> {
    const entry = this.entries.get(handle);
    if (entry === undefined) {
      throw dbError('ERR_SQL_HANDLE_UNKNOWN', 'unknown', { handle: String(handle).slice(0, 64) });
    }
    return entry;
  }

  /** How many statements are held. */
  get size(): number {
    return this.entries.size;
  }
}

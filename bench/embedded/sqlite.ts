/**
 * SQLite through better-sqlite3, set up the way a careful user stores JSON documents: one
 * table of JSON text, WAL with `synchronous=FULL` (every commit is fsynced, durable like
 * docdb), expression indexes on the scalar paths, and documents parsed with JSON.parse on
 * the way out (docdb hands back objects too). The only importer of better-sqlite3.
 *
 * Multikey paths (`passengers[*].lastName`, `flights[*].from`): SQLite cannot index an
 * expression that yields several values, so each gets a side table (value, order id) whose
 * primary key is the index, kept in step by triggers that read the document with
 * `json_each`. That is the standard SQLite answer and keeps the upkeep inside the same
 * transaction as the row, as docdb's index writes are.
 */

import * as path from 'node:path';
import Sqlite from 'better-sqlite3';
import type { Airport, Order } from '../data.js';
import type { EmbeddedSystem } from './system.js';

const SCHEMA = `
CREATE TABLE orders (id INTEGER PRIMARY KEY, doc TEXT NOT NULL);
CREATE UNIQUE INDEX orders_pnr ON orders (json_extract(doc, '$.pnr'));
CREATE INDEX orders_status ON orders (json_extract(doc, '$.status'));
CREATE INDEX orders_fare_total ON orders (json_extract(doc, '$.fare.total'));
CREATE TABLE orders_lastname (value TEXT NOT NULL, order_id INTEGER NOT NULL,
  PRIMARY KEY (value, order_id)) WITHOUT ROWID;
CREATE TABLE orders_from (value TEXT NOT NULL, order_id INTEGER NOT NULL,
  PRIMARY KEY (value, order_id)) WITHOUT ROWID;
CREATE TRIGGER orders_multikey_insert AFTER INSERT ON orders BEGIN
  INSERT OR IGNORE INTO orders_lastname SELECT json_extract(value, '$.lastName'), NEW.id
    FROM json_each(NEW.doc, '$.passengers') WHERE json_extract(value, '$.lastName') IS NOT NULL;
  INSERT OR IGNORE INTO orders_from SELECT json_extract(value, '$.from'), NEW.id
    FROM json_each(NEW.doc, '$.flights') WHERE json_extract(value, '$.from') IS NOT NULL;
END;
CREATE TRIGGER orders_multikey_delete AFTER DELETE ON orders BEGIN
  DELETE FROM orders_lastname WHERE order_id = OLD.id AND value IN
    (SELECT json_extract(value, '$.lastName') FROM json_each(OLD.doc, '$.passengers'));
  DELETE FROM orders_from WHERE order_id = OLD.id AND value IN
    (SELECT json_extract(value, '$.from') FROM json_each(OLD.doc, '$.flights'));
END;
CREATE TRIGGER orders_multikey_update AFTER UPDATE OF doc ON orders
  WHEN json_extract(OLD.doc, '$.passengers') IS NOT json_extract(NEW.doc, '$.passengers')
    OR json_extract(OLD.doc, '$.flights') IS NOT json_extract(NEW.doc, '$.flights')
BEGIN
  DELETE FROM orders_lastname WHERE order_id = OLD.id;
  DELETE FROM orders_from WHERE order_id = OLD.id;
  INSERT OR IGNORE INTO orders_lastname SELECT json_extract(value, '$.lastName'), NEW.id
    FROM json_each(NEW.doc, '$.passengers') WHERE json_extract(value, '$.lastName') IS NOT NULL;
  INSERT OR IGNORE INTO orders_from SELECT json_extract(value, '$.from'), NEW.id
    FROM json_each(NEW.doc, '$.flights') WHERE json_extract(value, '$.from') IS NOT NULL;
END;
CREATE TABLE airports (id INTEGER PRIMARY KEY, doc TEXT NOT NULL);
`;

/** The statements of the workloads, mirroring DOCDB_SQL. */
const SQL = {
  insert: 'INSERT INTO orders (doc) VALUES (?)',
  point: `SELECT doc FROM orders WHERE json_extract(doc, '$.pnr') = ?`,
  equality: `SELECT doc FROM orders WHERE json_extract(doc, '$.status') = ? LIMIT 100`,
  range: `SELECT doc FROM orders WHERE json_extract(doc, '$.fare.total') >= ?
    AND json_extract(doc, '$.fare.total') < ? LIMIT 100`,
  filter: `SELECT doc FROM orders WHERE json_extract(doc, '$.flights[0].to') = ?
    AND json_extract(doc, '$.passengers[0].type') = ?`,
  groupBy: `SELECT json_extract(doc, '$.status') AS status, COUNT(*) AS n,
    AVG(json_extract(doc, '$.fare.total')) AS avgTotal FROM orders GROUP BY 1`,
  join: `SELECT json_extract(o.doc, '$.pnr') AS pnr, json_extract(o.doc, '$.fare.total') AS total,
    json_extract(a.doc, '$.city') AS city
    FROM orders o JOIN airports a ON json_extract(a.doc, '$.code') = json_extract(o.doc, '$.flights[0].from')
    WHERE json_extract(o.doc, '$.fare.total') >= ? AND json_extract(o.doc, '$.fare.total') < ?`,
  update: `UPDATE orders SET doc = json_set(doc, '$.status', ?) WHERE json_extract(doc, '$.pnr') = ?`,
  remove: `DELETE FROM orders WHERE json_extract(doc, '$.pnr') = ?`,
} as const;

type Statements = { [K in keyof typeof SQL]: Sqlite.Statement };

/** The SQLite library version (`sqlite_version()`), for the machine record. */
export function sqliteVersion(): string {
  const db = new Sqlite(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

function parsed(rows: unknown[]): number {
  let n = 0;
  for (const row of rows) {
    JSON.parse((row as { doc: string }).doc);
    n++;
  }
  return n;
}

/** How long a writer of the concurrent-writers workload waits for SQLite's write lock. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/** One connection of the concurrent-writers workload: single-document durable writes. */
export interface SqliteWriter {
  insert(doc: Order): void;
  /** Sets the status of the order with this pnr; returns the rows changed. */
  update(pnr: string, status: string): number;
  close(): void;
}

/**
 * Opens another connection to an existing store (made by SqliteEmbedded), as each of the
 * concurrent writers holds its own: WAL, `synchronous=FULL`, and a busy timeout so that a
 * writer waits for the write lock instead of failing. Each statement is its own transaction.
 */
export function openSqliteWriter(dir: string): SqliteWriter {
  const db = new Sqlite(path.join(dir, 'bench.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const insert = db.prepare(SQL.insert);
  const update = db.prepare(SQL.update);
  return {
    insert: (doc) => {
      insert.run(JSON.stringify(doc));
    },
    update: (pnr, status) => update.run(status, pnr).changes,
    close: () => db.close(),
  };
}

export class SqliteEmbedded implements EmbeddedSystem {
  readonly name = 'sqlite' as const;
  private db: Sqlite.Database | undefined;
  private statements: Statements | undefined;
  private insertMany: ((docs: Order[]) => void) | undefined;

  private get s(): Statements {
    if (!this.statements) throw new Error('sqlite is not open');
    return this.statements;
  }

  async open(dir: string): Promise<void> {
    const db = new Sqlite(path.join(dir, 'bench.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(SCHEMA);
    this.db = db;
    this.statements = Object.fromEntries(
      Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)]),
    ) as Statements;
    const insert = this.statements.insert;
    this.insertMany = db.transaction((docs: Order[]) => {
      for (const doc of docs) insert.run(JSON.stringify(doc));
    });
  }

  insertBatch(docs: Order[]): number {
    (this.insertMany as (docs: Order[]) => void)(docs);
    return docs.length;
  }

  async loadAirports(airports: readonly Airport[]): Promise<void> {
    const db = this.db as Sqlite.Database;
    const insert = db.prepare('INSERT INTO airports (doc) VALUES (?)');
    db.transaction(() => {
      for (const airport of airports) insert.run(JSON.stringify(airport));
    })();
  }

  point(pnr: string): number {
    return parsed(this.s.point.all(pnr));
  }

  equality(status: string): number {
    return parsed(this.s.equality.all(status));
  }

  range(low: number, high: number): number {
    return parsed(this.s.range.all(low, high));
  }

  filter(to: string, type: string): number {
    return parsed(this.s.filter.all(to, type));
  }

  groupBy(): number {
    const rows = this.s.groupBy.all() as { n: number }[];
    return rows.reduce((sum, row) => sum + row.n, 0);
  }

  join(low: number, high: number): number {
    return this.s.join.all(low, high).length;
  }

  update(pnr: string, status: string): number {
    return this.s.update.run(status, pnr).changes;
  }

  remove(pnr: string): number {
    return this.s.remove.run(pnr).changes;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
    this.statements = undefined;
  }
}

/**
 * The contract every embedded system of the benchmark implements: the same workloads over
 * the same documents, each returning how many rows it produced so the harness can check that
 * the systems agree before it times them.
 */

import type { Airport, Order } from '../data.js';

/** The names of the embedded systems. */
export type EmbeddedName = 'docdb' | 'sqlite' | 'nedb';

/** One embedded store holding the `orders` collection with the five indexes of issue 5. */
export interface EmbeddedSystem {
  readonly name: EmbeddedName;
  /** Creates an empty store in `dir` with the five indexes. */
  open(dir: string): Promise<void>;
  /** Inserts one batch durably (as durable as the system gets); returns the batch size. */
  insertBatch(docs: Order[]): Promise<number> | number;
  /** Loads the small reference collection the JOIN reads. */
  loadAirports(airports: readonly Airport[]): Promise<void>;
  /** `SELECT * … WHERE pnr = ?` (unique index). */
  point(pnr: string): Promise<number> | number;
  /** `… WHERE status = ? LIMIT 100` (non-unique index). */
  equality(status: string): Promise<number> | number;
  /** `… WHERE fare.total >= ? AND fare.total < ? LIMIT 100` (index range). */
  range(low: number, high: number): Promise<number> | number;
  /** `… WHERE flights[0].to = ? AND passengers[0].type = ?` (no index: whole collection). */
  filter(to: string, type: string): Promise<number> | number;
  /** `SELECT status, COUNT(*), AVG(fare.total) … GROUP BY status`; returns the summed counts. */
  groupBy(): Promise<number> | number;
  /** Orders in a fare window joined with their departure airport; returns the row count. */
  join(low: number, high: number): Promise<number> | number;
  /** Sets the status of the order with this pnr; returns the rows changed. */
  update(pnr: string, status: string): Promise<number> | number;
  /** Deletes the order with this pnr; returns the rows deleted. */
  remove(pnr: string): Promise<number> | number;
  /** Closes the store (the harness removes its directory). */
  close(): Promise<void>;
}

/** The SQL docdb runs for each read workload; the peers' statements mirror these. */
export const DOCDB_SQL = {
  point: 'SELECT * FROM orders WHERE pnr = ?',
  equality: 'SELECT * FROM orders WHERE status = ? LIMIT 100',
  range: 'SELECT * FROM orders WHERE fare.total >= ? AND fare.total < ? LIMIT 100',
  filter: 'SELECT * FROM orders WHERE flights[0].to = ? AND passengers[0].type = ?',
  groupBy: 'SELECT status, COUNT(*) AS n, AVG(fare.total) AS avgTotal FROM orders GROUP BY status',
  join: 'SELECT orders.pnr, orders.fare.total, airports.city FROM orders JOIN airports ON orders.flights[0].from = airports.code WHERE orders.fare.total >= ? AND orders.fare.total < ?',
  update: 'UPDATE orders SET status = ? WHERE pnr = ?',
  remove: 'DELETE FROM orders WHERE pnr = ?',
  streamAll: 'SELECT * FROM orders',
} as const;

/**
 * docdb through its embedded API: `insertMany` for loads, `db.query` (SQL with `?`
 * parameters, plan cache) for every other workload. The only embedded system that imports
 * the engine.
 */

import { type Collection, type Database, open } from '../engine.js';
import type { Airport, Order } from '../data.js';
import { DOCDB_SQL, type EmbeddedSystem } from './system.js';

/** The five indexes of issue 5, as docdb declares them. */
export const DOCDB_INDEXES = [
  { name: 'orders_pnr', paths: ['pnr'], unique: true },
  { name: 'orders_status', paths: ['status'] },
  { name: 'orders_lastname', paths: ['passengers[*].lastName'] },
  { name: 'orders_from', paths: ['flights[*].from'] },
  { name: 'orders_fare_total', paths: ['fare.total'] },
];

/** Creates the five indexes on an (empty or loaded) orders collection. */
export async function createDocdbIndexes(orders: Collection): Promise<void> {
  for (const spec of DOCDB_INDEXES) await orders.createIndex(spec);
}

export class DocdbEmbedded implements EmbeddedSystem {
  readonly name = 'docdb' as const;
  private db: Database | undefined;
  private ordersHandle: Collection | undefined;

  /** The open database (the served phase reopens the same directory as a node). */
  get database(): Database {
    if (!this.db) throw new Error('docdb is not open');
    return this.db;
  }

  private get orders(): Collection {
    if (!this.ordersHandle) throw new Error('docdb is not open');
    return this.ordersHandle;
  }

  async open(dir: string): Promise<void> {
    this.db = await open(dir);
    this.ordersHandle = this.db.collection('orders');
    await createDocdbIndexes(this.ordersHandle);
  }

  async insertBatch(docs: Order[]): Promise<number> {
    const result = await this.orders.insertMany(docs);
    if (result.errors.length > 0) {
      throw new Error(`docdb insertMany failed: ${JSON.stringify(result.errors[0])}`);
    }
    return docs.length;
  }

  /** Inserts one document: its own durable write (concurrent callers share group commits). */
  async insertOne(doc: Order): Promise<void> {
    await this.orders.insert(doc);
  }

  async loadAirports(airports: readonly Airport[]): Promise<void> {
    await this.database.collection('airports').insertMany([...airports]);
  }

  private async rows(sql: string, params: unknown[]): Promise<number> {
    return (await this.database.query(sql, params)).count;
  }

  point(pnr: string): Promise<number> {
    return this.rows(DOCDB_SQL.point, [pnr]);
  }

  equality(status: string): Promise<number> {
    return this.rows(DOCDB_SQL.equality, [status]);
  }

  range(low: number, high: number): Promise<number> {
    return this.rows(DOCDB_SQL.range, [low, high]);
  }

  filter(to: string, type: string): Promise<number> {
    return this.rows(DOCDB_SQL.filter, [to, type]);
  }

  async groupBy(): Promise<number> {
    const { documents } = await this.database.query(DOCDB_SQL.groupBy);
    return documents.reduce((sum, row) => sum + (row.n as number), 0);
  }

  join(low: number, high: number): Promise<number> {
    return this.rows(DOCDB_SQL.join, [low, high]);
  }

  async update(pnr: string, status: string): Promise<number> {
    return (await this.database.query(DOCDB_SQL.update, [status, pnr])).affected ?? 0;
  }

  async remove(pnr: string): Promise<number> {
    return (await this.database.query(DOCDB_SQL.remove, [pnr])).affected ?? 0;
  }

  async close(): Promise<void> {
    await this.db?.close();
    this.db = undefined;
    this.ordersHandle = undefined;
  }
}

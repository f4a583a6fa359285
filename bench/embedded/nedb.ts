/**
 * NeDB (`@seald-io/nedb`), the JavaScript-native document store: an in-memory collection
 * persisted to an append-only file, with indexes on the same five paths (NeDB indexes every
 * element of an array path). NeDB has no SQL, no GROUP BY and no JOIN: those workloads are
 * written the way a NeDB user writes them, a find followed by JavaScript. Its appends are
 * not fsynced, so it is less durable than docdb and SQLite. The only importer of NeDB.
 */

import * as path from 'node:path';
import nedbModule from '@seald-io/nedb';
import type { Airport, Order } from '../data.js';
import type { EmbeddedSystem } from './system.js';

// The package is CommonJS typed as `export default`: the default import is the class itself.
const Datastore = nedbModule as unknown as typeof nedbModule.default;
type Store = InstanceType<typeof Datastore>;
type Row = Record<string, unknown>;

export class NedbEmbedded implements EmbeddedSystem {
  readonly name = 'nedb' as const;
  private ordersStore: Store | undefined;
  private airportsStore: Store | undefined;

  private get orders(): Store {
    if (!this.ordersStore) throw new Error('nedb is not open');
    return this.ordersStore;
  }

  async open(dir: string): Promise<void> {
    this.ordersStore = new Datastore({ filename: path.join(dir, 'orders.db') });
    this.airportsStore = new Datastore({ filename: path.join(dir, 'airports.db') });
    await this.ordersStore.loadDatabaseAsync();
    await this.airportsStore.loadDatabaseAsync();
    await this.orders.ensureIndexAsync({ fieldName: 'pnr', unique: true });
    await this.orders.ensureIndexAsync({ fieldName: 'status' });
    await this.orders.ensureIndexAsync({ fieldName: 'passengers.lastName' });
    await this.orders.ensureIndexAsync({ fieldName: 'flights.from' });
    await this.orders.ensureIndexAsync({ fieldName: 'fare.total' });
  }

  async insertBatch(docs: Order[]): Promise<number> {
    await this.orders.insertAsync(docs as unknown as Row[]);
    return docs.length;
  }

  async loadAirports(airports: readonly Airport[]): Promise<void> {
    await this.airportsStore?.insertAsync(airports.map((a) => ({ ...a })));
  }

  async point(pnr: string): Promise<number> {
    return (await this.orders.findOneAsync({ pnr })) ? 1 : 0;
  }

  async equality(status: string): Promise<number> {
    return (await this.orders.findAsync({ status }).limit(100)).length;
  }

  async range(low: number, high: number): Promise<number> {
    return (await this.orders.findAsync({ 'fare.total': { $gte: low, $lt: high } }).limit(100))
      .length;
  }

  async filter(to: string, type: string): Promise<number> {
    return (await this.orders.findAsync({ 'flights.0.to': to, 'passengers.0.type': type })).length;
  }

  async groupBy(): Promise<number> {
    const groups = new Map<unknown, { n: number; sum: number }>();
    for (const doc of await this.orders.findAsync({})) {
      const order = doc as unknown as Order;
      const group = groups.get(order.status) ?? { n: 0, sum: 0 };
      group.n++;
      group.sum += order.fare.total;
      groups.set(order.status, group);
    }
    let total = 0;
    for (const group of groups.values()) total += group.n;
    return total;
  }

  async join(low: number, high: number): Promise<number> {
    const orders = (await this.orders.findAsync({
      'fare.total': { $gte: low, $lt: high },
    })) as unknown as Order[];
    const codes = [...new Set(orders.map((o) => o.flights[0]?.from))];
    const airports = ((await this.airportsStore?.findAsync({ code: { $in: codes } })) ??
      []) as unknown as Airport[];
    const cities = new Map(airports.map((a) => [a.code, a.city]));
    const rows = [];
    for (const order of orders) {
      const city = cities.get(order.flights[0]?.from ?? '');
      if (city !== undefined) rows.push({ pnr: order.pnr, total: order.fare.total, city });
    }
    return rows.length;
  }

  async update(pnr: string, status: string): Promise<number> {
    const { numAffected } = await this.orders.updateAsync({ pnr }, { $set: { status } }, {});
    return numAffected;
  }

  async remove(pnr: string): Promise<number> {
    return this.orders.removeAsync({ pnr }, {});
  }

  async close(): Promise<void> {
    this.ordersStore = undefined;
    this.airportsStore = undefined;
  }
}

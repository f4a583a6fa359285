/**
 * The workloads of issue 5, their units and the targets docdb is held to. The phases run
 * them; the report prints and checks them. Data only.
 */

/** A workload's stable id, as it appears in results/latest.json. */
export type WorkloadId =
  | 'bulk-load'
  | 'point-lookup'
  | 'equality-limit'
  | 'range-limit'
  | 'unindexed-filter'
  | 'group-by'
  | 'join'
  | 'update-by-key'
  | 'delete-by-key'
  | 'rest-get-by-id'
  | 'rest-query-point'
  | 'rest-bulk-insert'
  | 'rest-stream-all';

export interface WorkloadInfo {
  id: WorkloadId;
  /** What a reader sees in tables. */
  title: string;
  /** What opsPerSec counts. */
  unit: 'docs/s' | 'queries/s' | 'ops/s' | 'requests/s';
  served: boolean;
}

export const WORKLOADS: readonly WorkloadInfo[] = [
  { id: 'bulk-load', title: 'bulk load, 5 indexes, 1,000/batch', unit: 'docs/s', served: false },
  { id: 'point-lookup', title: 'point lookup by pnr (SQL)', unit: 'queries/s', served: false },
  { id: 'equality-limit', title: 'status = ? LIMIT 100', unit: 'queries/s', served: false },
  { id: 'range-limit', title: 'fare.total range LIMIT 100', unit: 'queries/s', served: false },
  {
    id: 'unindexed-filter',
    title: 'unindexed filter, whole collection',
    unit: 'queries/s',
    served: false,
  },
  { id: 'group-by', title: 'GROUP BY status, COUNT, AVG', unit: 'queries/s', served: false },
  { id: 'join', title: 'JOIN ~500 orders with airports', unit: 'queries/s', served: false },
  { id: 'update-by-key', title: 'UPDATE … WHERE pnr = ? (durable)', unit: 'ops/s', served: false },
  { id: 'delete-by-key', title: 'DELETE … WHERE pnr = ? (durable)', unit: 'ops/s', served: false },
  {
    id: 'rest-get-by-id',
    title: 'REST GET /collections/orders/{_id}',
    unit: 'requests/s',
    served: true,
  },
  {
    id: 'rest-query-point',
    title: 'REST POST /query point lookup',
    unit: 'requests/s',
    served: true,
  },
  {
    id: 'rest-bulk-insert',
    title: 'REST bulk insert, 1,000/request',
    unit: 'docs/s',
    served: true,
  },
  {
    id: 'rest-stream-all',
    title: 'REST NDJSON stream of the collection',
    unit: 'docs/s',
    served: true,
  },
];

/** The title of a workload. */
export function workloadInfo(id: WorkloadId): WorkloadInfo {
  return WORKLOADS.find((w) => w.id === id) as WorkloadInfo;
}

/** A target of issue 5: the median ratio docdb/peer must reach `atLeast`. */
export interface Target {
  workloads: WorkloadId[];
  vs: string;
  atLeast: number;
  text: string;
}

export const TARGETS: readonly Target[] = [
  {
    workloads: ['bulk-load'],
    vs: 'sqlite',
    atLeast: 2,
    text: 'bulk load with 5 indexes ≥ 2× SQLite',
  },
  {
    workloads: ['point-lookup'],
    vs: 'sqlite',
    atLeast: 2,
    text: 'point lookup through SQL ≥ 2× SQLite',
  },
  {
    workloads: ['unindexed-filter'],
    vs: 'sqlite',
    atLeast: 2,
    text: 'unindexed filter ≥ 2× SQLite',
  },
  {
    workloads: ['range-limit'],
    vs: 'sqlite',
    atLeast: 2,
    text: 'range on index LIMIT 100 ≥ 2× SQLite',
  },
  { workloads: ['group-by'], vs: 'sqlite', atLeast: 1.5, text: 'GROUP BY ≥ 1.5× SQLite' },
  {
    workloads: ['rest-get-by-id', 'rest-query-point'],
    vs: 'http-ceiling',
    atLeast: 0.8,
    text: 'REST GET by _id and point POST /query ≥ 0.8× the HTTP ceiling',
  },
  {
    workloads: ['rest-bulk-insert'],
    vs: 'postgres',
    atLeast: 1.5,
    text: 'REST bulk insert ≥ 1.5× PostgreSQL COPY through pg',
  },
];

/** The scale target: lookups keep ≥ 0.8× their 250k rate at 10M, and the file ≤ 2.9 GB. */
export const SCALE_TARGET = { lookupRatioAtLeast: 0.8, fileBytesAtMost: 2.9e9, docs: 10_000_000 };

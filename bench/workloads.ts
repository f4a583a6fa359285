/**
 * The workloads of issues 5 and 13, their units, which system each ratio is about, and the
 * targets docdb is held to (issue 13's, with issue 22's for the write path). The phases run them; the report prints and checks
 * them. Data only.
 */

/** A workload's stable id, as it appears in results/latest.json. */
export type WorkloadId =
  | 'bulk-load'
  | 'point-lookup'
  | 'equality-limit'
  | 'range-limit'
  | 'unindexed-filter'
  | 'unindexed-filter-after-write'
  | 'group-by'
  | 'group-by-after-write'
  | 'join'
  | 'update-by-key'
  | 'delete-by-key'
  | 'rest-get-by-id'
  | 'rest-query-point'
  | 'rest-query-point-prepared'
  | 'rest-bulk-insert'
  | 'rest-stream-all'
  | 'rest-get-by-id-while-writing'
  | 'rest-get-by-id-every-core'
  | 'concurrent-writers'
  | 'rest-concurrent-writers'
  | 'replicated-bulk-load'
  | 'replicated-bulk-load-sync'
  | 'router-point-lookup'
  | 'router-group-by'
  | 'cluster-client-point-lookup';

/** Where a workload's table sits on the page. */
export type Section = 'embedded' | 'served' | 'writers' | 'cluster';

export interface WorkloadInfo {
  id: WorkloadId;
  /** What a reader sees in tables. */
  title: string;
  /** What opsPerSec counts. */
  unit: 'docs/s' | 'queries/s' | 'ops/s' | 'requests/s' | 'writes/s';
  section: Section;
  /**
   * The system whose rate is the numerator of the ratios (docdb for the comparisons with
   * peers; the leader or the router when docdb is set against a single docdb node).
   */
  subject: string;
  /**
   * What the ratios compare: the rates (the default; above 1 the subject is faster) or, for a
   * latency row, the p99 latencies of each round (above 1 the subject is slower, so its
   * target is a ceiling, `atMost`).
   */
  compares?: 'rate' | 'p99';
}

const embedded = (
  id: WorkloadId,
  title: string,
  unit: WorkloadInfo['unit'] = 'queries/s',
): WorkloadInfo => ({ id, title, unit, section: 'embedded', subject: 'docdb' });

export const WORKLOADS: readonly WorkloadInfo[] = [
  embedded('bulk-load', 'bulk load, 5 indexes, 1,000/batch', 'docs/s'),
  embedded('point-lookup', 'point lookup by pnr (SQL)'),
  embedded('equality-limit', 'status = ? LIMIT 100'),
  embedded('range-limit', 'fare.total range LIMIT 100'),
  embedded('unindexed-filter', 'unindexed filter, whole collection (repeated, cache hit)'),
  embedded('unindexed-filter-after-write', 'unindexed filter, whole collection, after a write'),
  embedded('group-by', 'GROUP BY status, COUNT, AVG (repeated, cache hit)'),
  embedded('group-by-after-write', 'GROUP BY status, COUNT, AVG, after a write'),
  embedded('join', 'JOIN ~500 orders with airports'),
  embedded('update-by-key', 'UPDATE … WHERE pnr = ? (durable)', 'ops/s'),
  embedded('delete-by-key', 'DELETE … WHERE pnr = ? (durable)', 'ops/s'),
  {
    id: 'rest-get-by-id',
    title: 'REST GET /collections/orders/{_id}',
    unit: 'requests/s',
    section: 'served',
    subject: 'docdb',
  },
  {
    id: 'rest-query-point',
    title: 'REST POST /query point lookup',
    unit: 'requests/s',
    section: 'served',
    subject: 'docdb',
  },
  {
    id: 'rest-query-point-prepared',
    title: 'REST POST /query point lookup, prepared',
    unit: 'requests/s',
    section: 'served',
    subject: 'docdb',
  },
  {
    id: 'rest-bulk-insert',
    title: 'REST bulk insert, 1,000/request',
    unit: 'docs/s',
    section: 'served',
    subject: 'docdb',
  },
  {
    id: 'rest-stream-all',
    title: 'REST NDJSON stream of the collection',
    unit: 'docs/s',
    section: 'served',
    subject: 'docdb',
  },
  {
    id: 'rest-get-by-id-while-writing',
    title: 'reads while writing: REST GET /collections/orders/{_id}, 8 durable writers running',
    unit: 'requests/s',
    section: 'served',
    subject: 'docdb',
    compares: 'p99',
  },
  {
    id: 'rest-get-by-id-every-core',
    title:
      'every core: REST GET /collections/orders/{_id}, the default processes (the cores) against one',
    unit: 'requests/s',
    section: 'served',
    subject: 'docdb',
  },
  {
    id: 'concurrent-writers',
    title: '8 concurrent durable writers, embedded (half inserts, half updates)',
    unit: 'writes/s',
    section: 'writers',
    subject: 'docdb',
  },
  {
    id: 'rest-concurrent-writers',
    title: '8 concurrent durable writers, served (8 connections)',
    unit: 'writes/s',
    section: 'writers',
    subject: 'docdb',
  },
  {
    id: 'replicated-bulk-load',
    title: 'REST bulk load, leader with one follower (syncFollowers 0)',
    unit: 'docs/s',
    section: 'cluster',
    subject: 'leader',
  },
  {
    id: 'replicated-bulk-load-sync',
    title: 'REST bulk load, leader with one follower (syncFollowers 1)',
    unit: 'docs/s',
    section: 'cluster',
    subject: 'leader',
  },
  {
    id: 'router-point-lookup',
    title: 'REST POST /query point lookup by the shard key (pnr)',
    unit: 'requests/s',
    section: 'cluster',
    subject: 'router',
  },
  {
    id: 'router-group-by',
    title: 'REST POST /query GROUP BY status (scatter over 3 shards)',
    unit: 'queries/s',
    section: 'cluster',
    subject: 'router',
  },
  {
    id: 'cluster-client-point-lookup',
    title: 'point lookup by the shard key (pnr) through the typed client, 32 callers',
    unit: 'queries/s',
    section: 'cluster',
    subject: 'cluster-client',
  },
];

/** The description of a workload. */
export function workloadInfo(id: WorkloadId): WorkloadInfo {
  return WORKLOADS.find((w) => w.id === id) as WorkloadInfo;
}

/**
 * One ratio a target checks: the median ratio subject/`vs` of `workload` must reach `atLeast`
 * (a rate: higher is better) or stay at or under `atMost` (a latency: lower is better).
 */
export type TargetCheck = { workload: WorkloadId; vs: string } & (
  | { atLeast: number }
  | { atMost: number }
);

/** A row of issue 13's targets table: met when every check is. */
export interface Target {
  text: string;
  checks: TargetCheck[];
}

const each = (workloads: WorkloadId[], vs: string, atLeast: number): TargetCheck[] =>
  workloads.map((workload) => ({ workload, vs, atLeast }));

/**
 * Issue 13's targets, with issue 22's (the median ratio of one full run; above 1 means docdb is
 * faster, except in a latency row, where it means docdb's p99 is longer).
 */
export const TARGETS: readonly Target[] = [
  { text: 'bulk load, 5 indexes, durable ≥ 2× SQLite', checks: each(['bulk-load'], 'sqlite', 2) },
  {
    text: 'point lookup (SQL), equality LIMIT 100, range LIMIT 100, JOIN ≥ 2× SQLite each',
    checks: each(['point-lookup', 'equality-limit', 'range-limit', 'join'], 'sqlite', 2),
  },
  {
    text: 'unindexed filter and GROUP BY, after a write ≥ 2× and ≥ 1.5× SQLite',
    checks: [
      { workload: 'unindexed-filter-after-write', vs: 'sqlite', atLeast: 2 },
      { workload: 'group-by-after-write', vs: 'sqlite', atLeast: 1.5 },
    ],
  },
  {
    text: 'durable single UPDATE and DELETE, one client ≥ 1.5× SQLite',
    checks: each(['update-by-key', 'delete-by-key'], 'sqlite', 1.5),
  },
  {
    text: "durable single UPDATE ≥ 0.6× the disk's own limit (append + fdatasync of its size)",
    checks: each(['update-by-key'], 'disk', 0.6),
  },
  {
    text: '8 concurrent durable writers ≥ 3× SQLite, ≥ 1.5× PostgreSQL',
    checks: [
      { workload: 'concurrent-writers', vs: 'sqlite', atLeast: 3 },
      { workload: 'concurrent-writers', vs: 'postgres', atLeast: 1.5 },
      { workload: 'rest-concurrent-writers', vs: 'postgres', atLeast: 1.5 },
    ],
  },
  {
    text: 'REST GET by `_id`, REST point `/query` ≥ 0.8× the HTTP ceiling',
    checks: each(['rest-get-by-id', 'rest-query-point'], 'http-ceiling', 0.8),
  },
  {
    text: 'reads while writing: REST GET by `_id` p99 with 8 writers running ≤ 2× its p99 without writers',
    checks: [{ workload: 'rest-get-by-id-while-writing', vs: 'no-writers', atMost: 2 }],
  },
  {
    text: 'every core: REST GET by `_id` with the default processes ≥ 1.6× one process (2 cores, shared with the load generator)',
    checks: [{ workload: 'rest-get-by-id-every-core', vs: 'one-process', atLeast: 1.6 }],
  },
  {
    text: 'REST bulk insert ≥ 1.5× PostgreSQL COPY',
    checks: each(['rest-bulk-insert'], 'postgres', 1.5),
  },
  { text: 'REST NDJSON stream ≥ 2× PostgreSQL', checks: each(['rest-stream-all'], 'postgres', 2) },
  {
    text: 'leader with one follower, bulk load ≥ 0.9× a single node (0.7× with `syncFollowers` 1)',
    checks: [
      { workload: 'replicated-bulk-load', vs: 'single-node', atLeast: 0.9 },
      { workload: 'replicated-bulk-load-sync', vs: 'single-node', atLeast: 0.7 },
    ],
  },
  {
    text: 'router point lookup ≥ 0.7× the node directly',
    checks: each(['router-point-lookup'], 'node', 0.7),
  },
];

/**
 * The scale target of issue 13: at 10,000,000 documents lookups keep ≥ 0.8× and loading
 * ≥ 0.7× their 250,000 rates, and the file stays ≤ 2.9 GB.
 */
export const SCALE_TARGET = {
  text: '10M documents (scale mode): lookups ≥ 0.8× and load ≥ 0.7× their 250k rates; file ≤ 2.9 GB',
  lookupRatioAtLeast: 0.8,
  loadRatioAtLeast: 0.7,
  fileBytesAtMost: 2.9e9,
  docs: 10_000_000,
};

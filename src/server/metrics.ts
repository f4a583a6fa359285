/**
 * Prometheus metrics of one app (its own registry, so several apps in one process do not
 * mix): requests by route and status, requests in flight, a latency histogram, documents
 * written and query plans used. The only importer of prom-client.
 *
 * Counting happens on every request and a scrape every few seconds, so the per-request
 * numbers live in plain fields (one RouteStats per method and route, one count per plan kind)
 * and reach prom-client only when /metrics is read: its label hashing cost more per request
 * than the rest of a served point lookup's bookkeeping together.
 */

import { Counter, Gauge, type Histogram, Registry } from 'prom-client';

/** Upper bounds of the latency histogram's buckets, in seconds. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** The route label of requests no route matched (404s, and errors raised before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** What one method on one route has counted: plain numbers, so counting costs a few adds. */
export class RouteStats {
  inFlight = 0;
  /** Answers by HTTP status. */
  readonly statuses = new Map<number, number>();
  /** Answers per latency bucket (not cumulative); the last slot is above every bound. */
  readonly bucketCounts = new Float64Array(LATENCY_BUCKETS_SECONDS.length + 1);
  latencySumSeconds = 0;
  latencyCount = 0;

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  /** Counts one answer and its latency. */
  answered(status: number, seconds: number): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (
      bucket < LATENCY_BUCKETS_SECONDS.length &&
      seconds > (LATENCY_BUCKETS_SECONDS[bucket] as number)
    ) {
      bucket++;
    }
    this.bucketCounts[bucket] = (this.bucketCounts[bucket] as number) + 1;
    this.latencySumSeconds += seconds;
    this.latencyCount++;
  }
}

/**
 * One process's request counts as plain data: what a reader process sends the node's first
 * process, which sums them into its own at each scrape (readers.ts, issue 25).
 */
export interface MetricsSnapshot {
  routes: Array<{
    method: string;
    route: string;
    inFlight: number;
    statuses: Array<[status: number, answers: number]>;
    bucketCounts: number[];
    latencySumSeconds: number;
    latencyCount: number;
  }>;
  plans: Array<[kind: string, queries: number]>;
}

/** Adds one snapshot's route counts into `into` (by route, then method). */
function addRoutes(
  into: Map<string, RouteStats>,
  routes: MetricsSnapshot['routes'] | Iterable<RouteStats>,
): void {
  for (const s of routes) {
    const key = `${s.method} ${s.route}`;
    let sum = into.get(key);
    if (!sum) {
      sum = new RouteStats(s.method, s.route);
      into.set(key, sum);
    }
    sum.inFlight += s.inFlight;
    for (const [status, n] of s.statuses)
      sum.statuses.set(status, (sum.statuses.get(status) ?? 0) + n);
    s.bucketCounts.forEach((n, i) => {
      sum.bucketCounts[i] = (sum.bucketCounts[i] as number) + n;
    });
    sum.latencySumSeconds += s.latencySumSeconds;
    sum.latencyCount += s.latencyCount;
  }
}

/** One sample as prom-client's registry formats it. */
interface Sample {
  metricName: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The latency histogram as prom-client's registry reads a metric (name, help, type,
 * aggregator, `get()`), built at scrape time from the RouteStats. prom-client's own Histogram
 * cannot take counts made elsewhere, and observing into it costs a label hash per request.
 */
class LatencyHistogram {
  readonly name = 'docdb_http_request_duration_seconds';
  readonly help = 'HTTP request latency by method and route.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(private readonly stats: () => Iterable<RouteStats>) {}

  async get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: Sample[];
  }> {
    const values: Sample[] = [];
    for (const s of this.stats()) {
      if (s.latencyCount === 0) continue;
      let cumulative = 0;
      LATENCY_BUCKETS_SECONDS.forEach((bound, i) => {
        cumulative += s.bucketCounts[i] as number;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { le: String(bound), method: s.method, route: s.route },
          value: cumulative,
        });
      });
      const labels = { method: s.method, route: s.route };
      values.push(
        {
          metricName: `${this.name}_bucket`,
          labels: { le: '+Inf', ...labels },
          value: s.latencyCount,
        },
        { metricName: `${this.name}_sum`, labels, value: s.latencySumSeconds },
        { metricName: `${this.name}_count`, labels, value: s.latencyCount },
      );
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    };
  }

  /** The registry's resetMetrics() calls this; the counts belong to the RouteStats. */
  reset(): void {}
}

/** The kind of access path a plan string names: its text up to the first '(' or space. */
function planKind(plan: string): string {
  for (let i = 0; i < plan.length; i++) {
    const c = plan.charCodeAt(i);
    if (c === 40 /* ( */ || c === 32 /* space */) return plan.slice(0, i);
  }
  return plan;
}

/** Documents written so far, by operation: what the engine counted. */
export type WriteCountsSource = () => { insert: number; replace: number; delete: number };

/** What the engine's selection cache holds (a node's; a router has none). */
export type SelectionCacheSource = () => { selections: number; documents: number };

/** What the metrics read of replication (its status: counters, followers, the leader link). */
export type ReplicationSource = () => {
  term: number;
  lastSeq: number;
  followers: Array<{ name: string; lagEntries: number; lagSeconds: number }>;
  leader: { leader: string; lagEntries: number | null } | null;
  lease: { valid: boolean; required: boolean } | null;
  counters: Record<string, number>;
};

/** The replication counters as Prometheus counters: status field → metric name and help. */
const REPLICATION_COUNTERS: ReadonlyArray<[field: string, name: string, help: string]> = [
  ['entriesSent', 'docdb_replication_entries_sent_total', 'Change-log entries sent to followers.'],
  ['bytesSent', 'docdb_replication_bytes_sent_total', 'Bytes of entries sent to followers.'],
  ['snapshotsSent', 'docdb_replication_snapshots_sent_total', 'Snapshots sent to followers.'],
  ['entriesApplied', 'docdb_replication_entries_applied_total', "Leader's entries applied here."],
  ['bytesReceived', 'docdb_replication_bytes_received_total', 'Bytes of entries received.'],
  ['reconnects', 'docdb_replication_reconnects_total', 'Connections to the leader made again.'],
  ['gaps', 'docdb_replication_gaps_total', 'Seqs received out of order and asked for again.'],
  [
    'divergences',
    'docdb_replication_divergences_total',
    "Histories found parted from the leader's (a follower's entries it never had, rolled back or refused).",
  ],
];

function registerReplicationMetrics(registry: Registry, replication: ReplicationSource): void {
  for (const [field, name, help] of REPLICATION_COUNTERS) {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(replication().counters[field] ?? 0);
      },
    });
  }
  new Gauge({
    name: 'docdb_replication_lag_entries',
    help: 'Entries a follower has not applied: on a leader one series per follower, on a follower one for its leader.',
    labelNames: ['peer'] as const,
    registers: [registry],
    collect() {
      this.reset();
      const { followers, leader } = replication();
      for (const f of followers) this.set({ peer: f.name }, f.lagEntries);
      if (leader?.lagEntries != null) this.set({ peer: leader.leader }, leader.lagEntries);
    },
  });
  new Gauge({
    name: 'docdb_replication_lag_seconds',
    help: "Age of the oldest entry a follower has not acknowledged, per follower (leader's view).",
    labelNames: ['peer'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const f of replication().followers) this.set({ peer: f.name }, f.lagSeconds);
    },
  });
  new Gauge({
    name: 'docdb_replication_term',
    help: 'The replication term this node is in.',
    registers: [registry],
    collect() {
      this.set(replication().term);
    },
  });
  new Gauge({
    name: 'docdb_replication_lease_valid',
    help: 'On a leader whose followers use auto-failover: 1 while its lease from them holds and it acknowledges writes, 0 while it refuses them.',
    registers: [registry],
    collect() {
      this.reset();
      const lease = replication().lease;
      if (lease?.required) this.set(lease.valid ? 1 : 0);
    },
  });
  new Gauge({
    name: 'docdb_replication_last_seq',
    help: "The seq of this node's newest change-log entry.",
    registers: [registry],
    collect() {
      this.set(replication().lastSeq);
    },
  });
}

function registerSelectionCacheMetrics(registry: Registry, cache: SelectionCacheSource): void {
  new Gauge({
    name: 'docdb_selection_cache_selections',
    help: 'Selections of whole scans the node keeps in memory and brings up to each commit.',
    registers: [registry],
    collect() {
      this.set(cache().selections);
    },
  });
  new Gauge({
    name: 'docdb_selection_cache_documents',
    help: 'Documents held in the kept selections, over all of them.',
    registers: [registry],
    collect() {
      this.set(cache().documents);
    },
  });
}

export class Metrics {
  readonly registry = new Registry();
  /** RouteStats by route, then by method. */
  private readonly routes = new Map<string, Map<string, RouteStats>>();
  /** Queries by plan kind (a handful: the planner's access paths). */
  private readonly plans = new Map<string, number>();
  /** GET /changes answers still following the change log (closed when their follow ended). */
  changeFeedsOpen = 0;
  /** The other processes of the node, whose counts each scrape adds (sumWith). */
  private peers: (() => Promise<MetricsSnapshot[]>) | undefined;
  /** While a scrape that sums peers runs: the sums it reports instead of this app's counts. */
  private summed: { routes: RouteStats[]; plans: Map<string, number> } | undefined;

  /**
   * `written` reads the engine's count of documents written (every API: REST, SQL, seed);
   * `selectionCache` what its selection cache holds.
   */
  constructor(
    written: WriteCountsSource = () => ({ insert: 0, replace: 0, delete: 0 }),
    replication?: ReplicationSource,
    selectionCache?: SelectionCacheSource,
  ) {
    if (replication) registerReplicationMetrics(this.registry, replication);
    if (selectionCache) registerSelectionCacheMetrics(this.registry, selectionCache);
    const stats = () => this.allStats();
    const plans = () => this.summed?.plans ?? this.plans;
    new Counter({
      name: 'docdb_documents_written_total',
      help: 'Documents inserted, replaced or deleted, through any API.',
      labelNames: ['operation'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [operation, n] of Object.entries(written())) this.inc({ operation }, n);
      },
    });
    new Counter({
      name: 'docdb_http_requests_total',
      help: 'HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of stats()) {
          for (const [status, n] of s.statuses) {
            this.inc({ method: s.method, route: s.route, status: String(status) }, n);
          }
        }
      },
    });
    this.registry.registerMetric(new LatencyHistogram(stats) as unknown as Histogram);
    new Gauge({
      name: 'docdb_http_requests_in_flight',
      help: 'HTTP requests received and not yet answered, by method and route.',
      labelNames: ['method', 'route'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of stats()) this.set({ method: s.method, route: s.route }, s.inFlight);
      },
    });
    const feeds = () => this.changeFeedsOpen;
    new Gauge({
      name: 'docdb_change_feeds_open',
      help: 'GET /changes answers following the change log now.',
      registers: [this.registry],
      collect() {
        this.set(feeds());
      },
    });
    new Counter({
      name: 'docdb_query_plans_total',
      help: 'Queries by the kind of access path their plan used.',
      labelNames: ['plan'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [plan, n] of plans()) this.inc({ plan }, n);
      },
    });
  }

  /** The stats of one method on one route (`undefined`: no route matched), made on first use. */
  routeStats(method: string, route: string | undefined): RouteStats {
    const path = route ?? UNMATCHED_ROUTE;
    let byMethod = this.routes.get(path);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(path, byMethod);
    }
    let stats = byMethod.get(method);
    if (!stats) {
      stats = new RouteStats(method, path);
      byMethod.set(method, stats);
    }
    return stats;
  }

  /** Requests received and not yet answered, over every route. */
  requestsInFlight(): number {
    let n = 0;
    for (const s of this.ownStats()) n += s.inFlight;
    return n;
  }

  /** Counts a query under its access path kind (the plan string up to the first '('). */
  countPlan(plan: string): void {
    const kind = planKind(plan);
    this.plans.set(kind, (this.plans.get(kind) ?? 0) + 1);
  }

  /**
   * Makes every scrape add the counts `peers` answers (the node's reader processes) to this
   * app's: requests, latencies, in flight and plans are then the node's, not one process's.
   */
  sumWith(peers: () => Promise<MetricsSnapshot[]>): void {
    this.peers = peers;
  }

  /** This app's request and plan counts, as plain data. */
  snapshot(): MetricsSnapshot {
    return {
      routes: [...this.ownStats()].map((s) => ({
        method: s.method,
        route: s.route,
        inFlight: s.inFlight,
        statuses: [...s.statuses],
        bucketCounts: [...s.bucketCounts],
        latencySumSeconds: s.latencySumSeconds,
        latencyCount: s.latencyCount,
      })),
      plans: [...this.plans],
    };
  }

  async text(): Promise<string> {
    if (!this.peers) return this.registry.metrics();
    const snapshots = await this.peers();
    const routes = new Map<string, RouteStats>();
    addRoutes(routes, this.ownStats());
    const plans = new Map(this.plans);
    for (const snapshot of snapshots) {
      addRoutes(routes, snapshot.routes);
      for (const [kind, n] of snapshot.plans) plans.set(kind, (plans.get(kind) ?? 0) + n);
    }
    // Scrapes are rare (seconds apart); one overlapping another reports either's sums.
    this.summed = { routes: [...routes.values()], plans };
    try {
      return await this.registry.metrics();
    } finally {
      this.summed = undefined;
    }
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private *allStats(): Generator<RouteStats> {
    if (this.summed) yield* this.summed.routes;
    else yield* this.ownStats();
  }

  private *ownStats(): Generator<RouteStats> {
    for (const byMethod of this.routes.values()) yield* byMethod.values();
  }
}

/**
 * Prometheus metrics of one app (its own registry, so several apps in one process do not
 * mix): requests by route and status, requests in flight, a latency histogram, documents
 * written and query plans used. The only importer of prom-client.
 */

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'docdb_http_requests_total',
    help: 'HTTP requests by method, route and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'docdb_http_request_duration_seconds',
    help: 'HTTP request latency by method and route.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({
    name: 'docdb_http_requests_in_flight',
    help: 'HTTP requests received and not yet answered, by method and route.',
    labelNames: ['method', 'route'] as const,
    registers: [this.registry],
  });
  readonly documentsWritten = new Counter({
    name: 'docdb_documents_written_total',
    help: 'Documents inserted, replaced or deleted through the API.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  readonly plans = new Counter({
    name: 'docdb_query_plans_total',
    help: 'Queries by the kind of access path their plan used.',
    labelNames: ['plan'] as const,
    registers: [this.registry],
  });

  /** Counts a query under its access path kind (the plan string up to the first '('). */
  countPlan(plan: string): void {
    this.plans.inc({ plan: plan.split(/[( ]/)[0] ?? plan });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

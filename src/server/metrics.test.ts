/**
 * Proves the request counters kept outside prom-client reach /metrics as Prometheus text
 * with the same names, labels and types as before: a latency histogram with cumulative
 * buckets (a value on a bound counts in that bucket), requests by status, in-flight requests
 * by route, and plans by kind; and that a node's processes' counts are summed into one scrape.
 */

import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS_SECONDS, Metrics, UNMATCHED_ROUTE } from './metrics.js';

function line(text: string, prefix: string): string | undefined {
  return text.split('\n').find((l) => l.startsWith(prefix));
}

describe('Metrics', () => {
  it('writes the latency histogram with cumulative buckets, +Inf, sum and count', async () => {
    const metrics = new Metrics();
    const stats = metrics.routeStats('GET', '/collections/:name/:id');
    stats.answered(200, 0.0005); // on the first bound: counted in it
    stats.answered(200, 0.0007);
    stats.answered(404, 0.003);
    stats.answered(200, 60); // above every bound: only in +Inf
    const text = await metrics.text();
    expect(text).toContain('# TYPE docdb_http_request_duration_seconds histogram');
    const labels = 'method="GET",route="/collections/:name/:id"';
    const bucket = (le: string) =>
      line(text, `docdb_http_request_duration_seconds_bucket{le="${le}",${labels}} `);
    expect(bucket('0.0005')).toMatch(/ 1$/);
    expect(bucket('0.001')).toMatch(/ 2$/);
    expect(bucket('0.0025')).toMatch(/ 2$/);
    expect(bucket('0.005')).toMatch(/ 3$/);
    expect(bucket(String(LATENCY_BUCKETS_SECONDS.at(-1)))).toMatch(/ 3$/);
    expect(bucket('+Inf')).toMatch(/ 4$/);
    expect(line(text, `docdb_http_request_duration_seconds_count{${labels}} `)).toMatch(/ 4$/);
    const sum = line(text, `docdb_http_request_duration_seconds_sum{${labels}} `);
    expect(Number(sum?.split(' ')[1])).toBeCloseTo(60.0042, 6);
  });

  it('counts requests by method, route and status, and requests in flight', async () => {
    const metrics = new Metrics();
    const query = metrics.routeStats('POST', '/query');
    expect(metrics.routeStats('POST', '/query')).toBe(query);
    query.inFlight += 2;
    query.answered(200, 0.001);
    query.answered(400, 0.001);
    query.answered(200, 0.001);
    metrics.routeStats('GET', undefined).answered(404, 0.001);
    expect(metrics.requestsInFlight()).toBe(2);
    const text = await metrics.text();
    expect(text).toContain('# TYPE docdb_http_requests_total counter');
    expect(
      line(text, 'docdb_http_requests_total{method="POST",route="/query",status="200"} '),
    ).toMatch(/ 2$/);
    expect(
      line(text, 'docdb_http_requests_total{method="POST",route="/query",status="400"} '),
    ).toMatch(/ 1$/);
    expect(
      line(
        text,
        `docdb_http_requests_total{method="GET",route="${UNMATCHED_ROUTE}",status="404"} `,
      ),
    ).toMatch(/ 1$/);
    expect(line(text, 'docdb_http_requests_in_flight{method="POST",route="/query"} ')).toMatch(
      / 2$/,
    );
    // A scrape reports totals, not the change since the last one.
    expect(await metrics.text()).toBe(text);
  });

  it('counts query plans by the access path kind', async () => {
    const metrics = new Metrics();
    metrics.countPlan('INDEX_SCAN(orders_pnr)');
    metrics.countPlan('INDEX_SCAN(orders_status)');
    metrics.countPlan('INDEX_SCAN_MULTI(orders_status, 2 keys)');
    metrics.countPlan('COLLECTION_SCAN');
    const text = await metrics.text();
    expect(line(text, 'docdb_query_plans_total{plan="INDEX_SCAN"} ')).toMatch(/ 2$/);
    expect(line(text, 'docdb_query_plans_total{plan="INDEX_SCAN_MULTI"} ')).toMatch(/ 1$/);
    expect(line(text, 'docdb_query_plans_total{plan="COLLECTION_SCAN"} ')).toMatch(/ 1$/);
  });

  it("sums its peers' counts into each scrape, and reports its own again after", async () => {
    const metrics = new Metrics();
    metrics.routeStats('GET', '/collections/:name/:id').answered(200, 0.0007);
    metrics.countPlan('PK_LOOKUP(_id)');
    const reader = new Metrics();
    const readerStats = reader.routeStats('GET', '/collections/:name/:id');
    readerStats.answered(200, 0.0007);
    readerStats.answered(404, 0.003);
    readerStats.inFlight = 2;
    reader.routeStats('GET', '/collections').answered(200, 0.0001);
    reader.countPlan('PK_LOOKUP(_id)');
    metrics.sumWith(async () => [reader.snapshot()]);
    const text = await metrics.text();
    const labels = 'method="GET",route="/collections/:name/:id"';
    expect(line(text, `docdb_http_requests_total{${labels},status="200"} `)).toMatch(/ 2$/);
    expect(line(text, `docdb_http_requests_total{${labels},status="404"} `)).toMatch(/ 1$/);
    expect(line(text, `docdb_http_requests_total{method="GET",route="/collections",`)).toMatch(
      / 1$/,
    );
    expect(line(text, `docdb_http_request_duration_seconds_count{${labels}} `)).toMatch(/ 3$/);
    expect(line(text, `docdb_http_requests_in_flight{${labels}} `)).toMatch(/ 2$/);
    expect(line(text, 'docdb_query_plans_total{plan="PK_LOOKUP"} ')).toMatch(/ 2$/);
    // The sums are the scrape's: the app's own counts are as they were.
    expect(metrics.requestsInFlight()).toBe(0);
    expect(metrics.snapshot().routes).toHaveLength(1);
  });
});

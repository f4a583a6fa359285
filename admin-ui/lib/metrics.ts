/**
 * Reads the few totals the Overview charts from Prometheus text (GET /metrics): requests,
 * request seconds and documents written. Rates come from two readings. Pure.
 */

export interface Totals {
  atMs: number;
  requests: number;
  requestSeconds: number;
  writes: number;
}

export interface Rates {
  atMs: number;
  requestsPerSecond: number;
  /** Mean latency of the requests between the two readings, in ms (0 when none). */
  latencyMs: number;
  writesPerSecond: number;
}

function sum(text: string, name: string): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    // The name must end here: `_sum` must not match `_sum_extra`.
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

export function readTotals(text: string, atMs: number): Totals {
  return {
    atMs,
    requests: sum(text, 'docdb_http_requests_total'),
    requestSeconds: sum(text, 'docdb_http_request_duration_seconds_sum'),
    writes: sum(text, 'docdb_documents_written_total'),
  };
}

export function ratesBetween(before: Totals, after: Totals): Rates {
  const seconds = Math.max((after.atMs - before.atMs) / 1000, 0.001);
  const requests = after.requests - before.requests;
  return {
    atMs: after.atMs,
    requestsPerSecond: requests / seconds,
    latencyMs:
      requests > 0 ? ((after.requestSeconds - before.requestSeconds) / requests) * 1000 : 0,
    writesPerSecond: (after.writes - before.writes) / seconds,
  };
}

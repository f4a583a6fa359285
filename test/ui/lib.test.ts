/**
 * Proves the admin UI's pure helpers without a browser: columns from documents' paths and
 * the cut of long cell values, every plan string form a node and a router write read into
 * route and steps, the WHERE paths behind the plan hint, rates from two /metrics readings,
 * reading an import file (NDJSON or a JSON array, bad lines named), and the Cluster
 * screen's badges for a replica set's members and shards.
 */

import { describe, expect, it } from 'vitest';
import { memberBadge, shardBadge, shardProblems } from '../../admin-ui/lib/cluster.js';
import { readTotals, ratesBetween } from '../../admin-ui/lib/metrics.js';
import {
  documentOf,
  firstCharacter,
  ndjsonLines,
  parseImport,
} from '../../admin-ui/lib/import-file.js';
import { CELL_CHARS_MAX, cellText, columnPaths, valueAt } from '../../admin-ui/lib/paths.js';
import { parsePlan, routeText, wherePaths } from '../../admin-ui/lib/plan.js';
import { routedPlan } from '../../src/cluster/index.js';
import type { MemberHealth, RouterShardStats, StoreStats } from '../../src/types/index.js';

describe('columns and cells', () => {
  it('puts _id first and spreads objects one level, keeping arrays whole', () => {
    const docs = [
      { pnr: 'A', _id: '1', fare: { total: 3, currency: 'EUR' }, flights: [{ from: 'X' }] },
      { pnr: 'B', _id: '2', note: 'n', empty: {} },
    ];
    expect(columnPaths(docs)).toEqual([
      '_id',
      'pnr',
      'fare.total',
      'fare.currency',
      'flights',
      'note',
      'empty',
    ]);
    expect(valueAt(docs[0], 'fare.total')).toBe(3);
    expect(valueAt(docs[0], 'fare.total.x')).toBeUndefined();
  });

  it('cuts a value at the limit and not one character before', () => {
    expect(cellText('x'.repeat(CELL_CHARS_MAX))).toBe('x'.repeat(CELL_CHARS_MAX));
    expect(cellText('x'.repeat(CELL_CHARS_MAX + 1))).toBe(`${'x'.repeat(CELL_CHARS_MAX)}…`);
    expect(cellText({ a: [1, 2] })).toBe('{"a":[1,2]}');
    expect(cellText(undefined)).toBe('');
  });
});

describe('plan strings', () => {
  const steps = (plan: string) => parsePlan(plan).steps.map((s) => [s.kind, s.text]);

  it('reads every access path and suffix a node writes', () => {
    expect(steps('COLLECTION_SCAN')).toEqual([['scan', 'collection scan (every document)']]);
    expect(steps('INDEX_SCAN(idx_orders_status)')).toEqual([
      ['index', 'index scan · idx_orders_status'],
    ]);
    expect(steps('INDEX_RANGE_SCAN(by_total)')).toEqual([['index', 'index range scan · by_total']]);
    expect(steps('INDEX_SCAN_COMPOSITE(by_status_channel)')).toEqual([
      ['index', 'composite index scan · by_status_channel'],
    ]);
    expect(steps('INDEX_SCAN_MULTI(by_status, 2 keys)')).toEqual([
      ['index', 'index scan · by_status, 2 keys'],
    ]);
    expect(
      steps('COLLECTION_SCAN + HASH_JOIN(airports) + HASH_JOIN(airports) + AGGREGATE + DISTINCT'),
    ).toEqual([
      ['scan', 'collection scan (every document)'],
      ['join', 'join airports (hash)'],
      ['join', 'join airports (hash)'],
      ['aggregate', 'aggregate / group'],
      ['distinct', 'distinct'],
    ]);
    for (const write of ['INSERT', 'CREATE INDEX', 'DROP INDEX']) {
      expect(parsePlan(write)).toEqual({
        route: undefined,
        steps: [{ kind: 'write', text: write.toLowerCase(), raw: write }],
        scans: false,
      });
    }
    expect(parsePlan('COLLECTION_SCAN + AGGREGATE')).toMatchObject({
      route: undefined,
      scans: true,
    });
    expect(parsePlan('INDEX_SCAN(i) + DISTINCT').scans).toBe(false);
    // A step it does not know stays as the node wrote it.
    expect(steps('COLLECTION_SCAN + SORT')).toEqual([
      ['scan', 'collection scan (every document)'],
      ['other', 'SORT'],
    ]);
  });

  it('reads the route a router puts first, from its own routedPlan', () => {
    const single = routedPlan({ kind: 'single', count: 1, shard: 's-2' }, 'INDEX_SCAN(by_pnr)');
    expect(single).toBe('SINGLE_SHARD(s-2): INDEX_SCAN(by_pnr)');
    expect(parsePlan(single)).toEqual({
      route: { kind: 'single', shard: 's-2' },
      steps: [{ kind: 'index', text: 'index scan · by_pnr', raw: 'INDEX_SCAN(by_pnr)' }],
      scans: false,
    });
    const scatter = routedPlan(
      { kind: 'scatter', count: 3, shard: '' },
      'COLLECTION_SCAN + HASH_JOIN(airports) + AGGREGATE',
    );
    expect(scatter).toBe('SCATTER(3): COLLECTION_SCAN + HASH_JOIN(airports) + AGGREGATE');
    const parsed = parsePlan(scatter);
    expect(parsed.route).toEqual({ kind: 'scatter', shards: 3 });
    expect(parsed.scans).toBe(true);
    expect(parsed.steps.map((s) => s.kind)).toEqual(['scan', 'join', 'aggregate']);
    expect(parsePlan('SCATTER(4): INSERT')).toMatchObject({
      route: { kind: 'scatter', shards: 4 },
      steps: [{ kind: 'write' }],
    });
    expect(routeText({ kind: 'single', shard: 's1' })).toBe('one shard: s1');
    expect(routeText({ kind: 'scatter', shards: 3 })).toBe(
      'scatter to 3 shards, merged by the router',
    );
  });
});

describe('the WHERE paths of the plan hint', () => {
  it('finds compared paths, once each, outside strings, up to GROUP BY/ORDER BY/LIMIT', () => {
    expect(
      wherePaths(
        "SELECT * FROM o WHERE status = 'a = b' AND fare.total > ? OR passengers[0].lastName IN ('x') AND status = 'c' ORDER BY pnr LIMIT 3",
      ),
    ).toEqual(['status', 'fare.total', 'passengers[0].lastName']);
    expect(wherePaths('SELECT * FROM o')).toEqual([]);
    expect(wherePaths('SELECT * FROM o WHERE note IS NULL')).toEqual(['note']);
  });
});

describe('rates from /metrics', () => {
  const text = (requests: number, seconds: number, writes: number) =>
    [
      '# HELP docdb_http_requests_total x',
      `docdb_http_requests_total{method="GET",route="/stats",status="200"} ${requests - 1}`,
      `docdb_http_requests_total{method="POST",route="/query",status="200"} 1`,
      `docdb_http_request_duration_seconds_sum{method="GET"} ${seconds}`,
      'docdb_http_request_duration_seconds_count{method="GET"} 999',
      `docdb_documents_written_total{operation="insert"} ${writes}`,
    ].join('\n');

  it('sums the series and divides by the time between readings', () => {
    const before = readTotals(text(10, 0.5, 100), 1_000);
    const after = readTotals(text(30, 1.5, 160), 3_000);
    expect(before).toEqual({ atMs: 1_000, requests: 10, requestSeconds: 0.5, writes: 100 });
    expect(ratesBetween(before, after)).toEqual({
      atMs: 3_000,
      requestsPerSecond: 10,
      latencyMs: 50,
      writesPerSecond: 30,
    });
    expect(ratesBetween(after, after).latencyMs).toBe(0);
  });
});

describe('import files', () => {
  it('reads NDJSON, skipping blank lines and naming each bad line', () => {
    const parsed = parseImport('{"a":1}\n\n[1]\nnot json\n{"b":2}\n');
    expect(parsed.format).toBe('ndjson');
    expect(parsed.docs).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parsed.lines).toEqual([1, 5]);
    expect(parsed.errors.map((e) => e.line)).toEqual([3, 4]);
  });

  it('reads a JSON array, naming elements that are not objects by position', () => {
    const parsed = parseImport(' [{"a":1}, 2, {"b":2}]');
    expect(parsed.format).toBe('json');
    expect(parsed.docs).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parsed.errors).toEqual([{ line: 2, error: expect.any(String) }]);
    expect(parseImport('[{"a":').errors[0]?.error).toContain('not a valid JSON array');
  });

  it('streams NDJSON a line at a time, across chunk boundaries, numbering blank lines too', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      i % 1000 === 7 ? '' : JSON.stringify({ i, pad: 'x'.repeat(i % 50) }),
    );
    const file = new Blob([`${lines.join('\n')}\n{"last":true}`]);
    const read: Array<{ line: number; text: string }> = [];
    for await (const entry of ndjsonLines(file)) read.push(entry);
    expect(read).toHaveLength(20_000 - 20 + 1);
    expect(read[0]).toEqual({ line: 1, text: '{"i":0,"pad":""}' });
    expect(read.find((r) => r.line === 9)?.text).toBe(lines[8]);
    expect(read.some((r) => r.line === 8)).toBe(false);
    expect(read.at(-1)).toEqual({ line: 20_001, text: '{"last":true}' });
    for (const r of read.slice(0, -1)) expect(r.text).toBe(lines[r.line - 1]);
  });

  it('names what a line is when it is not a document, and finds the first character of a file', async () => {
    expect(documentOf('{"a":1}')).toEqual({ doc: { a: 1 } });
    expect(documentOf('[1]')).toEqual({ error: expect.stringContaining('JSON object') });
    expect(documentOf('not json')).toEqual({ error: expect.any(String) });
    expect(await firstCharacter(new Blob([' '.repeat(10_000), '\n [{"a":1}]']))).toBe('[');
    expect(await firstCharacter(new Blob(['{"a":1}']))).toBe('{');
    expect(await firstCharacter(new Blob([]))).toBe('');
  });
});

describe("the Cluster screen's badges", () => {
  const member = (endpoint: string, more: Partial<MemberHealth> = {}): MemberHealth => ({
    endpoint,
    status: 'up',
    role: 'follower',
    readOnly: true,
    term: 2,
    seq: 10,
    lag: 0,
    error: null,
    ...more,
  });
  const down = member('http://c', {
    status: 'down',
    role: null,
    readOnly: null,
    term: null,
    seq: null,
    lag: null,
    error: 'refused',
  });
  const shard = (more: Partial<RouterShardStats>): RouterShardStats => ({
    name: 's1',
    stats: {} as StoreStats,
    endpoint: null,
    members: null,
    leader: null,
    ...more,
  });

  it("words each member's role: the leader found, a follower, read-only, a stale leader, down", () => {
    const leader = member('http://a', { role: 'leader', readOnly: false });
    expect(memberBadge(leader, 'http://a')).toEqual({ label: 'leader', tone: 'ok' });
    expect(memberBadge(member('http://b'), 'http://a')).toEqual({ label: 'follower', tone: '' });
    expect(memberBadge(down, 'http://a')).toEqual({ label: 'down', tone: 'warn' });
    const handingOver = member('http://a', { role: 'leader', readOnly: true });
    expect(memberBadge(handingOver, null).label).toBe('read-only');
    expect(memberBadge(leader, 'http://b').label).toBe('stale leader');
    expect(memberBadge(member('http://d', { role: 'none', readOnly: false }), null).label).toBe(
      'not replicating',
    );
  });

  it('marks a replica set without a leader or with a member down, never a one-endpoint shard', () => {
    const a = member('http://a', { role: 'leader', readOnly: false });
    const whole = shard({ members: [a, member('http://b')], leader: 'http://a' });
    expect(shardBadge(whole, false)).toEqual({ label: 'up', tone: 'ok' });
    expect(shardProblems(whole)).toEqual([]);
    const degraded = shard({ members: [a, down], leader: 'http://a' });
    expect(shardBadge(degraded, false)).toEqual({ label: 'degraded', tone: 'warn' });
    expect(shardProblems(degraded)).toEqual(['http://c is down']);
    const leaderless = shard({ members: [member('http://b'), down], leader: null });
    expect(shardBadge(leaderless, false)).toEqual({ label: 'no leader', tone: 'warn' });
    expect(shardProblems(leaderless)).toEqual(['no member leads', 'http://c is down']);
    const single = shard({ endpoint: 'http://e', leader: 'http://e' });
    expect(shardBadge(single, false)).toEqual({ label: 'up', tone: 'ok' });
    expect(shardBadge(single, true)).toEqual({ label: 'unknown', tone: 'warn' });
  });
});

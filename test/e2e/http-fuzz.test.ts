/**
 * Proves that random HTTP requests never make the REST API answer a 5xx or crash the node
 * (issue 4): 8,000 seeded requests, 8 at a time (random and unusual methods, paths from the
 * real route templates with random segments, query strings, headers with and without the API
 * key, JSON of every kind, truncated JSON, huge numbers, deep nesting, binary garbage, empty
 * bodies) go through `app.inject()` to an app over a real temp database with a little data;
 * none answers 5xx but for one known bug kept as `it.fails`, the generator reaches every kind
 * of answer, and /health and the data still answer afterwards. bench/fuzz-http.ts runs the
 * same generator over 100,000 and more.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FuzzApp,
  FUZZ_API_KEY,
  fuzzRequest,
  judgeAnswer,
  send,
  showRequest,
  startFuzzApp,
} from './http-fuzz-generator.js';

/** Requests per run in `npm test`; the bench script runs 100,000 and more. */
const REQUESTS = 8000;
const SEED = 20_250_401;
/** Requests in flight at once, so concurrent writes meet too. */
const CONCURRENCY = 8;

interface Finding {
  index: number;
  request: string;
  why: string;
}

/**
 * The one known 5xx: a compaction whose collection is compacted again or dropped by a request
 * in the same batch answers 500 (src/server/routes/admin.test.ts, "compaction racing other
 * writes"). It is kept apart so that any other 5xx still fails the run.
 */
function knownServerError(request: { method: string; url: string }): boolean {
  return request.method === 'POST' && request.url.startsWith('/admin/compact/');
}

let fuzz: FuzzApp;
const statuses = new Map<number, number>();
const serverErrors: Finding[] = [];
const knownServerErrors: Finding[] = [];
const undocumented: Finding[] = [];

beforeAll(async () => {
  fuzz = await startFuzzApp();
  for (let start = 0; start < REQUESTS; start += CONCURRENCY) {
    const batch = Array.from({ length: Math.min(CONCURRENCY, REQUESTS - start) }, (_, k) => {
      const index = start + k;
      const request = fuzzRequest(SEED, index, fuzz.context);
      return send(fuzz.app, request).then((answer) => ({ index, request, answer }));
    });
    for (const { index, request, answer } of await Promise.all(batch)) {
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const verdict = judgeAnswer(request.method, answer.status, answer.headers, answer.text);
      if (verdict.kind === 'ok') continue;
      const finding = { index, request: showRequest(request), why: verdict.why };
      if (verdict.kind === 'undocumented-error') undocumented.push(finding);
      else if (knownServerError(request)) knownServerErrors.push(finding);
      else serverErrors.push(finding);
    }
  }
}, 60_000);

afterAll(async () => {
  await fuzz?.close();
});

function describeFindings(findings: Finding[]): string {
  return findings
    .slice(0, 3)
    .map((f) => `request ${f.index} of seed ${SEED}: ${f.why}\n${f.request}`)
    .join('\n\n');
}

describe(`HTTP fuzz: ${REQUESTS} requests of seed ${SEED}`, () => {
  it('never answers 5xx', () => {
    expect(serverErrors, describeFindings(serverErrors)).toEqual([]);
  });

  // Was a bug (src/server/routes/admin.test.ts, "compaction racing other writes"): Store.compact
  // measures the compacted collection after its write left the queue; a compaction or drop of
  // the same collection queued right behind it has dropped those sub-databases by then, and
  // the first compaction answers 500 ERR_INTERNAL. Request 7216 of this seed meets it.
  it('never answers 5xx to concurrent compactions', () => {
    expect(knownServerErrors, describeFindings(knownServerErrors)).toEqual([]);
  });

  it('reaches every kind of answer, so the run proves something', () => {
    const seen = [...statuses.keys()].sort();
    for (const status of [200, 201, 400, 401, 404, 409, 413, 415]) {
      expect(seen, `status ${status} never answered`).toContain(status);
    }
    // Most requests carry the key, so most are judged by the routes, not by the auth hook.
    expect((statuses.get(401) ?? 0) / REQUESTS).toBeLessThan(0.5);
    expect((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0)).toBeGreaterThan(REQUESTS / 10);
  });

  it('still answers /health, /stats and the seeded data afterwards', async () => {
    const health = await fuzz.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ status: 'ok' });
    const auth = { authorization: `Bearer ${FUZZ_API_KEY}` };
    const stats = await fuzz.app.inject({ method: 'GET', url: '/stats', headers: auth });
    expect(stats.statusCode).toBe(200);
    const insert = await fuzz.app.inject({
      method: 'POST',
      url: '/collections/after.fuzz',
      headers: auth,
      payload: { ok: true },
    });
    expect(insert.statusCode).toBe(201);
    const query = await fuzz.app.inject({
      method: 'POST',
      url: '/query',
      headers: auth,
      payload: { sql: 'SELECT * FROM after.fuzz' },
    });
    expect(query.json()).toMatchObject({ count: 1 });
  });

  it('generates the same request for the same seed and number', () => {
    for (let i = 0; i < 200; i++) {
      expect(fuzzRequest(SEED, i, fuzz.context)).toEqual(fuzzRequest(SEED, i, fuzz.context));
    }
    expect(fuzzRequest(SEED, 1, fuzz.context)).not.toEqual(fuzzRequest(SEED + 1, 1, fuzz.context));
  });

  // Was a bug (see src/server/requests.test.ts, "path parameter lengths" and "malformed URLs"): a path
  // segment over 100 characters (414 FST_ERR_MAX_PARAM_LENGTH) or with a broken
  // percent-encoding (400 FST_ERR_BAD_URL) is answered by Fastify's router with its own
  // body, a code docs/errors.md does not list, and no X-Request-Id.
  it('answers every error with a documented code and an X-Request-Id', () => {
    expect(undocumented, describeFindings(undocumented)).toEqual([]);
  });
});

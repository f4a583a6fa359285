/**
 * Fuzzes the REST API in-process with the generator of test/e2e/http-fuzz-generator.ts: the
 * app over a temp database with a little data, an API key and a 64 KiB body limit; no request
 * may answer 5xx or crash the process. Prints the answers per status and code, the undocumented
 * error bodies (known router-level bugs), the slowest request and the rate; exits 1 on the
 * first 5xx or crash, printing the request and how to reproduce it.
 *
 * Usage: npx tsx bench/fuzz-http.ts [--count 100000] [--seed N] [--concurrency 8]
 *        [--sql-depth 1000] [--json-depth 5000]
 * (--sql-depth sets the deepest generated nesting of parentheses and NOT in SQL conditions;
 * past SQL_NESTING_MAX it must be a 400, never a stack overflow.)
 */

import {
  FUZZ_JSON_DEPTH_DEFAULT,
  FUZZ_SQL_DEPTH_DEFAULT,
  type FuzzRequest,
  fuzzRequest,
  judgeAnswer,
  send,
  showRequest,
  startFuzzApp,
} from '../test/e2e/http-fuzz-generator.js';
import { option } from './cli-option.js';

const count = option('count', 100_000);
const seed = option('seed', Date.now() % 1_000_000);
const concurrency = Math.max(1, option('concurrency', 8));
const sqlDepthMax = option('sql-depth', FUZZ_SQL_DEPTH_DEFAULT);
const jsonDepthMax = option('json-depth', FUZZ_JSON_DEPTH_DEFAULT);
const reproduce = (index: number) =>
  `npx tsx bench/fuzz-http.ts --seed ${seed} --count ${index + 1} --concurrency ${concurrency}` +
  ` --sql-depth ${sqlDepthMax} --json-depth ${jsonDepthMax}`;

let current: { index: number; request: FuzzRequest } | undefined;

function crash(kind: string, error: unknown): never {
  console.error(`CRASH (${kind}) during the run of seed ${seed}`);
  if (current) {
    console.error(`last request sent: number ${current.index}\n${showRequest(current.request)}`);
    console.error(`reproduce: ${reproduce(current.index)}`);
  }
  console.error(error);
  process.exit(1);
}
process.on('uncaughtException', (error) => crash('uncaught exception', error));
process.on('unhandledRejection', (error) => crash('unhandled rejection', error));

const fuzz = await startFuzzApp();
const outcomes = new Map<string, number>();
const undocumented = new Map<string, number>();
let slowestMs = 0;
let slowest = '';
const started = performance.now();

for (let start = 0; start < count; start += concurrency) {
  const batch = Array.from({ length: Math.min(concurrency, count - start) }, async (_, k) => {
    const index = start + k;
    const request = fuzzRequest(seed, index, fuzz.context, { sqlDepthMax, jsonDepthMax });
    current = { index, request };
    const t0 = performance.now();
    const answer = await send(fuzz.app, request);
    return { index, request, answer, ms: performance.now() - t0 };
  });
  for (const { index, request, answer, ms } of await Promise.all(batch)) {
    if (ms > slowestMs) {
      slowestMs = ms;
      slowest = `${request.method} ${request.url.slice(0, 80)} → ${answer.status}`;
    }
    const verdict = judgeAnswer(request.method, answer.status, answer.headers, answer.text);
    if (verdict.kind === 'server-error') {
      console.error(`FINDING at request ${index} of seed ${seed}: ${verdict.why}`);
      console.error(showRequest(request));
      console.error(`reproduce: ${reproduce(index)}`);
      await fuzz.close();
      process.exit(1);
    }
    let code = '';
    try {
      code = String(JSON.parse(answer.text)?.code ?? '');
    } catch {
      code = answer.text === '' ? '(empty)' : '(not JSON)';
    }
    const key = `${answer.status} ${code}`.trim();
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    if (verdict.kind === 'undocumented-error') {
      undocumented.set(key, (undocumented.get(key) ?? 0) + 1);
    }
  }
  if ((start / concurrency) % 2000 === 0 && start > 0) {
    const seconds = (performance.now() - started) / 1000;
    console.log(`  … ${start} requests, ${Math.round(start / seconds)}/s`);
  }
}

const health = await fuzz.app.inject({ method: 'GET', url: '/health' });
await fuzz.close();
const totalMs = performance.now() - started;

console.log(`HTTP fuzz: ${count} requests, seed ${seed}, concurrency ${concurrency}`);
for (const [key, n] of [...outcomes].sort((a, b) => b[1] - a[1])) {
  console.log(`  ${key.padEnd(36)} ${String(n).padStart(8)}`);
}
const strays = [...undocumented.values()].reduce((a, b) => a + b, 0);
console.log(
  `  error answers without a documented code or X-Request-Id: ${strays}` +
    (strays > 0 ? ` (${[...undocumented.keys()].join(', ')}; known bugs)` : ''),
);
console.log(
  `  time ${(totalMs / 1000).toFixed(2)} s, ${Math.round(count / (totalMs / 1000))} requests/s;` +
    ` slowest ${slowestMs.toFixed(1)} ms: ${slowest}`,
);
if (health.statusCode !== 200) {
  console.error(`GET /health answered ${health.statusCode} after the run`);
  process.exit(1);
}
console.log('no findings: no 5xx, no crash, /health still answers');

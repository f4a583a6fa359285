/**
 * The torture suite's bad-input part: the fuzz generators of the SQL and HTTP tests at volume
 * (1,000,000 each in a full run). Every SQL statement, run on a database with data, gives a
 * result or a coded DbError that is not ERR_INTERNAL, within a time bound; every HTTP request,
 * through the node's app on a real database, gives no 5xx; and memory stays flat: the live heap
 * at the end may exceed the one after the first tenth by at most HEAP_GROWTH_MAX_BYTES.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { open, seedOrders } from '../../src/engine/index.js';
import { isDbError } from '../../src/errors/index.js';
import {
  fuzzRequest,
  judgeAnswer,
  send,
  showRequest,
  startFuzzApp,
} from '../e2e/http-fuzz-generator.js';
import { fuzzInput, showInput } from '../sql/fuzz-generator.js';
import { Check, type CheckResult, type PartContext, type TorturePart } from './part.js';

const COUNTS = { quick: 20_000, full: 1_000_000 };
/** One statement or request taking longer than this is a hang. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** Requests in flight at once. */
const CONCURRENCY = 8;
/**
 * How far the live heap (after a full collection) may grow from the end of the first tenth to
 * the end. The resident size would count the data file's mapped pages, which grow with the
 * documents the fuzz inserts.
 */
const HEAP_GROWTH_MAX_BYTES = 64 * 1024 * 1024;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function within<T>(promise: Promise<T>, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms: ${what()}`)),
      ATTEMPT_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Watches the live heap: its size after the first tenth, and the largest after that. */
class MemoryWatch {
  private baseline = 0;
  private peak = 0;

  constructor(private readonly total: number) {}

  sample(done: number): void {
    collectGarbage();
    const live = process.memoryUsage().heapUsed;
    if (done <= this.total / 10) this.baseline = live;
    else this.peak = Math.max(this.peak, live);
  }

  judge(check: Check): void {
    const growth = this.peak - this.baseline;
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
    if (growth <= HEAP_GROWTH_MAX_BYTES) check.count(`heap flat (+${mib(Math.max(0, growth))})`);
    else {
      check.count(
        'heap grew',
        `the live heap grew ${mib(growth)} (from ${mib(this.baseline)} to ${mib(this.peak)}), more than ${mib(HEAP_GROWTH_MAX_BYTES)}`,
      );
    }
  }
}

async function sql(context: PartContext): Promise<CheckResult> {
  const total = context.quick ? COUNTS.quick : COUNTS.full;
  const check = new Check(`${total} fuzzed SQL statements`);
  const dir = path.join(context.dir, 'sql');
  fs.mkdirSync(dir, { recursive: true });
  const db = await open(dir);
  const memory = new MemoryWatch(total);
  try {
    await seedOrders(db, { count: 2_000, seed: context.seed });
    for (let i = 0; i < total; i++) {
      const statement = fuzzInput(context.seed, i);
      try {
        await within(db.query(statement), () => showInput(statement));
        check.count('result');
      } catch (error) {
        if (isDbError(error) && error.code !== 'ERR_INTERNAL') check.count('coded error');
        else {
          check.count(
            'finding',
            `statement ${i} of seed ${context.seed}: ${showInput(statement)} → ${String(error)}`,
          );
        }
      }
      if (i % 10_000 === 0) memory.sample(i);
      if (i > 0 && i % 100_000 === 0) context.log(`bad input: ${i}/${total} SQL statements`);
    }
    memory.sample(total);
    memory.judge(check);
  } finally {
    await db.close();
  }
  return check.done();
}

async function http(context: PartContext): Promise<CheckResult> {
  const total = context.quick ? COUNTS.quick : COUNTS.full;
  const check = new Check(`${total} fuzzed HTTP requests`);
  const fuzz = await startFuzzApp();
  const memory = new MemoryWatch(total);
  try {
    for (let start = 0; start < total; start += CONCURRENCY) {
      const batch = Array.from({ length: Math.min(CONCURRENCY, total - start) }, (_, k) => {
        const request = fuzzRequest(context.seed, start + k, fuzz.context);
        return within(send(fuzz.app, request), () => showRequest(request)).then(
          (answer) => ({ request, answer, error: undefined }),
          (error: unknown) => ({ request, answer: undefined, error }),
        );
      });
      for (const { request, answer, error } of await Promise.all(batch)) {
        if (!answer) {
          check.count('no answer', `${showRequest(request)} → ${String(error)}`);
          continue;
        }
        const verdict = judgeAnswer(request.method, answer.status, answer.headers, answer.text);
        if (verdict.kind === 'server-error') {
          check.count('5xx', `seed ${context.seed}: ${showRequest(request)} → ${verdict.why}`);
        } else check.count(answer.status < 400 ? '2xx/3xx' : '4xx');
      }
      if (start % 10_000 < CONCURRENCY) memory.sample(start);
      if (start > 0 && start % 100_000 < CONCURRENCY) {
        context.log(`bad input: ${start}/${total} HTTP requests`);
      }
    }
    const health = await fuzz.app.inject({ method: 'GET', url: '/health' });
    if (health.statusCode === 200) check.count('healthy after');
    else check.count('unhealthy after', `GET /health answered ${health.statusCode}`);
    memory.sample(total);
    memory.judge(check);
  } finally {
    await fuzz.close();
  }
  return check.done();
}

export const badInput: TorturePart = {
  name: 'bad-input',
  description: 'fuzzed SQL and HTTP at volume: coded errors only, no 5xx, no hang, memory flat',
  run: async (context) => [await sql(context), await http(context)],
};

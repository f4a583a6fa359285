/**
 * Fuzzes the SQL parser with the generator of test/sql/fuzz-generator.ts: every input must
 * parse to a statement or throw a DbError with an ERR_SQL_* code and a line and column inside
 * the text. Prints the counts per outcome, the slowest input and the rate; exits 1 on the
 * first other outcome, printing the seed and input number that reproduce it.
 *
 * Usage: npx tsx bench/fuzz-parser.ts [--count 100000] [--seed N] [--max-depth 1000]
 * (--max-depth raises the nesting of parentheses and NOT chains; beyond a few thousand levels
 * the parser overflows the stack, a known bug recorded in test/sql/parser-fuzz.test.ts.)
 */

import {
  FUZZ_DEPTH_DEFAULT,
  fuzzInput,
  judgeParse,
  showInput,
} from '../test/sql/fuzz-generator.js';
import { option } from './cli-option.js';

const count = option('count', 100_000);
const seed = option('seed', Date.now() % 1_000_000);
const maxDepth = option('max-depth', FUZZ_DEPTH_DEFAULT);

const outcomes = new Map<string, number>();
let chars = 0;
let slowestMs = 0;
let slowest = '';
const started = performance.now();

for (let i = 0; i < count; i++) {
  const sql = fuzzInput(seed, i, { maxDepth });
  chars += sql.length;
  const t0 = performance.now();
  const verdict = judgeParse(sql);
  const ms = performance.now() - t0;
  if (ms > slowestMs) {
    slowestMs = ms;
    slowest = sql;
  }
  if (verdict.kind === 'finding') {
    console.error(`FINDING at input ${i} of seed ${seed}: ${verdict.why}`);
    console.error(`input: ${showInput(sql)}`);
    console.error(verdict.error);
    console.error(`reproduce: npx tsx bench/fuzz-parser.ts --seed ${seed} --count ${i + 1}`);
    process.exit(1);
  }
  const key = verdict.kind === 'statement' ? `statement ${verdict.statement}` : verdict.code;
  outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
}

const totalMs = performance.now() - started;
console.log(`parser fuzz: ${count} inputs, seed ${seed}, max depth ${maxDepth}`);
for (const [key, n] of [...outcomes].sort((a, b) => b[1] - a[1])) {
  console.log(`  ${key.padEnd(24)} ${String(n).padStart(8)}`);
}
console.log(`  characters parsed        ${String(chars).padStart(8)}`);
console.log(
  `  time ${(totalMs / 1000).toFixed(2)} s, ${Math.round(count / (totalMs / 1000))} inputs/s; slowest ${slowestMs.toFixed(1)} ms: ${showInput(slowest, 60)}`,
);
console.log('no findings: every input gave a statement or a typed SQL error');

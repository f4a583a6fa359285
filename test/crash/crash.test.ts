// Proves issue 2: a writer killed with SIGKILL at random moments loses no acknowledged
// insert, replace or delete, leaves no index entry without its document and no document
// without its index entries, and leaves a contiguous change log (20 cycles over one file).

import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import { runCrashCycles } from './crash-harness.js';

/** Cycles in `npm test`; soak runs use `npm run test:crash -- --cycles N`. */
const CYCLES = 20;
/** About 1 s per cycle on a 2-core machine; the bound leaves room for a slow disk. */
const TIMEOUT_MS = 90_000;

/** `CRASH_TEST_SEED=<n>` replays a failing run's choices (its message names the seed). */
function seedOf(env: string | undefined): number {
  if (env === undefined) return Date.now() % 2 ** 31;
  const seed = Number(env);
  if (!Number.isInteger(seed) || seed < 0)
    throw new Error(`CRASH_TEST_SEED must be a non-negative integer; got '${env}'`);
  return seed;
}

describe('crash durability', () => {
  const { dir, cleanup } = makeTempDir('docdb-crash-');
  afterAll(cleanup);

  it(
    `keeps every acknowledged write across ${CYCLES} SIGKILLs`,
    async () => {
      const seed = seedOf(process.env.CRASH_TEST_SEED);
      const summary = await runCrashCycles({ cycles: CYCLES, seed, dir });
      expect(summary.cycles).toBe(CYCLES);
      expect(summary.ackedChanges).toBeGreaterThan(CYCLES);
    },
    TIMEOUT_MS,
  );
});

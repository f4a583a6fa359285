import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two projects, which `npm test` (`vitest run`) runs together as the whole suite. `fast`
 * (`npm run test:fast`) is the loop for development: the tests beside the code and the
 * cross-module suites that run in the test process (properties, SQL, conformance), in a few
 * minutes. `slow` holds what starts `bin/docdb`, a browser or a build, crashes writers, or
 * waits on real clocks for seconds. A test file is in exactly one of them.
 */

/** Cross-module suites (test/) that run in the test process: part of the fast loop. */
const FAST_SUITES = [
  'test/property/**/*.test.ts',
  'test/sql/**/*.test.ts',
  'test/conformance/**/*.test.ts',
  'test/torture/**/*.test.ts',
];

/** Tests beside the code (src/) that only the whole suite runs. */
const SLOW_UNITS = [
  // Leaders and followers over real sockets, waiting out auto-failover silences of seconds.
  'src/replication/replication.test.ts',
  // A real etcd per file; elections and lapsing leases wait out TTLs of seconds.
  'src/coordinator/coordinator.test.ts',
  'src/coordinator/write-stop.test.ts',
];

/**
 * Test files run at once: vitest's default (one fewer than the cores), but at least two. Most
 * files spend their time waiting on a `bin/docdb` process, a socket or the disk rather than on
 * the CPU; with the default of one on a 2-core machine, each waited alone.
 */
const FILES_AT_ONCE = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: FILES_AT_ONCE,
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          include: ['src/**/*.test.ts', ...FAST_SUITES],
          exclude: [...configDefaults.exclude, ...SLOW_UNITS],
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: ['test/**/*.test.ts', ...SLOW_UNITS],
          setupFiles: ['test/e2e/failure-output.ts'],
          exclude: [...configDefaults.exclude, ...FAST_SUITES],
        },
      },
    ],
  },
});

/**
 * Proves the summary `.ci/run` prints of vitest's JSON report (scripts/vitest-summary.ts): every
 * failed test is named as file > describe > test with its seconds and its message's first line
 * (a timeout's placeholder said as such), a file that failed without running a test is named
 * and counted once, and the command prints those lines before the counts (a report that cannot
 * be read is one failure, named).
 */

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { summarizeVitestReport, type VitestReport } from '../../scripts/vitest-summary.js';
import { makeTempDir } from '../support/temp-dir.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const REPORT: VitestReport = {
  numPassedTests: 3,
  numFailedTests: 3,
  testResults: [
    {
      name: path.join(ROOT, 'src/replication/replication.test.ts'),
      status: 'failed',
      assertionResults: [
        { ancestorTitles: ['replication'], title: 'converges', status: 'passed' },
        {
          ancestorTitles: ['replication'],
          title: 'replicates every write path',
          status: 'failed',
          duration: 1234.5,
          failureMessages: ['Error: timed out waiting for the follower\n    at until (x.ts:1:1)'],
        },
      ],
    },
    {
      name: path.join(ROOT, 'test/e2e/serve.test.ts'),
      status: 'failed',
      assertionResults: [
        { ancestorTitles: [], title: 'starts', status: 'passed' },
        {
          ancestorTitles: ['serve', 'flags'],
          title: 'refuses a bad port',
          status: 'failed',
          duration: 20,
          failureMessages: [`AssertionError: ${'x'.repeat(300)}`],
        },
        {
          ancestorTitles: ['serve'],
          title: 'waits too long',
          status: 'failed',
          duration: 30_012,
          failureMessages: ['Error: STACK_TRACE_ERROR\n    at task (chunk.js:1:1)'],
        },
        { ancestorTitles: ['serve'], title: 'skipped one', status: 'skipped' },
      ],
    },
    {
      name: path.join(ROOT, 'test/ui/screens.test.ts'),
      status: 'failed',
      message: 'Error: Cannot find module playwright-core\nRequire stack: …',
      assertionResults: [],
    },
    {
      name: path.join(ROOT, 'src/util/uuid7.test.ts'),
      status: 'passed',
      assertionResults: [{ ancestorTitles: [], title: 'sorts', status: 'passed' }],
    },
  ],
};

describe('the summary of a vitest report', () => {
  it('names every failed test as file > describe > test, and a file that ran none', () => {
    const summary = summarizeVitestReport(REPORT, ROOT);
    expect(summary).toMatchObject({ passed: 3, failed: 4 });
    expect(summary.failures).toEqual([
      'src/replication/replication.test.ts > replication > replicates every write path (1.2 s): Error: timed out waiting for the follower',
      `test/e2e/serve.test.ts > serve > flags > refuses a bad port (0.0 s): AssertionError: ${'x'.repeat(184)}…`,
      'test/e2e/serve.test.ts > serve > waits too long (30.0 s): Error: STACK_TRACE_ERROR (no message kept: most likely its time limit)',
      'test/ui/screens.test.ts: Error: Cannot find module playwright-core',
    ]);
  });

  it('names nothing when nothing failed', () => {
    const passing: VitestReport = {
      numPassedTests: 1,
      numFailedTests: 0,
      testResults: [REPORT.testResults[3] as VitestReport['testResults'][number]],
    };
    expect(summarizeVitestReport(passing, ROOT)).toEqual({ passed: 1, failed: 0, failures: [] });
  });

  describe('as the command .ci/run calls', () => {
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => {
      ({ dir, cleanup } = makeTempDir('docdb-vitest-summary-'));
    });
    afterEach(() => cleanup());

    function run(file: string): string[] {
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'scripts/vitest-summary.ts'), file],
        { cwd: ROOT, encoding: 'utf8' },
      );
      return out.trimEnd().split('\n');
    }

    it('prints a FAILED line for each failure, then the counts as its last line', () => {
      const file = path.join(dir, 'vitest.json');
      fs.writeFileSync(file, JSON.stringify(REPORT));
      const lines = run(file);
      expect(lines).toHaveLength(5);
      expect(lines[0]).toBe(
        'FAILED src/replication/replication.test.ts > replication > replicates every write path (1.2 s): Error: timed out waiting for the follower',
      );
      expect(lines[3]).toBe(
        'FAILED test/ui/screens.test.ts: Error: Cannot find module playwright-core',
      );
      expect(lines[4]).toBe('3 4');
    });

    it('counts a report that cannot be read as one failure, and names it', () => {
      const file = path.join(dir, 'missing.json');
      const lines = run(file);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        /^FAILED vitest's JSON report .*missing\.json cannot be read: ENOENT/,
      );
      expect(lines[1]).toBe('0 1');
    });
  });
});

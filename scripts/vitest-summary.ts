/**
 * What `.ci/run` says of vitest's JSON report: the counts its last line adds up, and the name
 * (file > describe > test) of every failed test, printed just before that line so the tail of
 * a CI log always says which tests failed. Reads the report; writes nothing.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';

/** The parts of vitest's JSON reporter output (Jest's format) this reads. */
export interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults: Array<{
      ancestorTitles: string[];
      title: string;
      status: string;
      duration?: number | null;
      failureMessages?: string[];
    }>;
  }>;
}

export interface VitestSummary {
  passed: number;
  /** Failed tests, plus one for each file that failed without running a test. */
  failed: number;
  /** One line per failure: `file > describe > test (its seconds): first line of the message`. */
  failures: string[];
}

/** A failure message's first line, bounded, so one failure stays one line of the log. */
const MESSAGE_CHARS_MAX = 200;

/**
 * What vitest's JSON report keeps of a test that ran out of time: the placeholder of the error
 * that carries the stack, not "Test timed out in … ms".
 */
const TIMEOUT_PLACEHOLDER = 'Error: STACK_TRACE_ERROR';

function firstLine(message: string | undefined): string {
  const line = (message ?? '').trim().split('\n')[0] ?? '';
  if (line === TIMEOUT_PLACEHOLDER) return `${line} (no message kept: most likely its time limit)`;
  return line.length > MESSAGE_CHARS_MAX ? `${line.slice(0, MESSAGE_CHARS_MAX)}…` : line;
}

/** Counts and names the failures of `report`; file names relative to `root`. */
export function summarizeVitestReport(report: VitestReport, root: string): VitestSummary {
  const failures: string[] = [];
  let brokenFiles = 0;
  for (const file of report.testResults) {
    const name = path.relative(root, file.name) || file.name;
    // A file that failed without running a test (an import error, a failed beforeAll).
    if (file.status === 'failed' && file.assertionResults.length === 0) {
      brokenFiles++;
      failures.push(`${name}: ${firstLine(file.message) || 'failed without running a test'}`);
    }
    for (const test of file.assertionResults) {
      if (test.status !== 'failed') continue;
      const title = [name, ...test.ancestorTitles, test.title].join(' > ');
      const seconds = ` (${((test.duration ?? 0) / 1000).toFixed(1)} s)`;
      failures.push(`${title}${seconds}: ${firstLine(test.failureMessages?.[0])}`);
    }
  }
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles,
    failures,
  };
}

/**
 * `node --import tsx scripts/vitest-summary.ts <report.json>`: prints "FAILED <name>" for each
 * failure, then "<passed> <failed>" as its last line; a report that cannot be read counts as
 * one failure, named.
 */
function main(file: string | undefined): void {
  let summary: VitestSummary;
  try {
    const report = JSON.parse(fs.readFileSync(file ?? '', 'utf8')) as VitestReport;
    summary = summarizeVitestReport(report, process.cwd());
  } catch (error) {
    const why = `vitest's JSON report ${file ?? '(none given)'} cannot be read: ${(error as Error).message}`;
    summary = { passed: 0, failed: 1, failures: [why] };
  }
  for (const failure of summary.failures) process.stdout.write(`FAILED ${failure}\n`);
  process.stdout.write(`${summary.passed} ${summary.failed}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename)
  main(process.argv[2]);

/** Runs `bin/docdb` as a user would: its exit code, stdout and stderr, without colours. */

import { execFile, spawnSync } from 'node:child_process';
import * as path from 'node:path';

const BIN = path.resolve(import.meta.dirname, '../../bin/docdb');

/** What one run of the CLI gave. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `docdb <args>` to its end, with `input` on stdin when given. */
export function runDocdb(args: readonly string[], input?: string): CliRun {
  const result = spawnSync(BIN, args, {
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs `docdb <args>` to its end without blocking the test's process, so that several runs
 * can wait on their own Node start-up at once.
 */
export function runDocdbAsync(args: readonly string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      BIN,
      args,
      { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

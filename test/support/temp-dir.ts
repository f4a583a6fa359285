/** Temporary data directories for tests: real LMDB files, removed when the test ends. */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** Makes a fresh temp dir and returns it with a cleanup function. */
export function makeTempDir(prefix = 'docdb-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * For a test file: answers a maker of temp dirs, each removed when the test that made it
 * ends (call at the top level of the file).
 */
export function tempDirPerTest(prefix?: string): () => string {
  let cleanups: Array<() => void> = [];
  beforeEach(() => {
    cleanups = [];
  });
  afterEach(() => {
    for (const cleanup of cleanups) cleanup();
  });
  return () => {
    const { dir, cleanup } = makeTempDir(prefix);
    cleanups.push(cleanup);
    return dir;
  };
}

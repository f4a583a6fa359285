/** Temporary data directories for tests: real LMDB files, removed when the test ends. */

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Makes a fresh temp dir and returns it with a cleanup function. */
export function makeTempDir(prefix = 'docdb-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

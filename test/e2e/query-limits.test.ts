/**
 * Proves the query timeout of a served node: `--query-timeout-seconds` stops a SELECT that
 * runs past it with 503 ERR_QUERY_TIMEOUT (a JOIN of 9M pairings here), the start line names
 * the setting, and the node goes on answering other requests, reads and writes.
 */

import * as path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, request, startServe, stopAll } from './support.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-query-limits-'));
});
afterEach(async () => {
  await stopAll();
  cleanup();
});

it('stops a SELECT past --query-timeout-seconds with 503 and goes on serving', async () => {
  const port = await freePort();
  const node = await startServe(
    ['--port', String(port), '--data-dir', path.join(dir, 'data'), '--query-timeout-seconds', '1'],
    { cwd: dir, port },
  );
  expect(node.startLine).toContain('queryTimeout=1s (flag)');
  for (const name of ['a', 'b']) {
    const documents = Array.from({ length: 3000 }, (_, i) => ({ k: 1, i }));
    const bulk = await request(`${node.url}/collections/${name}/bulk`, { body: documents });
    expect(bulk.status, bulk.text).toBe(200);
  }
  // 9M pairings: several seconds of work on any machine, past the 1 s timeout.
  const join = { sql: 'SELECT COUNT(*) AS n FROM a JOIN b ON a.k = b.k' };
  const stopped = await request(`${node.url}/query`, { body: join });
  expect(stopped.status, stopped.text).toBe(503);
  expect(stopped.json).toMatchObject({
    code: 'ERR_QUERY_TIMEOUT',
    error: expect.stringContaining('longer than 1 s'),
  });
  const small = await request(`${node.url}/query`, {
    body: { sql: 'SELECT COUNT(*) AS n FROM a WHERE i < 10' },
  });
  expect(small.status, small.text).toBe(200);
  expect(small.json).toMatchObject({ documents: [{ n: 10 }] });
  const write = await request(`${node.url}/collections/a`, { body: { k: 2 } });
  expect(write.status, write.text).toBe(201);
});

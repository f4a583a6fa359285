/**
 * Proves the change feed against real `docdb serve` processes: the typed client follows live
 * writes, SIGTERM with a feed open still stops the node cleanly (exit 0, the feed ends), and
 * after a restart on the same directory the consumer resumes from its last seq with nothing
 * lost or repeated.
 */

import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import type { FeedEntry } from '../../src/types/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, startServe, stopAll, waitFor } from './support.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-changes-'));
});
afterEach(async () => {
  await stopAll();
  cleanup();
});

async function startOn(dataDir: string) {
  const port = await freePort();
  return startServe(['--port', String(port), '--data-dir', dataDir, '--api-key', 'ek'], {
    cwd: dir,
    port,
  });
}

const pnrOf = (entry: FeedEntry) =>
  entry.op === 'insert'
    ? (entry.documents[0]?.doc as { pnr?: string } | undefined)?.pnr
    : undefined;

describe('the change feed of a served node', () => {
  it('follows live writes, ends on SIGTERM, and resumes after a restart', async () => {
    const dataDir = path.join(dir, 'data');
    const node = await startOn(dataDir);
    const client = connect(node.url, { apiKey: 'ek' });
    const writer = connect(node.url, { apiKey: 'ek' });
    const feed = client.changes({ since: 0, collection: 'orders' });
    const seen: string[] = [];
    let lastSeq = 0;
    const following = (async () => {
      for await (const entry of feed) {
        seen.push(pnrOf(entry) as string);
        lastSeq = entry.seq;
      }
    })();
    for (let n = 0; n < 20; n++) await writer.insert('orders', { pnr: `P${n}` });
    await writer.insert('other', { n: 1 });
    await waitFor(
      () => (seen.length >= 20 ? true : undefined),
      10_000,
      () => `the feed delivered ${seen.length} of 20 entries`,
    );
    expect(seen).toEqual(Array.from({ length: 20 }, (_, n) => `P${n}`));

    // A feed never ends by itself; the node's shutdown ends it and is not held by it.
    node.child.kill('SIGTERM');
    expect(await node.waitForExit()).toEqual({ code: 0, signal: null });
    await following;
    await client.close();
    await writer.close();

    const again = await startOn(dataDir);
    const c = connect(again.url, { apiKey: 'ek' });
    for (let n = 20; n < 25; n++) await c.insert('orders', { pnr: `P${n}` });
    const resumed: string[] = [];
    for await (const entry of c.changes({ since: lastSeq, collection: 'orders' })) {
      resumed.push(pnrOf(entry) as string);
      if (resumed.length === 5) break;
    }
    expect(resumed).toEqual(['P20', 'P21', 'P22', 'P23', 'P24']);
    await c.close();
  });
});

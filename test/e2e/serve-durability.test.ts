/**
 * Proves what happens to writes when `bin/docdb serve` is stopped: SIGTERM with slow requests
 * in flight stops accepting, lets those requests finish with 2xx, exits 0, and their data is
 * there after a restart; kill -9 while clients write continuously loses no acknowledged
 * insert (every id a client got back is present after a restart on the same directory).
 */

import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, type Response, request, startServe, stopAll, waitFor } from './support.js';

let dir: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-durability-'));
});
afterEach(async () => {
  await stopAll();
  cleanup();
});

async function startOn(dataDir: string) {
  const port = await freePort();
  return startServe(['--port', String(port), '--data-dir', dataDir], { cwd: dir, port });
}

/** Per-collection counts from GET /stats. */
async function counts(url: string): Promise<Record<string, number>> {
  const stats = await request(`${url}/stats`);
  expect(stats.status).toBe(200);
  const collections = (stats.json as { collections: { name: string; count: number }[] })
    .collections;
  return Object.fromEntries(collections.map((c) => [c.name, c.count]));
}

/** Every _id of a collection, paging through GET /collections/{name}. */
async function allIds(url: string, collection: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const query = `limit=10000${after ? `&after=${encodeURIComponent(after)}` : ''}`;
    const page = await request(`${url}/collections/${collection}?${query}`);
    expect(page.status).toBe(200);
    const documents = (page.json as { documents: { _id: string }[] }).documents;
    for (const doc of documents) ids.add(doc._id);
    if (documents.length < 10000) return ids;
    after = documents.at(-1)?._id;
  }
}

const BULK_DOCUMENTS = 50_000;
const SEED_ORDERS = 20_000;

describe('SIGTERM with requests in flight', () => {
  it('finishes them with 2xx, exits 0, and keeps their data', async () => {
    const dataDir = path.join(dir, 'data');
    const node = await startOn(dataDir);
    const bulk = (tag: string) =>
      Array.from({ length: BULK_DOCUMENTS }, (_, i) => ({ tag, i, name: `doc-${i}` }));
    const inFlight: Promise<Response>[] = [
      request(`${node.url}/collections/bulk_a/bulk`, { body: bulk('a') }),
      request(`${node.url}/collections/bulk_b/bulk`, { body: bulk('b') }),
      request(`${node.url}/seed`, { body: { orders: SEED_ORDERS, seed: 7 } }),
    ];
    // The node has received all three once /metrics counts them, in flight or answered.
    const received = (text: string, route: string) => {
      let n = 0;
      const pattern = /^docdb_http_requests_(?:in_flight|total)\{([^}]*)\} (\d+)/gm;
      for (const match of text.matchAll(pattern)) {
        if ((match[1] as string).includes(`route="${route}"`)) n += Number(match[2]);
      }
      return n;
    };
    const deadline = Date.now() + 20_000;
    for (;;) {
      const text = await (await fetch(`${node.url}/metrics`)).text();
      if (received(text, '/collections/:name/bulk') >= 2 && received(text, '/seed') >= 1) break;
      if (Date.now() > deadline) {
        throw new Error(`the node never received all three requests\n${text.slice(0, 500)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    node.child.kill('SIGTERM');
    await waitFor(
      () => (node.stdout().includes('SIGTERM: stopping') ? true : undefined),
      10_000,
      () => `the node did not log the SIGTERM\n${node.stdout().slice(-2000)}`,
    );
    // A new request now is refused (listener closed) or answered 503 (closing).
    const late = await request(`${node.url}/health`, { timeoutMs: 10_000 }).then(
      (response) => `HTTP ${response.status}`,
      (error: Error) => `refused: ${error.message}`,
    );
    expect(late).toMatch(/^(refused|HTTP 503)/);

    const [a, b, seeded] = (await Promise.all(inFlight)) as [Response, Response, Response];
    for (const response of [a, b, seeded]) {
      expect(response.status, response.text.slice(0, 300)).toBeGreaterThanOrEqual(200);
      expect(response.status).toBeLessThan(300);
    }
    expect((a.json as { ids: string[] }).ids).toHaveLength(BULK_DOCUMENTS);
    expect((b.json as { ids: string[] }).ids).toHaveLength(BULK_DOCUMENTS);
    expect((seeded.json as { inserted: number }).inserted).toBe(SEED_ORDERS);
    const exit = await node.waitForExit();
    expect(exit, node.stderr()).toEqual({ code: 0, signal: null });
    // They really were in flight: the node counted them when the signal came.
    const atSignal = /SIGTERM: stopping with (\d+) requests in flight/.exec(node.stdout());
    expect(Number(atSignal?.[1] ?? 0), node.stdout().slice(-1000)).toBeGreaterThanOrEqual(1);
    expect(node.stdout()).toContain('stopped: every request answered, data flushed and closed');

    const restarted = await startOn(dataDir);
    expect(await counts(restarted.url)).toMatchObject({
      bulk_a: BULK_DOCUMENTS,
      bulk_b: BULK_DOCUMENTS,
      orders: SEED_ORDERS,
    });
    const someId = (a.json as { ids: string[] }).ids[BULK_DOCUMENTS - 1];
    const doc = await request(`${restarted.url}/collections/bulk_a/${someId}`);
    expect(doc.status).toBe(200);
    expect(doc.json).toMatchObject({ tag: 'a', i: BULK_DOCUMENTS - 1 });
  }, 120_000);
});

describe('kill -9 while clients write', () => {
  it('keeps every acknowledged insert after a restart on the same directory', async () => {
    const dataDir = path.join(dir, 'data');
    const node = await startOn(dataDir);
    const acked: string[] = [];
    let stop = false;
    let failures = 0;

    // Single inserts and small bulks side by side, so both commit paths are killed mid-way.
    const single = async (writer: number) => {
      for (let n = 0; !stop; n++) {
        try {
          const response = await request(`${node.url}/collections/acked`, {
            body: { writer, n },
            timeoutMs: 10_000,
          });
          if (response.status === 201) acked.push((response.json as { id: string }).id);
        } catch {
          failures++;
          return; // the node is gone
        }
      }
    };
    const bulk = async (writer: number) => {
      for (let n = 0; !stop; n++) {
        const body = Array.from({ length: 50 }, (_, i) => ({ writer, n, i }));
        try {
          const response = await request(`${node.url}/collections/acked/bulk`, {
            body,
            timeoutMs: 10_000,
          });
          if (response.status === 200) acked.push(...(response.json as { ids: string[] }).ids);
        } catch {
          failures++;
          return;
        }
      }
    };
    const writers = [
      ...Array.from({ length: 6 }, (_, w) => single(w)),
      ...Array.from({ length: 2 }, (_, w) => bulk(100 + w)),
    ];
    await waitFor(
      () => (acked.length >= 3000 ? true : undefined),
      30_000,
      () => `only ${acked.length} writes were acknowledged in 30 s`,
    );
    node.child.kill('SIGKILL');
    const exit = await node.waitForExit();
    expect(exit.signal).toBe('SIGKILL');
    stop = true;
    await Promise.all(writers);
    // The writers were still writing when the node died.
    expect(failures).toBeGreaterThan(0);

    const restarted = await startOn(dataDir);
    const present = await allIds(restarted.url, 'acked');
    const missing = acked.filter((id) => !present.has(id));
    expect(missing, `${missing.length} of ${acked.length} acknowledged inserts lost`).toEqual([]);
  }, 120_000);
});

/**
 * The wire on a node with reader processes (`docdb serve --serve-processes 2`, issue 25): the
 * kernel gives a router's connection to any process, and a reader passes the wire's Upgrade
 * to the first process, so every connection speaks the wire (none falls back to HTTP after a
 * 404) and every call is answered as over HTTP.
 */

import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { WireClient } from '../../src/cluster/shard-client.js';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, request, startServe, stopAll } from './support.js';

afterEach(stopAll);

/** How many connections to open: enough that some land on the reader. */
const CLIENTS = 12;

describe('the wire on docdb serve --serve-processes 2', () => {
  it('takes the Upgrade through a reader too, and answers as HTTP does', async () => {
    const { dir, cleanup } = makeTempDir('docdb-e2e-wire-processes-');
    try {
      const port = await freePort();
      const node = await startServe(
        ['--port', String(port), '--data-dir', path.join(dir, 'data'), '--serve-processes', '2'],
        { cwd: dir, port },
      );
      const direct = connect(node.url);
      const clients = Array.from({ length: CLIENTS }, () => new WireClient(node.url));
      try {
        const written = await Promise.all(clients.map((c, k) => c.insert('items', { k })));
        for (const [k, client] of clients.entries()) {
          const id = written[k]?.id as string;
          expect(await client.get('items', id)).toEqual(await direct.get('items', id));
          const found = await client.query('SELECT k FROM items WHERE k = ?', [k]);
          expect(found.documents).toMatchObject([{ k }]);
          expect((await client.getByKey('items', 'k', k)).count).toBe(1);
        }
        const metrics = (await request(`${node.url}/metrics`)).text;
        // A /wire the first process got as a plain request would be an unmatched 404.
        expect(metrics).not.toMatch(/route="unmatched"/);
        expect(metrics).toMatch(
          new RegExp(`method="POST",route="/collections/:name",status="201"} ${CLIENTS}\\b`),
        );
      } finally {
        await Promise.all([...clients.map((c) => c.close()), direct.close()]);
      }
    } finally {
      await stopAll();
      cleanup();
    }
  });
});

/**
 * The wire on a node with reader processes (`docdb serve --serve-processes 2`, issue 25): the
 * first process keeps a router's connection (its first request, the Upgrade, is no read a
 * reader serves), and a reader passes an Upgrade that comes later on a connection dealt to it
 * for a read, so every connection speaks the wire (none falls back to HTTP after a 404) and
 * every call is answered as over HTTP.
 */

import * as net from 'node:net';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { WireClient } from '../../src/cluster/shard-client.js';
import { WIRE_PATH, WIRE_PROTOCOL } from '../../src/wire/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, request, startServe, stopAll } from './support.js';

afterEach(stopAll);

/** How many connections to open: enough that some land on the reader. */
const CLIENTS = 12;

/**
 * On a new connection: a GET of the collections (a read, so dealt in turn to a process), then
 * the wire's Upgrade on the same connection; resolves with the Upgrade's answer head.
 */
function upgradeAfterRead(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let upgraded = false;
    socket.setEncoding('latin1');
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (!upgraded && text.length >= end + 4 + length) {
        upgraded = true;
        text = '';
        socket.write(
          `GET ${WIRE_PATH} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: ${WIRE_PROTOCOL}\r\n\r\n`,
        );
      } else if (upgraded) {
        socket.destroy();
        resolve(text.slice(0, end));
      }
    });
    socket.write('GET /collections HTTP/1.1\r\nHost: x\r\n\r\n');
  });
}

describe('the wire on docdb serve --serve-processes 2', () => {
  it('speaks the wire on every connection, an Upgrade through a reader too, and answers as HTTP does', async () => {
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
        // An Upgrade after a read, on connections dealt in turn: half of them are a reader's.
        for (let k = 0; k < 4; k++) {
          expect(await upgradeAfterRead(port)).toMatch(/^HTTP\/1\.1 101 /);
        }
      } finally {
        await Promise.all([...clients.map((c) => c.close()), direct.close()]);
      }
    } finally {
      await stopAll();
      cleanup();
    }
  });
});

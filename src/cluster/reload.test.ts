/**
 * Proves that a router follows its cluster.json: a valid change serves new requests with the
 * new topology (found by the file watcher, not only by an explicit check), an invalid or
 * unchanged file keeps the running one, prepared statements outlive a switch, and closing
 * releases every router it made.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import type { ClusterConfig } from './config.js';
import { ReloadingRouter } from './reload.js';

let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir('docdb-reload-');
});
afterEach(() => temp.cleanup());

function topology(shards: number): ClusterConfig {
  return {
    version: 1,
    router: { port: 6000 },
    shards: Array.from({ length: shards }, (_, i) => ({
      name: `s${i + 1}`,
      endpoint: `http://127.0.0.1:${5001 + i}`,
    })),
    collections: { orders: { strategy: 'hash', path: 'pnr' } },
  };
}

function write(file: string, config: unknown): void {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(config));
  fs.renameSync(`${file}.tmp`, file);
}

describe('ReloadingRouter', () => {
  it('switches to a changed topology, keeps it on an invalid or unchanged file', async () => {
    const file = path.join(temp.dir, 'cluster.json');
    write(file, topology(2));
    const reloads: number[] = [];
    const refusals: string[] = [];
    const router = new ReloadingRouter(file, topology(2), {
      reloaded: (next) => reloads.push(next.shards.length),
      refused: (error) => refusals.push((error as Error).message),
    });
    try {
      const first = router.current();
      await router.check();
      expect(router.current()).toBe(first);

      write(file, { ...topology(3), shards: [{ name: 's1', endpoint: 'ftp://x' }] });
      await router.check();
      expect(router.current()).toBe(first);
      expect(refusals[0]).toContain('shards[0].endpoint');

      write(file, topology(3));
      await router.check();
      expect(router.current()).not.toBe(first);
      expect(router.current().config.shards.map((s) => s.name)).toEqual(['s1', 's2', 's3']);
      expect(reloads).toEqual([3]);
    } finally {
      await router.close();
    }
  });

  it('keeps the prepared statements across a switch: a handle prepared before still runs', async () => {
    const file = path.join(temp.dir, 'prepared.json');
    write(file, topology(2));
    const router = new ReloadingRouter(file, topology(2));
    try {
      const sql = 'SELECT * FROM orders WHERE pnr = ?';
      const { handle } = router.current().prepare(sql);
      const first = router.current();
      write(file, topology(3));
      await router.check();
      expect(router.current()).not.toBe(first);
      expect(router.current().statements.prepared.require(handle).sql).toBe(sql);
    } finally {
      await router.close();
    }
  });

  it('picks up a change made between reading the file and watching it', async () => {
    const file = path.join(temp.dir, 'raced.json');
    write(file, topology(3));
    const router = new ReloadingRouter(file, topology(2), {}, { checkMs: 60_000 });
    try {
      const deadline = Date.now() + 5_000;
      while (router.current().config.shards.length !== 3) {
        expect(Date.now(), 'the change made before watching was missed').toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await router.close();
    }
  });

  it('finds a change through the file watcher', async () => {
    const file = path.join(temp.dir, 'watched.json');
    write(file, topology(2));
    const router = new ReloadingRouter(file, topology(2), {}, { checkMs: 20 });
    try {
      // Let the watcher take its first look, so that the change below is one it must notice.
      await new Promise((resolve) => setTimeout(resolve, 200));
      // mtime has a granularity; a later second makes the change certain to show.
      const later = new Date(Date.now() + 2_000);
      write(file, topology(4));
      fs.utimesSync(file, later, later);
      const deadline = Date.now() + 5_000;
      while (router.current().config.shards.length !== 4) {
        expect(Date.now(), 'the watcher never saw the change').toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await router.close();
    }
  });
});

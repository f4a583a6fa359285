/**
 * A node whose data dir fills up, on a small tmpfs the test mounts (skipped, saying why, where
 * mounting is not permitted): writes get 507 ERR_STORAGE_FULL naming the free space, reads,
 * queries and /health keep working, a restart while it is full is refused with that code,
 * every acknowledged write is still there after a restart, and writes succeed again once
 * space is freed. And a node whose data file reaches its size
 * cap (`--max-file-mib`, on any disk): 507 naming the cap and the setting, reads go on,
 * writes resume once documents are deleted and after a restart with a larger cap.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.js';
import { freePort, request, runServeFailing, startServe, stopAll } from './support.js';

const FS_BYTES = 24 * 1024 * 1024;
const temp = makeTempDir('docdb-disk-full-');
const mountPoint = path.join(temp.dir, 'small');
let mounted = false;
let skipReason = '';

beforeAll(() => {
  fs.mkdirSync(mountPoint);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${FS_BYTES}`, 'tmpfs', mountPoint], {
    encoding: 'utf8',
  });
  mounted = mount.status === 0;
  if (!mounted)
    skipReason = `cannot mount a small tmpfs here: ${(mount.stderr || mount.error?.message || '').trim()}`;
});

afterAll(async () => {
  await stopAll();
  if (mounted) spawnSync('umount', ['-l', mountPoint]);
  temp.cleanup();
});

/** Writes `file` until the disk holding it is full. */
function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
}

describe('a full disk', () => {
  it('refuses writes with 507, keeps reads, loses nothing, and takes writes again once space is freed', async (context) => {
    if (!mounted) {
      context.skip(skipReason);
      return;
    }
    // Ballast the test frees later, on the same file system.
    const ballast = path.join(mountPoint, 'ballast');
    fs.writeFileSync(ballast, Buffer.alloc(6 * 1024 * 1024, 1));
    const port = await freePort();
    const dataDir = path.join(mountPoint, 'data');
    const args = ['--port', String(port), '--data-dir', dataDir];
    let node = await startServe(args, { cwd: temp.dir, port });
    const url = `http://127.0.0.1:${port}`;

    const acknowledged: string[] = [];
    let refused: { status: number; json: Record<string, unknown> } | undefined;
    const batch = Array.from({ length: 200 }, (_, i) => ({ i, text: 'x'.repeat(1_000) }));
    for (let round = 0; round < 200 && !refused; round++) {
      const answer = await request(`${url}/collections/filler/bulk`, {
        method: 'POST',
        body: batch,
      });
      if (answer.status === 200) acknowledged.push(...(answer.json as { ids: string[] }).ids);
      else refused = { status: answer.status, json: answer.json as Record<string, unknown> };
    }
    expect(refused, 'the disk never filled').toBeDefined();
    expect(refused?.status).toBe(507);
    expect(refused?.json.code).toBe('ERR_STORAGE_FULL');
    expect(String(refused?.json.error)).toMatch(/disk holding .* is full \(\d+ bytes free\)/);

    // Reads, queries and health go on.
    expect((await request(`${url}/health`)).status).toBe(200);
    const counted = await request(`${url}/query`, {
      method: 'POST',
      body: { sql: 'SELECT COUNT(*) AS n FROM filler' },
    });
    expect(counted.json).toMatchObject({ documents: [{ n: acknowledged.length }] });
    const one = await request(`${url}/collections/filler/${acknowledged[0]}`);
    expect(one.status).toBe(200);

    // A node killed while the disk is full cannot take its writer lock: its start is refused
    // with the code and what to do, never an engine's raw error; nothing is left behind. (The
    // refusal began a checkpoint, which cut the write-ahead log back: the room that made is
    // filled first.)
    node.child.kill('SIGKILL');
    await node.waitForExit();
    fillDisk(path.join(mountPoint, 'rest'));
    const refusedStart = await runServeFailing(args, { cwd: temp.dir });
    expect(refusedStart.exit.code).not.toBe(0);
    expect(refusedStart.stderr).toMatch(/disk holding it is full.*\[ERR_STORAGE_FULL\]/);
    expect(fs.readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    // Space freed: the node starts and writes go through again.
    fs.rmSync(ballast);
    fs.rmSync(path.join(mountPoint, 'rest'));
    node = await startServe(args, { cwd: temp.dir, port });
    const after = await request(`${url}/collections/filler/bulk`, { method: 'POST', body: batch });
    expect(after.status, JSON.stringify(after.json)).toBe(200);
    acknowledged.push(...(after.json as { ids: string[] }).ids);

    // Nothing acknowledged was lost, across a restart.
    node.child.kill('SIGTERM');
    await node.waitForExit();
    node = await startServe(args, { cwd: temp.dir, port });
    const again = await request(`${url}/query`, {
      method: 'POST',
      body: { sql: 'SELECT COUNT(*) AS n FROM filler' },
    });
    expect(again.json).toMatchObject({ documents: [{ n: acknowledged.length }] });
    const last = await request(`${url}/collections/filler/${acknowledged.at(-1)}`);
    expect(last.status).toBe(200);
  });
});

describe('the data file size cap', () => {
  it('refuses writes past --max-file-mib with 507 naming it, and takes them again after deletes or a larger cap', async () => {
    const port = await freePort();
    const dataDir = path.join(temp.dir, 'capped');
    const args = ['--port', String(port), '--data-dir', dataDir];
    let node = await startServe([...args, '--max-file-mib', '2'], { cwd: temp.dir, port });
    const url = `http://127.0.0.1:${port}`;
    const batch = (round: number) =>
      Array.from({ length: 100 }, (_, i) => ({ round, i, text: 'x'.repeat(1_000) }));

    let acknowledged = 0;
    let refused: { status: number; json: Record<string, unknown> } | undefined;
    for (let round = 0; round < 100 && !refused; round++) {
      const answer = await request(`${url}/collections/filler/bulk`, {
        method: 'POST',
        body: batch(round),
      });
      if (answer.status === 200) acknowledged += (answer.json as { ids: string[] }).ids.length;
      else refused = { status: answer.status, json: answer.json as Record<string, unknown> };
    }
    expect(refused, 'the cap never refused a write').toBeDefined();
    expect(refused?.status).toBe(507);
    expect(refused?.json.code).toBe('ERR_STORAGE_FULL');
    expect(String(refused?.json.error)).toMatch(/size cap of 2 MiB \(storage\.maxFileMiB/);
    expect(String(refused?.json.error)).toContain('--max-file-mib');
    expect(fs.statSync(path.join(dataDir, 'data.docdb')).size).toBeLessThan(2.2 * 1024 * 1024);

    expect((await request(`${url}/health`)).status).toBe(200);
    const count = async () =>
      (
        await request(`${url}/query`, {
          method: 'POST',
          body: { sql: 'SELECT COUNT(*) AS n FROM filler' },
        })
      ).json;
    expect(await count()).toMatchObject({ documents: [{ n: acknowledged }] });

    // Deletes go through at the cap, and their pages take new writes.
    const deleted = await request(`${url}/collections/filler/by/round/0`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    acknowledged -= (deleted.json as { deleted: number }).deleted;
    const after = await request(`${url}/collections/filler/bulk`, {
      method: 'POST',
      body: batch(1_000),
    });
    expect(after.status, JSON.stringify(after.json)).toBe(200);
    acknowledged += 100;

    // A restart with a larger cap takes what the old one refused; nothing acknowledged is lost.
    node.child.kill('SIGTERM');
    await node.waitForExit();
    node = await startServe([...args, '--max-file-mib', '4'], { cwd: temp.dir, port });
    expect(await count()).toMatchObject({ documents: [{ n: acknowledged }] });
    for (let round = 0; round < 3; round++) {
      const more = await request(`${url}/collections/filler/bulk`, {
        method: 'POST',
        body: batch(2_000 + round),
      });
      expect(more.status, JSON.stringify(more.json)).toBe(200);
    }
  });
});

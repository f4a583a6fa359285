/**
 * Proves backups, restores, point-in-time recovery, export and import end to end, with real
 * `docdb serve` processes and the `docdb` CLI: a hot backup of a running node's data
 * directory taken while a client writes; a node with `--log-archive-dir` whose archive lets
 * `docdb restore --to-seq` bring back a dropped collection exactly as it was before the
 * drop, with nothing after that point; a backup by URL (POST /admin/backup, API key) whose
 * flipped or cut copy is refused; an export from one node imported into an empty node (and
 * through a router onto its shards) giving the same documents, `_id`s and indexes; and
 * import's per-line errors, `--atomic` and its limits.
 */

import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type DocdbClient } from '../../src/client/index.js';
import { open } from '../../src/engine/index.js';
import { BULK_DOCUMENTS_MAX } from '../../src/util/index.js';
import { runDocdb } from '../support/run-docdb.js';
import { makeTempDir } from '../support/temp-dir.js';
import {
  BIN,
  cleanEnv,
  freePort,
  START_TIMEOUT_MS,
  startServe,
  stopAll,
  waitFor,
} from './support.js';

const run = promisify(execFile);
let dir: string;
let cleanup: () => void;
const clients: DocdbClient[] = [];

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-e2e-backup-'));
});
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await stopAll();
  cleanup();
});

/** Runs the CLI without blocking this process (its clients keep writing meanwhile). */
async function docdb(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(BIN, args, { env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });
}

async function startNode(name: string, extra: string[] = []) {
  const port = await freePort();
  const dataDir = path.join(dir, name);
  const node = await startServe(['--port', String(port), '--data-dir', dataDir, ...extra], {
    cwd: dir,
    port,
  });
  const apiKey = extra.includes('--api-key') ? extra[extra.indexOf('--api-key') + 1] : undefined;
  const client = connect(node.url, { apiKey });
  clients.push(client);
  return { node, client, dataDir };
}

/** Every document of a collection in `_id` order. */
async function documentsOf(client: DocdbClient, collection: string) {
  const answer = await client.query(`SELECT * FROM ${collection} ORDER BY _id`);
  return answer.documents;
}

describe('backup and point-in-time recovery of a running node', () => {
  it('a dropped collection comes back from a hot backup and the log archive, exactly as before the drop', async () => {
    const archive = path.join(dir, 'archive');
    const { node, client, dataDir } = await startNode('node', ['--log-archive-dir', archive]);
    expect(node.startLine).toContain(`logArchive=${archive}`);
    const people = Array.from({ length: 200 }, (_, i) => ({ email: `p${i}@x`, n: i }));
    await client.bulk('people', people);
    await client.createIndex({ collection: 'people', path: 'email', unique: true });

    // The backup runs while a client writes: it holds every write acknowledged before it.
    const acknowledged = (await client.bulk('load', [{ k: 0 }, { k: 1 }])).ids;
    let writing = true;
    const load = (async () => {
      for (let k = 2; writing; k++) await client.insert('load', { k });
    })();
    await client.checkpoint();
    const backup = path.join(dir, 'nightly');
    const taken = await docdb(['backup', dataDir, backup, '--json']);
    writing = false;
    await load;
    const manifest = JSON.parse(taken.stdout);

    // After the backup: more writes, the mistake, more writes.
    await client.insert('people', { email: 'late@x', n: 1000 });
    const expected = await documentsOf(client, 'people');
    const { lastSeq: beforeDrop } = await client.flush();
    await client.dropCollection('people');
    await client.insert('people', { email: 'after@x', n: -1 });
    await client.insert('load', { k: -1 });
    node.child.kill('SIGTERM');
    expect((await node.waitForExit()).code).toBe(0);
    expect(fs.readdirSync(archive).length).toBeGreaterThan(0);

    const restored = path.join(dir, 'restored');
    const result = await docdb([
      'restore',
      backup,
      restored,
      '--to-seq',
      String(beforeDrop),
      '--log-dir',
      archive,
      '--json',
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      backupSeq: manifest.lastSeq,
      lastSeq: beforeDrop,
    });
    const db = await open(restored);
    try {
      const back = (await db.query('SELECT * FROM people ORDER BY _id')).documents;
      expect(back).toEqual(expected);
      expect(db.requireCollection('people').listIndexes()).toMatchObject([
        { paths: ['email'], unique: true, state: 'ready' },
      ]);
      const loaded = db.requireCollection('load');
      for (const id of acknowledged) expect(await loaded.get(id)).toBeDefined();
      expect(db.requireCollection('load').findBy('k', -1).documents).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('backs up a node by URL with its API key, and restores it', async () => {
    // A copy left by a node that died while it sent a backup goes at the next start.
    const stale = path.join(dir, 'node', '.backup-stale');
    fs.mkdirSync(stale, { recursive: true });
    const { client } = await startNode('node', ['--api-key', 'secret']);
    expect(fs.existsSync(stale)).toBe(false);
    await client.bulk('c', [{ a: 1 }, { a: 2 }, { a: 3 }]);
    const url = client.baseUrl;
    // The CLI names its own way to give the key, not the HTTP header (issue 23, mend 13).
    const refused = runDocdb(['backup', url, path.join(dir, 'b0')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('ERR_UNAUTHORIZED');
    expect(refused.stderr).toContain('pass --api-key <key> or set DOCDB_API_KEY');
    expect(refused.stderr).not.toContain('Authorization');
    const wrong = runDocdb(['backup', url, path.join(dir, 'b0'), '--api-key', 'nope']);
    expect(wrong.stderr).toContain('refused the key given with --api-key');
    const backup = path.join(dir, 'b1');
    await docdb(['backup', url, backup, '--api-key', 'secret', '--with-log']);
    expect(fs.readdirSync(backup).sort()).toEqual(['data.docdb', 'log', 'manifest.json']);
    const restored = runDocdb(['restore', backup, path.join(dir, 'r')]);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toMatch(/collections\s+c 3/);

    // A log directory that is missing (a typo) or empty is named, and nothing is restored
    // (issue 23, mend 2): it used to exit 0 at the backup's seq without a word.
    const empty = path.join(dir, 'empty-log');
    fs.mkdirSync(empty);
    for (const [logDir, problem] of [
      [path.join(dir, 'no-such-log'), 'does not exist'],
      [empty, 'holds no change-log segments'],
    ] as const) {
      const target = path.join(dir, 'r-log');
      const typo = runDocdb(['restore', backup, target, '--to-end', '--log-dir', logDir]);
      expect(typo.code, typo.stderr).toBe(2);
      expect(typo.stderr).toContain(`log directory ${logDir} ${problem}`);
      expect(fs.existsSync(target)).toBe(false);
    }

    // One flipped byte, or a cut file: refused with a clear error, nothing restored.
    const data = path.join(backup, 'data.docdb');
    const bytes = fs.readFileSync(data);
    bytes[100] = (bytes[100] as number) ^ 0x10;
    fs.writeFileSync(data, bytes);
    const flipped = runDocdb(['restore', backup, path.join(dir, 'r2')]);
    expect(flipped.code).toBe(1);
    expect(flipped.stderr).toContain('data.docdb does not match its checksum');
    expect(flipped.stderr).toContain('ERR_BACKUP_CORRUPT');
    fs.truncateSync(data, 1000);
    const cut = runDocdb(['restore', backup, path.join(dir, 'r3')]);
    expect(cut.stderr).toContain(`data.docdb is truncated: 1000 of its ${bytes.length} bytes`);
    expect(fs.existsSync(path.join(dir, 'r3', 'data.docdb'))).toBe(false);
  }, 60_000);
});

describe('export and import', () => {
  it('export from a node, import into an empty node: same documents, _ids and indexes', async () => {
    const a = await startNode('a');
    await a.client.seed(300);
    await a.client.createIndex({ collection: 'orders', paths: ['channel', 'fare.total'] });
    const file = path.join(dir, 'orders.ndjson');
    await docdb(['export', a.dataDir, 'orders', '--out', file]);
    const b = await startNode('b');
    const imported = await docdb(['import', b.node.url, 'orders', file, '--batch-size', '70']);
    expect(imported.stdout).toContain('imported 300 of 300 documents into orders');
    expect(await documentsOf(b.client, 'orders')).toEqual(await documentsOf(a.client, 'orders'));
    const shape = (indexes: Array<{ name: string; paths: string[]; unique: boolean }>) =>
      indexes.map(({ name, paths, unique }) => ({ name, paths, unique }));
    expect(shape(await b.client.indexes('orders'))).toEqual(
      shape(await a.client.indexes('orders')),
    );
  }, 60_000);

  it('imports through a router onto its shards, and exports back through it', async () => {
    const source = await startNode('source');
    await source.client.seed(200);
    const file = path.join(dir, 'orders.json');
    await docdb(['export', source.node.url, 'orders', '--format', 'json', '--out', file]);
    const shards = [await startNode('s1'), await startNode('s2')];
    const config = path.join(dir, 'cluster.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        router: { port: 1 },
        shards: shards.map((s, i) => ({ name: `s${i + 1}`, endpoint: s.node.url })),
        collections: { orders: { strategy: 'hash', path: 'pnr' } },
      }),
    );
    const port = await freePort();
    const router = spawn(BIN, ['router', '-c', config, '--port', String(port)], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    router.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const stopped = new Promise((resolve) => router.on('close', resolve));
    try {
      await waitFor(
        () => (out.includes('docdb router listening on') ? true : undefined),
        START_TIMEOUT_MS,
        () => `the router did not start:\n${out}`,
      );
      const url = `http://127.0.0.1:${port}`;
      const imported = await docdb(['import', url, 'orders', file]);
      expect(imported.stdout).toContain('imported 200 of 200 documents into orders');
      const counts = await Promise.all(shards.map(async (s) => s.client.stats()));
      const perShard = counts.map((c) => c.collections[0]?.count ?? 0);
      expect(perShard.every((n) => n > 0)).toBe(true);
      expect(perShard.reduce((a, b) => a + b, 0)).toBe(200);
      const back = await docdb(['export', url, 'orders']);
      const lines = back.stdout.trim().split('\n');
      expect(JSON.parse(lines[0] as string).$docdb.indexes.length).toBe(6);
      const ids = lines
        .slice(1)
        .map((l) => JSON.parse(l)._id)
        .sort();
      const expected = (await documentsOf(source.client, 'orders')).map((d) => d._id);
      expect(ids).toEqual(expected);
    } finally {
      router.kill('SIGTERM');
      await stopped;
    }
  }, 90_000);

  it('reports each failed record by its line and goes on; --atomic stores nothing', async () => {
    const file = path.join(dir, 'people.ndjson');
    const header = {
      $docdb: {
        format: 1,
        collection: 'p',
        indexes: [{ name: 'by_email', paths: ['email'], unique: true }],
      },
    };
    fs.writeFileSync(
      file,
      [
        JSON.stringify(header),
        '{"email":"a@x"}',
        '{"email": broken',
        '',
        '{"email":"a@x"}',
        '[1, 2]',
        '{"email":"b@x"}',
      ].join('\n'),
    );
    const target = path.join(dir, 'data');
    const atomic = runDocdb(['import', target, 'p', file, '--atomic']);
    expect(atomic.code).toBe(1);
    expect(atomic.stdout).toContain('nothing imported (--atomic)');
    expect(atomic.stderr).toContain(`${file} line 3: not valid JSON`);
    const inspect = runDocdb(['inspect', target]);
    expect(inspect.stdout).toContain('collections 0');

    const loose = runDocdb(['import', target, 'p', file, '--json']);
    expect(loose.code).toBe(1);
    const result = JSON.parse(loose.stdout);
    expect(result).toMatchObject({ read: 4, inserted: 2, indexesCreated: ['by_email'] });
    expect(result.errors.map((e: { line: number; code: string }) => [e.line, e.code])).toEqual([
      [3, 'ERR_DOCUMENT_INVALID'],
      [5, 'ERR_UNIQUE_VIOLATION'],
      [6, 'ERR_DOCUMENT_INVALID'],
    ]);

    // Into an existing collection, a failed atomic import drops the indexes it added.
    const more = path.join(dir, 'more.ndjson');
    const indexes = [...header.$docdb.indexes, { name: 'by_n', paths: ['n'], unique: false }];
    fs.writeFileSync(
      more,
      [JSON.stringify({ $docdb: { ...header.$docdb, indexes } }), '{"n":1}', 'oops'].join('\n'),
    );
    const again = runDocdb(['import', target, 'p', more, '--atomic']);
    expect(again.code).toBe(1);
    const after = runDocdb(['inspect', target]);
    expect(after.stdout).toContain('by_email');
    expect(after.stdout).not.toContain('by_n');
    expect(after.stdout).toContain('p  2 documents');
  });

  it('names a missing file, and leaves no directory behind a backup that failed', () => {
    const missing = runDocdb(['import', path.join(dir, 'd'), 'c', path.join(dir, 'nope.ndjson')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no file to import at');
    const out = path.join(dir, 'b');
    const failed = runDocdb(['backup', 'http://127.0.0.1:1', out]);
    expect(failed.code, failed.stderr).toBe(5);
    expect(failed.stderr).toContain('ERR_CLIENT_UNREACHABLE');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('--atomic takes BULK_DOCUMENTS_MAX records and refuses one more; --batch-size is bounded by it', () => {
    const file = path.join(dir, 'many.ndjson');
    fs.writeFileSync(file, '{}\n'.repeat(BULK_DOCUMENTS_MAX));
    const atLimit = runDocdb(['import', path.join(dir, 'd1'), 'c', file, '--atomic']);
    expect(atLimit.stdout).toContain(`imported ${BULK_DOCUMENTS_MAX} of ${BULK_DOCUMENTS_MAX}`);
    fs.appendFileSync(file, '{}\n');
    const past = runDocdb(['import', path.join(dir, 'd2'), 'c', file, '--atomic']);
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('ERR_BULK_TOO_LARGE');
    const batch = (n: number) =>
      runDocdb(['import', path.join(dir, 'd3'), 'c', file, '--batch-size', String(n)]);
    expect(batch(BULK_DOCUMENTS_MAX).code).toBe(0);
    expect(batch(BULK_DOCUMENTS_MAX + 1).code).toBe(2);
  }, 60_000);

  it('reads a JSON array, and names the line where a broken one fails', async () => {
    const file = path.join(dir, 'a.json');
    fs.writeFileSync(file, '[\n  {"a": "x,]"},\n  {"a": {"b": [1, 2]}}\n]\n');
    const ok = runDocdb(['import', path.join(dir, 'd'), 'c', file]);
    expect(ok.stdout).toContain('imported 2 of 2 documents');
    fs.writeFileSync(file, '[\n  {"a": 1},\n  {"a": 2}\n');
    const broken = runDocdb(['import', path.join(dir, 'e'), 'c', file]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('line 4: the JSON array is not closed');
    expect(broken.stderr).toContain('ERR_IMPORT_INVALID');
  });
});

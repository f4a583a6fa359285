/**
 * Damaged data files, as a user meets them: a cut file is refused at open with both sizes
 * named, by the embedded open() and by every offline command, and a node will not start on
 * it; a flipped byte in a document record is ERR_STORAGE_CORRUPT naming the collection and
 * the _id (embedded, SQL, REST), never a raw decoder message; `docdb verify` finds that
 * record, index entries removed or added behind the engine's back, a duplicate in a unique
 * index and a gap in the change log, and says nothing about a sound file.
 */

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { open as lmdbOpen } from 'lmdb';
import { unpack } from 'msgpackr';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { open } from '../../src/engine/index.js';
import { isDbError } from '../../src/errors/index.js';
import { buildApp } from '../../src/server/app.js';
import { newNodeStatus } from '../../src/server/node-status.js';
import { freePort } from '../e2e/support.js';
import { runDocdb } from '../support/run-docdb.js';
import { makeTempDir } from '../support/temp-dir.js';

const MARKER = 'DAMAGE_ME_MARKER_0123456789';

let dir: string;
let cleanup: () => void;
let file: string;

beforeEach(() => {
  ({ dir, cleanup } = makeTempDir('docdb-damage-'));
  file = path.join(dir, 'data.docdb');
});
afterEach(() => cleanup());

/** A small sound file: 200 orders with every kind of index, and one marked document. */
async function makeFile(): Promise<string> {
  const db = await open(dir);
  const orders = db.collection('orders');
  await orders.insertMany(
    Array.from({ length: 200 }, (_, i) => ({
      pnr: `P${i}`,
      status: ['new', 'paid', 'gone'][i % 3],
      tags: [`t${i % 5}`, `t${(i + 1) % 5}`],
      total: i * 1.5,
    })),
  );
  await orders.createIndex({ paths: ['pnr'], unique: true });
  await orders.createIndex({ paths: ['status', 'total'] });
  await orders.createIndex({ paths: ['tags[*]'] });
  const id = await orders.insert({ pnr: 'MARKED', note: MARKER });
  await db.close();
  return id;
}

/** Raw access to the file behind the engine's back (what damage does). */
function rawEnv() {
  return lmdbOpen<Buffer, Buffer>({
    path: file,
    noSubdir: true,
    maxDbs: 100,
    keyEncoding: 'binary',
    encoding: 'binary',
  });
}

/** The tree names of a collection and its indexes, from the catalog. */
function trees(env: ReturnType<typeof rawEnv>, collection: string) {
  const catalog = env.openDB<Buffer, Buffer>('catalog', {
    keyEncoding: 'binary',
    encoding: 'binary',
  });
  const def = unpack(catalog.get(Buffer.from(`c/${collection}`)) as Buffer) as {
    dbName: string;
    indexes: { name: string; dbName: string }[];
  };
  return def;
}

describe('a truncated data file', () => {
  it('is refused by open(), every offline command and serve, naming both sizes', async () => {
    await makeFile();
    const size = fs.statSync(file).size;
    fs.truncateSync(file, Math.floor(size / 2));
    const cut = Math.floor(size / 2);

    const error = await open(dir).catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_STORAGE_TRUNCATED')).toBe(true);
    expect((error as Error).message).toContain(`${size} bytes`);
    expect((error as Error).message).toContain(`${cut} bytes`);
    const readOnly = await open(dir, { readOnly: true }).catch((e: unknown) => e);
    expect(isDbError(readOnly, 'ERR_STORAGE_TRUNCATED')).toBe(true);

    for (const args of [
      ['inspect', dir],
      ['query', dir, 'SELECT COUNT(*) FROM orders'],
      ['compact', dir, 'orders'],
      ['verify', dir],
      ['repl', dir],
    ]) {
      const r = runDocdb(args, '.exit\n');
      expect(r.code, args.join(' ')).toBe(6);
      expect(r.stderr).toContain('[ERR_STORAGE_TRUNCATED]');
      expect(r.stderr).toContain(`at least ${size} bytes`);
      expect(r.stderr).toContain(`is ${cut} bytes`);
    }
    const json = runDocdb(['verify', dir, '--json']);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      error: { code: 'ERR_STORAGE_TRUNCATED' },
    });

    const port = await freePort();
    const serve = spawnSync(
      path.resolve(import.meta.dirname, '../../bin/docdb'),
      ['serve', '--data-dir', dir, '--port', String(port)],
      { encoding: 'utf8', timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } },
    );
    expect(serve.status).not.toBe(0);
    expect(serve.signal).toBeNull();
    expect(`${serve.stdout}${serve.stderr}`).toContain('ERR_STORAGE_TRUNCATED');
    // Nothing was written: the cut file is as it was.
    expect(fs.statSync(file).size).toBe(cut);
  });

  it('an empty file is refused, not silently made a new database', async () => {
    fs.writeFileSync(file, '');
    const error = await open(dir).catch((e: unknown) => e);
    expect(isDbError(error, 'ERR_STORAGE_TRUNCATED')).toBe(true);
    expect(fs.statSync(file).size).toBe(0);
  });
});

describe('a flipped byte in a document record', () => {
  /** Makes the marked document's stored record start with a nil: it no longer decodes. */
  async function damageMarked(): Promise<string> {
    const id = await makeFile();
    const bytes = fs.readFileSync(file);
    const marker = Buffer.from(MARKER);
    // The record is [structure][pnr][note]; the collection tree and the change log both hold it.
    let at = bytes.indexOf(marker);
    let flipped = 0;
    while (at >= 0) {
      const record = bytes.lastIndexOf(Buffer.from('MARKED'), at) - 2;
      bytes[record] = 0xc0;
      flipped++;
      at = bytes.indexOf(marker, at + 1);
    }
    expect(flipped).toBeGreaterThan(0);
    fs.writeFileSync(file, bytes);
    return id;
  }

  it('is ERR_STORAGE_CORRUPT naming the collection and _id, embedded, in SQL and over REST', async () => {
    const id = await damageMarked();
    const db = await open(dir);
    try {
      const get = await db
        .collection('orders')
        .get(id)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isDbError(get, 'ERR_STORAGE_CORRUPT')).toBe(true);
      expect((get as Error).message).toContain(`document ${id} of collection 'orders'`);
      expect((get as Error).message).not.toMatch(/end of buffer|MessagePack/);

      const scan = await db.query('SELECT * FROM orders').catch((e: unknown) => e);
      expect(isDbError(scan, 'ERR_STORAGE_CORRUPT')).toBe(true);
      expect((scan as Error).message).toContain(id);
      // A lookup that never reads the damaged record still answers.
      const other = await db.query("SELECT pnr FROM orders WHERE pnr = 'P7'");
      expect(other.documents).toHaveLength(1);

      const app = buildApp(db, { status: newNodeStatus(), logger: false });
      const answer = await app.inject({ method: 'GET', url: `/collections/orders/${id}` });
      expect(answer.statusCode).toBe(500);
      expect(answer.json()).toMatchObject({
        code: 'ERR_STORAGE_CORRUPT',
        collection: 'orders',
        id,
      });
      await app.close();
    } finally {
      await db.close();
    }
    const query = runDocdb(['query', dir, 'SELECT * FROM orders']);
    expect(query.code).toBe(6);
    expect(query.stderr).toContain('[ERR_STORAGE_CORRUPT]');
    expect(query.stderr).not.toContain('unexpected error');
  });

  it('names the damaged record in a filtered scan, not the one after the last match', async () => {
    const id = await damageMarked();
    const db = await open(dir);
    try {
      // Only P0 and P1 match, long before the marked record (the last inserted).
      for (const sql of [
        'SELECT * FROM orders WHERE total < 3',
        'SELECT pnr FROM orders WHERE total < 3',
        'SELECT COUNT(*) AS n FROM orders WHERE total < 3',
      ]) {
        const failed = await db.query(sql).catch((e: unknown) => e);
        expect(isDbError(failed, 'ERR_STORAGE_CORRUPT'), sql).toBe(true);
        expect((failed as Error).message, sql).toContain(`document ${id} of collection 'orders'`);
      }
    } finally {
      await db.close();
    }
  });

  it('cuts an NDJSON stream with ERR_STORAGE_CORRUPT naming the collection and _id', async () => {
    const id = await damageMarked();
    const db = await open(dir);
    try {
      for (const sql of ['SELECT * FROM orders', 'SELECT * FROM orders ORDER BY pnr']) {
        const stream = db.queryStream(sql, [], { rows: 'ndjson' });
        const failed = await (async () => {
          for await (const _ of stream);
        })().catch((e: unknown) => e);
        expect(isDbError(failed, 'ERR_STORAGE_CORRUPT'), sql).toBe(true);
        expect((failed as Error).message).toContain(`document ${id} of collection 'orders'`);
      }
    } finally {
      await db.close();
    }
  });

  it('docdb verify names the record and exits 1', async () => {
    const id = await damageMarked();
    const r = runDocdb(['verify', dir, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    expect(report.problems).toContainEqual(
      expect.objectContaining({ kind: 'document', collection: 'orders', id }),
    );
    const text = runDocdb(['verify', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`document ${id} of collection 'orders' cannot be decoded`);
  });
});

describe('a flipped size in a page', () => {
  it('verify reports the damaged pages instead of letting the engine read past them', async () => {
    await makeFile();
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt32LE(48);
    // The leaf node holding the marked document: its value size made huge (LMDB would copy
    // that much and die with SIGSEGV).
    let patched = false;
    for (let at = bytes.indexOf(MARKER); at >= 0 && !patched; at = bytes.indexOf(MARKER, at + 1)) {
      const page = Math.floor(at / pageSize) * pageSize;
      const lower = bytes.readUInt16LE(page + 20);
      for (let i = 0; i < lower / 2; i++) {
        const node = page + 24 + bytes.readUInt16LE(page + 24 + 2 * i);
        const size = bytes.readUInt16LE(node);
        const start = node + 8 + bytes.readUInt16LE(node + 6);
        if (at >= start && at < start + size) {
          bytes.writeUInt16LE(0x7fff, node + 2);
          patched = true;
        }
      }
    }
    expect(patched).toBe(true);
    fs.writeFileSync(file, bytes);
    const r = runDocdb(['verify', dir, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.problems).toContainEqual(
      expect.objectContaining({ kind: 'pages', collection: 'orders' }),
    );
    expect(report.problems[0].message).toMatch(/bytes, past the page's end/);
  });
});

describe('docdb verify', () => {
  it('passes a sound file, with what it checked', async () => {
    await makeFile();
    const r = runDocdb(['verify', dir, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ ok: true, problemCount: 0, problems: [] });
    expect(report.checked).toMatchObject({ collections: 1, documents: 201, indexes: 3 });
    // 201 pnr + 201 (status, total) + 2 distinct tags for 200 orders (none for the marked).
    expect(report.checked.indexEntries).toBe(201 + 201 + 400);
    expect(runDocdb(['verify', file]).stdout).toContain('ok: no problems found');
  });

  it('runs beside a process that holds the file for writing', async () => {
    await makeFile();
    const db = await open(dir);
    try {
      const reader = await open(dir, { readOnly: true });
      const report = await reader.verify();
      await reader.close();
      expect(report.ok).toBe(true);
      expect(runDocdb(['verify', dir]).code).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('finds index entries removed and added behind the engine, a unique duplicate and a log gap', async () => {
    await makeFile();
    const db = await open(dir);
    const [first, second] = (await db.query("SELECT _id FROM orders WHERE pnr IN ('P1', 'P2')"))
      .documents as { _id: string }[];
    await db.close();
    const idBytes = (text: string | undefined) =>
      Buffer.from((text ?? '').replaceAll('-', ''), 'hex');
    const env = rawEnv();
    const def = trees(env, 'orders');
    const index = (name: string) => {
      const found = def.indexes.find((i) => i.name.startsWith(name));
      return env.openDB<Buffer, Buffer>(found?.dbName as string, {
        keyEncoding: 'binary',
        encoding: 'binary',
        dupSort: true,
      });
    };
    const tags = index('idx_orders_tags');
    const tagsName = def.indexes.find((i) => i.name.startsWith('idx_orders_tags'))?.name;
    const pnr = index('idx_orders_pnr');
    const changes = env.openDB<Buffer, Buffer>('changes', {
      keyEncoding: 'binary',
      encoding: 'binary',
    });
    const tagKey = [...tags.getKeys()][0] as Buffer;
    const tagId = [...tags.getValues(tagKey)][0] as Buffer;
    const pnrKey = Buffer.from([...pnr.getRange({ limit: 1 })][0]?.key as Buffer);
    const seqs = [...changes.getKeys()] as Buffer[];
    await env.transaction(() => {
      tags.removeSync(tagKey, tagId);
      // P1's entry also listed under another document (a unique duplicate pointing wrongly).
      pnr.putSync(pnrKey, idBytes(second?._id));
      // An entry for a document that does not exist.
      tags.putSync(tagKey, Buffer.alloc(16, 7));
      changes.removeSync(Buffer.from(seqs[1] as Buffer));
    });
    await env.close();

    const r = runDocdb(['verify', dir, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    const kinds = report.problems.map((p: { kind: string }) => p.kind);
    expect(kinds).toContain('index-missing');
    expect(kinds).toContain('index-extra');
    expect(kinds).toContain('unique');
    expect(kinds).toContain('change-log');
    expect(report.problems).toContainEqual(
      expect.objectContaining({ kind: 'index-missing', index: tagsName }),
    );
    expect(report.problems).toContainEqual(
      expect.objectContaining({
        kind: 'index-extra',
        index: tagsName,
        id: '07070707-0707-0707-0707-070707070707',
      }),
    );
    expect(first?._id).toBeDefined();
    expect(report.problemCount).toBe(report.problems.length);
    const text = runDocdb(['verify', dir]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/the change log skips 2: seq 3 follows 1/);
    expect(text.stdout).toMatch(/\d+ problems: /);
  });
});

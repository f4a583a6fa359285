/**
 * `docdb export <source> <collection>` and `docdb import <target> <collection> <file>`
 * (docs/backup.md): one collection as NDJSON or a JSON array whose first record is a
 * `$docdb` header with the index definitions, and back, streamed, in bulk batches, offline
 * on a data directory or through the typed client against a running node or router.
 * Import reports each failed record by its line and goes on, or with `--atomic` stores
 * nothing unless everything goes in.
 */

import * as fs from 'node:fs';
import { connect, type DocdbClient } from '../client/index.js';
import type { Database, IndexInfo } from '../engine/index.js';
import { dbError, isDbError } from '../errors/index.js';
import { resolveDataFile } from '../storage/index.js';
import type { BulkResult, Document } from '../types/index.js';
import { BULK_DOCUMENTS_MAX } from '../util/index.js';
import { type ImportRecord, readRecords } from './import-reader.js';
import { dataFileExists, openExisting, openForWriting } from './open-file.js';
import { printJson } from './output.js';
import { progressBar } from './progress.js';

/** The export format this build writes (the header's `format`). */
export const EXPORT_FORMAT = 1;

/** Failed records printed one per line; the rest are counted. */
const ERRORS_PRINTED_MAX = 100;

/** The first record of an export: what the collection is, and its index definitions. */
export interface ExportHeader {
  $docdb: {
    format: number;
    collection: string;
    indexes: Array<{ name: string; paths: string[]; unique: boolean }>;
    exportedAt: string;
  };
}

const isUrl = (target: string): boolean => /^https?:\/\//i.test(target);

function apiKeyOf(options: { apiKey?: string }): string | undefined {
  return options.apiKey ?? process.env.DOCDB_API_KEY;
}

// ---- export ------------------------------------------------------------------------------

interface ExportSource {
  indexes: ExportHeader['$docdb']['indexes'];
  collection: string;
  documents: AsyncIterable<Document>;
  close(): Promise<void>;
}

async function exportOfFile(target: string, name: string): Promise<ExportSource> {
  if (!dataFileExists(target)) {
    throw dbError('ERR_STORAGE_NOT_FOUND', 'noFile', { file: resolveDataFile(target).file });
  }
  const db = await openExisting(target);
  try {
    const collection = db.requireCollection(name).name;
    // One pinned state: the documents and index definitions of one moment, however long
    // the export takes beside a running node.
    const snapshot = db.openFileSnapshot();
    const def = snapshot.collections.find((c) => c.name === collection);
    async function* documents(): AsyncGenerator<Document> {
      for (const { id, doc } of snapshot.documents(collection)) yield { _id: id, ...doc };
    }
    return {
      collection,
      indexes: (def?.indexes ?? []).map(({ name, paths, unique }) => ({ name, paths, unique })),
      documents: documents(),
      close: async () => {
        snapshot.release();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function exportOfNode(url: string, name: string, apiKey: string | undefined) {
  const client = connect(url, { apiKey });
  try {
    const indexes = await client.indexes(name);
    const stream = client.queryStream(`SELECT * FROM ${name}`);
    async function* documents(): AsyncGenerator<Document> {
      let first = true;
      for await (const row of stream) {
        if (first) first = false;
        else yield row as Document;
      }
    }
    return {
      collection: name.toLowerCase(),
      indexes: indexes.map(({ name: n, paths, unique }) => ({ name: n, paths, unique })),
      documents: documents(),
      close: () => client.close(),
    };
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Writes `text` to `out`, waiting when its buffer is full. */
function write(out: NodeJS.WritableStream, text: string): Promise<void> | undefined {
  if (out.write(text)) return undefined;
  return new Promise((resolve) => out.once('drain', resolve));
}

async function writeExport(
  source: ExportSource,
  out: NodeJS.WritableStream,
  format: 'ndjson' | 'json',
): Promise<number> {
  const header: ExportHeader = {
    $docdb: {
      format: EXPORT_FORMAT,
      collection: source.collection,
      indexes: source.indexes,
      exportedAt: new Date().toISOString(),
    },
  };
  const json = format === 'json';
  await write(out, `${json ? '[\n' : ''}${JSON.stringify(header)}`);
  let count = 0;
  for await (const doc of source.documents) {
    await write(out, `${json ? ',' : ''}\n${JSON.stringify(doc)}`);
    count++;
  }
  await write(out, json ? '\n]\n' : '\n');
  return count;
}

// ---- import ------------------------------------------------------------------------------

/** Where an import writes: a data file opened here, or a node (or router) by URL. */
interface ImportSink {
  exists(): Promise<boolean>;
  indexes(): Promise<IndexInfo[]>;
  createIndex(index: { name: string; paths: string[]; unique: boolean }): Promise<void>;
  dropIndex(name: string): Promise<void>;
  /** Inserts a batch; with `atomic`, stores nothing when any item fails (and says which). */
  insert(docs: unknown[], atomic: boolean): Promise<BulkResult>;
  drop(): Promise<void>;
  close(): Promise<void>;
}

function fileSink(db: Database, name: string): ImportSink {
  const c = db.collection(name);
  return {
    exists: async () => c.exists(),
    indexes: async () => (c.exists() ? c.listIndexes() : []),
    createIndex: async (index) => {
      await c.createIndex(index);
    },
    dropIndex: async (index) => {
      await c.dropIndex(index);
    },
    insert: (docs, atomic) => c.insertMany(docs, { atomic }),
    drop: async () => {
      await c.drop();
    },
    close: () => db.close(),
  };
}

function nodeSink(client: DocdbClient, name: string): ImportSink {
  return {
    exists: async () => (await client.collections()).includes(name.toLowerCase()),
    indexes: () => client.indexes(name),
    createIndex: async (index) => {
      await client.createIndex({ collection: name, ...index });
    },
    // The REST API drops an index through SQL; `?` stands only for values.
    dropIndex: async (index) => {
      await client.query(`DROP INDEX ${index} ON ${name}`);
    },
    insert: async (docs, atomic) => {
      try {
        return await client.bulk(name, docs as Document[], { atomic });
      } catch (error) {
        // An atomic bulk that failed answers its per-item report as the error's details.
        const details = isDbError(error) ? (error.details as Partial<BulkResult>) : undefined;
        if (atomic && Array.isArray(details?.errors)) return { ids: [], errors: details.errors };
        throw error;
      }
    },
    drop: async () => {
      await client.dropCollection(name);
    },
    close: () => client.close(),
  };
}

/** One record that did not go in. */
export interface ImportError {
  line: number;
  error: string;
  code?: string;
}

/** What an import did. */
export interface ImportResult {
  collection: string;
  read: number;
  inserted: number;
  indexesCreated: string[];
  errors: ImportError[];
  /** With --atomic and errors: nothing was stored. */
  rolledBack?: true;
}

function isHeader(value: unknown): value is ExportHeader {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    '$docdb' in value
  );
}

/** Creates the header's indexes that are missing; refuses one of the same name that differs. */
async function createIndexes(sink: ImportSink, header: ExportHeader): Promise<string[]> {
  const indexes = header.$docdb?.indexes;
  if (!Array.isArray(indexes)) {
    throw dbError('ERR_IMPORT_INVALID', 'headerWithoutIndexes');
  }
  const existing = await sink.indexes();
  const created: string[] = [];
  for (const index of indexes) {
    const same = existing.find((i) => i.name.toLowerCase() === String(index.name).toLowerCase());
    if (same) {
      if (
        JSON.stringify(same.paths) !== JSON.stringify(index.paths) ||
        same.unique !== index.unique
      ) {
        throw dbError('ERR_INDEX_EXISTS', 'differsFromFile', {
          name: same.name,
          paths: same.paths.join(', '),
          unique: same.unique ? ' (unique)' : '',
          filePaths: index.paths.join(', '),
          fileUnique: index.unique ? ' (unique)' : '',
        });
      }
      continue;
    }
    await sink.createIndex({ name: index.name, paths: index.paths, unique: index.unique === true });
    created.push(index.name);
  }
  return created;
}

interface ImportRun {
  sink: ImportSink;
  collection: string;
  batchSize: number;
  atomic: boolean;
  onRecord: () => void;
}

/** Streams records into the sink in batches; with `atomic`, one batch after reading all. */
async function importRecords(records: AsyncIterable<ImportRecord>, run: ImportRun) {
  const { sink, atomic } = run;
  const existed = await sink.exists();
  const result: ImportResult = {
    collection: run.collection,
    read: 0,
    inserted: 0,
    indexesCreated: [],
    errors: [],
  };
  let batch: Array<{ line: number; doc: unknown }> = [];
  // A node creates a collection on its first insert, not for an index: a new collection's
  // indexes are created once its first document is in, before any other.
  let pendingIndexes: ExportHeader | undefined;
  const insert = async (records: Array<{ line: number; doc: unknown }>) => {
    const answer = await sink.insert(
      records.map((r) => r.doc),
      atomic,
    );
    result.inserted += answer.ids.length;
    for (const e of answer.errors) {
      result.errors.push({ line: records[e.index]?.line ?? 0, error: e.error, code: e.code });
    }
    return answer.ids.length > 0;
  };
  const send = async () => {
    const sent = batch;
    batch = [];
    while (pendingIndexes && sent.length > 0) {
      if (await insert(sent.splice(0, 1))) {
        result.indexesCreated = await createIndexes(sink, pendingIndexes);
        pendingIndexes = undefined;
      }
    }
    if (sent.length > 0) await insert(sent);
  };
  let first = true;
  for await (const record of records) {
    run.onRecord();
    if ('error' in record) {
      result.errors.push({ line: record.line, error: record.error, code: 'ERR_DOCUMENT_INVALID' });
      continue;
    }
    if (first && isHeader(record.value)) {
      first = false;
      if (existed) result.indexesCreated = await createIndexes(sink, record.value);
      else pendingIndexes = record.value;
      continue;
    }
    first = false;
    result.read++;
    batch.push({ line: record.line, doc: record.value });
    if (atomic && batch.length > BULK_DOCUMENTS_MAX) {
      throw dbError('ERR_BULK_TOO_LARGE', 'atomicImport', { limit: BULK_DOCUMENTS_MAX });
    }
    if (!atomic && batch.length >= run.batchSize) await send();
  }
  // An atomic import sends nothing once a record failed to parse.
  if (!atomic || result.errors.length === 0) await send();
  if (atomic && result.errors.length > 0) {
    result.inserted = 0;
    result.rolledBack = true;
    await undoImport(sink, existed, result.indexesCreated);
  }
  return result;
}

/** What an atomic import that failed created goes again: nothing of it remains. */
async function undoImport(sink: ImportSink, existed: boolean, indexes: string[]): Promise<void> {
  if (!existed) {
    if (await sink.exists()) await sink.drop();
    return;
  }
  for (const name of indexes) await sink.dropIndex(name);
}

function printImport(result: ImportResult, file: string): void {
  for (const e of result.errors.slice(0, ERRORS_PRINTED_MAX)) {
    process.stderr.write(`${file} line ${e.line}: ${e.error}${e.code ? ` [${e.code}]` : ''}\n`);
  }
  if (result.errors.length > ERRORS_PRINTED_MAX) {
    process.stderr.write(
      `… and ${result.errors.length - ERRORS_PRINTED_MAX} more failed records\n`,
    );
  }
  const indexes =
    result.indexesCreated.length > 0 ? `; created indexes ${result.indexesCreated.join(', ')}` : '';
  const outcome = result.rolledBack
    ? `nothing imported (--atomic): ${result.errors.length} of ${result.read} records failed`
    : `imported ${result.inserted} of ${result.read} documents into ${result.collection}${indexes}` +
      (result.errors.length > 0 ? `; ${result.errors.length} failed (listed above)` : '');
  process.stdout.write(`${outcome}\n`);
}

/** Runs `docdb export` (declared in commands.ts). */
export async function runExport(
  target: string,
  name: string,
  options: { format: 'ndjson' | 'json'; out?: string; apiKey?: string },
): Promise<void> {
  const source = isUrl(target)
    ? await exportOfNode(target, name, apiKeyOf(options))
    : await exportOfFile(target, name);
  const out = options.out ? fs.createWriteStream(options.out) : process.stdout;
  try {
    const count = await writeExport(source, out, options.format);
    if (options.out) {
      await new Promise<void>((resolve, reject) => {
        out.once('error', reject);
        (out as fs.WriteStream).end(resolve);
      });
    }
    const note = `exported ${count} documents and ${source.indexes.length} index definitions of ${source.collection}${options.out ? ` to ${options.out}` : ''}\n`;
    // Stdout carries the data unless --out is given.
    (options.out ? process.stdout : process.stderr).write(note);
  } finally {
    await source.close();
  }
}

/** Runs `docdb import` (declared in commands.ts). */
export async function runImport(
  target: string,
  name: string,
  file: string,
  options: { atomic?: boolean; batchSize: number; apiKey?: string; json?: boolean },
): Promise<void> {
  if (file !== '-' && !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
    throw dbError('ERR_BAD_ARGUMENT', 'noImportFile', { file }, { file });
  }
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  const total = file === '-' ? 0 : fs.statSync(file).size;
  const sink = isUrl(target)
    ? nodeSink(connect(target, { apiKey: apiKeyOf(options) }), name)
    : fileSink(
        await openForWriting(
          target,
          `import through it instead: docdb import http://127.0.0.1:5000 ${name} ${file}`,
        ),
        name,
      );
  const bar = progressBar('import [{bar}] {percentage}% {eta_formatted} left', options.json);
  try {
    const result = await importRecords(readRecords(input), {
      sink,
      collection: name.toLowerCase(),
      batchSize: options.batchSize,
      atomic: options.atomic === true,
      onRecord: () => total > 0 && bar.update(Math.min(input.bytesRead, total), total),
    });
    bar.stop();
    if (options.json) printJson(result);
    else printImport(result, file);
    if (result.errors.length > 0) process.exitCode = 1;
  } finally {
    bar.stop();
    await sink.close();
  }
}

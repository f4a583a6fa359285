/**
 * Import and export of a whole collection. Export reads it page by page through the `after`
 * cursor, with progress, into NDJSON or a JSON array handed to the browser as a Blob of
 * pieces. Import checks the file first (NDJSON line by line from the file's stream; a JSON
 * array whole) and refuses a file with bad lines before sending anything, then reads it again
 * and stores through bulk insert: atomically in one request (nothing stored when any document
 * fails), or CHUNK_DOCS at a time with progress and the node's errors per line.
 */

'use client';

import { type FormEvent, useState } from 'react';
import { CollectionPicker, download, ErrorBox } from '@/components/bits';
import type { Document as Doc } from 'docdb/client';
import { client, idOf, stats as readStats } from '@/lib/api';
import { documentOf, firstCharacter, ndjsonLines, parseImport } from '@/lib/import-file';
import { useCollectionParam } from '@/lib/use-load';

/** Documents per request, both ways. */
const CHUNK_DOCS = 1000;
/** The node's bulk limit: an atomic import is one request. */
const BULK_DOCUMENTS_MAX = 100_000;
/** Line errors listed; the rest are counted. */
const ERRORS_SHOWN_MAX = 100;

interface Progress {
  done: number;
  total: number;
  label: string;
}

export default function TransferPage() {
  const [collection, setCollection] = useCollectionParam();
  const [format, setFormat] = useState<'ndjson' | 'json'>('ndjson');
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [message, setMessage] = useState('');
  const [lineErrors, setLineErrors] = useState<Array<{ line: number; error: string }>>([]);
  const [target, setTarget] = useState('');
  const [atomic, setAtomic] = useState(true);
  const [file, setFile] = useState<File | null>(null);
  const busy = progress !== null && progress.done < progress.total;

  const exportAll = async () => {
    setError(null);
    setMessage('');
    try {
      const stats = await readStats();
      const total = stats.collections.find((c) => c.name === collection)?.count ?? 0;
      const parts: string[] = [];
      let after: string | undefined;
      let done = 0;
      setProgress({ done, total, label: `Exporting ${collection}` });
      for (;;) {
        const { documents } = await client().list(collection, { limit: CHUNK_DOCS, after });
        for (const doc of documents) parts.push(JSON.stringify(doc));
        done += documents.length;
        setProgress({ done, total: Math.max(total, done), label: `Exporting ${collection}` });
        if (documents.length < CHUNK_DOCS) break;
        after = idOf(documents.at(-1));
      }
      // The pieces go to the browser as they are (a Blob of parts, never one joined string).
      const pieces =
        format === 'ndjson'
          ? parts.map((part) => `${part}\n`)
          : ['[\n', ...parts.map((part, i) => (i === 0 ? part : `,\n${part}`)), '\n]\n'];
      download(
        `${collection}.${format === 'ndjson' ? 'ndjson' : 'json'}`,
        pieces,
        format === 'ndjson' ? 'application/x-ndjson' : 'application/json',
      );
      setMessage(`Exported ${done} documents of ${collection}.`);
    } catch (caught) {
      setError(caught as Error);
    }
  };

  const importFile = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setError(null);
    setMessage('');
    setLineErrors([]);
    const into = target.trim() || collection;
    try {
      // First pass: every line checked, nothing sent. NDJSON is read from the file's stream
      // (one chunk at a time); a JSON array is parsed whole.
      setProgress({ done: 0, total: file.size, label: `Checking ${file.name}` });
      const source = await readSource(file, (bytes) =>
        setProgress({ done: bytes, total: file.size, label: `Checking ${file.name}` }),
      );
      if (source.errors.length > 0) {
        setProgress(null);
        setLineErrors(source.errors);
        throw new Error(
          `${source.errors.length} lines are not documents; nothing was imported. Fix them and try again.`,
        );
      }
      const total = source.count;
      if (atomic) {
        if (total > BULK_DOCUMENTS_MAX) {
          throw new Error(
            `an atomic import takes at most ${BULK_DOCUMENTS_MAX.toLocaleString()} documents; this file has ${total.toLocaleString()}: import it without "atomic"`,
          );
        }
        setProgress({ done: 0, total, label: `Importing into ${into} (atomic)` });
        // One request: all or nothing. It is at most BULK_DOCUMENTS_MAX documents.
        const docs: Doc[] = [];
        const lines: number[] = [];
        for await (const batch of source.batches(BULK_DOCUMENTS_MAX)) {
          docs.push(...batch.docs);
          lines.push(...batch.lines);
        }
        try {
          const result = await client().bulk(into, docs, { atomic: true });
          setProgress({ done: total, total, label: 'Imported' });
          setMessage(`Imported ${result.ids.length} documents into ${into}.`);
        } catch (caught) {
          const errors =
            (caught as { details?: { errors?: Array<{ index: number; error: string }> } }).details
              ?.errors ?? [];
          setLineErrors(
            errors.map((e) => ({ line: lines[e.index] ?? e.index + 1, error: e.error })),
          );
          setProgress(null);
          throw new Error(`${(caught as Error).message} — nothing was imported (atomic).`);
        }
      } else {
        // Second pass: the file read again, CHUNK_DOCS documents a request.
        let stored = 0;
        let done = 0;
        const errors: Array<{ line: number; error: string }> = [];
        for await (const batch of source.batches(CHUNK_DOCS)) {
          setProgress({ done, total, label: `Importing into ${into}` });
          const result = await client().bulk(into, batch.docs);
          stored += result.ids.length;
          for (const e of result.errors) {
            errors.push({ line: batch.lines[e.index] ?? done + e.index + 1, error: e.error });
          }
          done += batch.docs.length;
        }
        setProgress({ done: total, total, label: 'Imported' });
        setLineErrors(errors);
        setMessage(
          `Imported ${stored} of ${total} documents into ${into}${errors.length ? `; ${errors.length} refused (below)` : ''}.`,
        );
      }
    } catch (caught) {
      setError(unreadable(file, caught));
    }
  };

  return (
    <>
      <h1>Import / export</h1>
      <ErrorBox error={error} />
      {message && (
        <p role="status" className="ok">
          {message}
        </p>
      )}
      {progress && (
        <div>
          <progress aria-label="progress" max={Math.max(progress.total, 1)} value={progress.done} />
          <span className="notice">
            {progress.label}: {progress.done.toLocaleString()} / {progress.total.toLocaleString()}
          </span>
        </div>
      )}
      <h2>Export</h2>
      <div className="row">
        <CollectionPicker value={collection} onChange={setCollection} />
        <label>
          Format
          <select value={format} onChange={(e) => setFormat(e.target.value as 'ndjson' | 'json')}>
            <option value="ndjson">NDJSON (a document a line)</option>
            <option value="json">JSON array</option>
          </select>
        </label>
        <button
          type="button"
          className="primary"
          onClick={exportAll}
          disabled={!collection || busy}
        >
          Export {collection}
        </button>
      </div>
      <h2>Import</h2>
      <form className="row" onSubmit={importFile} aria-label="import">
        <label>
          File (NDJSON or JSON array)
          <input
            type="file"
            accept=".ndjson,.jsonl,.json,application/json"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
        </label>
        <label>
          Into collection
          <input
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            placeholder={collection || 'name'}
          />
        </label>
        <label>
          <input type="checkbox" checked={atomic} onChange={(e) => setAtomic(e.target.checked)} />
          Atomic (all or nothing)
        </label>
        <button
          type="submit"
          className="primary"
          disabled={!file || busy || !(target.trim() || collection)}
        >
          Import
        </button>
      </form>
      {lineErrors.length > 0 && (
        <section aria-label="line errors">
          <h2>Errors by line</h2>
          <table className="plain">
            <thead>
              <tr>
                <th>Line</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {lineErrors.slice(0, ERRORS_SHOWN_MAX).map((e) => (
                <tr key={`${e.line}-${e.error}`}>
                  <td>{e.line}</td>
                  <td>{e.error}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {lineErrors.length > ERRORS_SHOWN_MAX && (
            <p className="notice">and {lineErrors.length - ERRORS_SHOWN_MAX} more</p>
          )}
        </section>
      )}
    </>
  );
}

/** A checked import file: how many documents, the bad lines, and its documents in batches. */
interface Source {
  count: number;
  errors: Array<{ line: number; error: string }>;
  batches(size: number): AsyncGenerator<{ docs: Doc[]; lines: number[] }>;
}

/** Checks a file line by line (NDJSON, streamed) or whole (a JSON array). */
async function readSource(file: File, onBytes: (bytes: number) => void): Promise<Source> {
  if ((await firstCharacter(file)) === '[') {
    const parsed = parseImport(await file.text());
    return {
      count: parsed.docs.length,
      errors: parsed.errors,
      async *batches(size) {
        for (let start = 0; start < parsed.docs.length; start += size) {
          yield {
            docs: parsed.docs.slice(start, start + size),
            lines: parsed.lines.slice(start, start + size),
          };
        }
      },
    };
  }
  let count = 0;
  let bytes = 0;
  const errors: Array<{ line: number; error: string }> = [];
  for await (const { line, text } of ndjsonLines(file)) {
    const read = documentOf(text);
    if ('error' in read) errors.push({ line, error: read.error });
    else count++;
    bytes += text.length + 1;
    if (line % 5_000 === 0) onBytes(Math.min(bytes, file.size));
  }
  return {
    count,
    errors,
    async *batches(size) {
      let docs: Doc[] = [];
      let lines: number[] = [];
      for await (const { line, text } of ndjsonLines(file)) {
        const read = documentOf(text);
        if ('error' in read) continue;
        docs.push(read.doc);
        lines.push(line);
        if (docs.length === size) {
          yield { docs, lines };
          docs = [];
          lines = [];
        }
      }
      if (docs.length > 0) yield { docs, lines };
    },
  };
}

/** A file the browser can no longer read (changed or gone since it was chosen) says so. */
function unreadable(file: File, caught: unknown): Error {
  const error = caught as Error;
  return error.name === 'NotReadableError' || error.name === 'NotFoundError'
    ? new Error(`cannot read ${file.name}: ${error.message} Choose it again.`)
    : error;
}

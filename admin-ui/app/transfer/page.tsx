/**
 * Import and export of a whole collection. Export reads it page by page through the `after`
 * cursor, with progress, into NDJSON or a JSON array. Import reads NDJSON or a JSON array,
 * refuses a file with bad lines before sending anything, and stores through bulk insert:
 * atomically in one request (nothing stored when any document fails), or in chunks with
 * progress and the node's errors per line.
 */

'use client';

import { type FormEvent, useState } from 'react';
import { CollectionPicker, download, ErrorBox } from '@/components/bits';
import { api, type Doc } from '@/lib/api';
import { parseImport } from '@/lib/import-file';
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
      const stats = await api.stats();
      const total = stats.collections.find((c) => c.name === collection)?.count ?? 0;
      const parts: string[] = [];
      let after: string | undefined;
      let done = 0;
      setProgress({ done, total, label: `Exporting ${collection}` });
      for (;;) {
        const { documents } = await api.list(collection, CHUNK_DOCS, after);
        for (const doc of documents) parts.push(JSON.stringify(doc));
        done += documents.length;
        setProgress({ done, total: Math.max(total, done), label: `Exporting ${collection}` });
        if (documents.length < CHUNK_DOCS) break;
        after = (documents.at(-1) as Doc)._id;
      }
      const text = format === 'ndjson' ? `${parts.join('\n')}\n` : `[\n${parts.join(',\n')}\n]\n`;
      download(
        `${collection}.${format === 'ndjson' ? 'ndjson' : 'json'}`,
        text,
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
    let text: string;
    try {
      text = await file.text();
    } catch (caught) {
      // The file changed or went away since it was chosen: the browser refuses to read it.
      setError(
        new Error(`cannot read ${file.name}: ${(caught as Error).message} Choose it again.`),
      );
      return;
    }
    const parsed = parseImport(text);
    if (parsed.errors.length > 0) {
      setLineErrors(parsed.errors);
      setError(
        new Error(
          `${parsed.errors.length} lines are not documents; nothing was imported. Fix them and try again.`,
        ),
      );
      return;
    }
    const into = target.trim() || collection;
    const lineOf = (index: number) => parsed.lines[index] ?? index + 1;
    try {
      if (atomic) {
        if (parsed.docs.length > BULK_DOCUMENTS_MAX) {
          throw new Error(
            `an atomic import takes at most ${BULK_DOCUMENTS_MAX.toLocaleString()} documents; this file has ${parsed.docs.length.toLocaleString()}: import it without "atomic"`,
          );
        }
        setProgress({
          done: 0,
          total: parsed.docs.length,
          label: `Importing into ${into} (atomic)`,
        });
        try {
          const result = await api.bulk(into, parsed.docs, true);
          setProgress({ done: parsed.docs.length, total: parsed.docs.length, label: 'Imported' });
          setMessage(`Imported ${result.ids.length} documents into ${into}.`);
        } catch (caught) {
          const errors =
            (caught as { details?: { errors?: Array<{ index: number; error: string }> } }).details
              ?.errors ?? [];
          setLineErrors(errors.map((e) => ({ line: lineOf(e.index), error: e.error })));
          setProgress(null);
          throw new Error(`${(caught as Error).message} — nothing was imported (atomic).`);
        }
      } else {
        let stored = 0;
        const errors: Array<{ line: number; error: string }> = [];
        for (let start = 0; start < parsed.docs.length; start += CHUNK_DOCS) {
          setProgress({ done: start, total: parsed.docs.length, label: `Importing into ${into}` });
          const result = await api.bulk(into, parsed.docs.slice(start, start + CHUNK_DOCS), false);
          stored += result.ids.length;
          for (const e of result.errors)
            errors.push({ line: lineOf(start + e.index), error: e.error });
        }
        setProgress({ done: parsed.docs.length, total: parsed.docs.length, label: 'Imported' });
        setLineErrors(errors);
        setMessage(
          `Imported ${stored} of ${parsed.docs.length} documents into ${into}${errors.length ? `; ${errors.length} refused (below)` : ''}.`,
        );
      }
    } catch (caught) {
      setError(caught as Error);
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

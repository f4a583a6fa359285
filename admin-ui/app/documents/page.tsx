/**
 * Documents: a collection in a virtualised grid paged on the server (`after` cursor), or as
 * JSON a page at a time; columns come from the documents' paths. A row opens the document
 * in a JSON editor that checks the text before saving and shows the node's refusal inline;
 * the grid refreshes in place, so the list keeps its position after an edit. Also insert,
 * delete, and find by a key path and value (with the plan the lookup used).
 */

'use client';

import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import { CollectionPicker, ErrorBox } from '@/components/bits';
import { CodeEditor } from '@/components/code-editor';
import { useConfirm } from '@/components/confirm';
import { cursorDatasource, DocGrid, type GridApi } from '@/components/grid';
import { PlanView } from '@/components/plan-view';
import type { ByKeyAnswer, Document as Doc } from 'docdb/client';
import { client, idOf } from '@/lib/api';
import { isObject } from '@/lib/import-file';
import { columnPaths } from '@/lib/paths';
import { useCollectionParam } from '@/lib/use-load';

/** Rows per server page: one grid block, one JSON page. */
const PAGE_ROWS = 100;
/** Documents read to choose the columns. */
const SAMPLE_ROWS = 50;

interface Editing {
  /** Undefined for a new document. */
  id: string | undefined;
  text: string;
  error: string | null;
}

export default function DocumentsPage() {
  const [collection, setCollection] = useCollectionParam();
  const [view, setView] = useState<'table' | 'json'>('table');
  const [columns, setColumns] = useState<string[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const [found, setFound] = useState<ByKeyAnswer | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [message, setMessage] = useState('');
  const [grid, setGrid] = useState<GridApi | null>(null);
  const [version, setVersion] = useState(0);
  const [dialog, ask] = useConfirm();

  useEffect(() => {
    if (!collection) return;
    setFound(null);
    setEditing(null);
    setError(null);
    client()
      .list(collection, { limit: SAMPLE_ROWS })
      .then(
        (page) => setColumns(columnPaths(page.documents)),
        (caught: Error) => setError(caught),
      );
  }, [collection]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new version (an insert or a delete) starts the cursors afresh
  const datasource = useMemo(
    () =>
      collection
        ? cursorDatasource(
            (limit, after) => client().list(collection, { limit, after }),
            PAGE_ROWS,
            setError,
          )
        : undefined,
    [collection, version],
  );

  /** After a save: the blocks are fetched again where they are, so the position stays. */
  const refresh = useCallback(() => {
    if (found) setFound(null);
    grid?.refreshInfiniteCache();
  }, [grid, found]);

  const open = (doc: Doc) =>
    setEditing({ id: idOf(doc), text: JSON.stringify(doc, null, 2), error: null });

  const save = async () => {
    if (!editing) return;
    let doc: unknown;
    try {
      doc = JSON.parse(editing.text);
    } catch (caught) {
      setEditing({ ...editing, error: `Not valid JSON: ${(caught as Error).message}` });
      return;
    }
    if (!isObject(doc)) {
      setEditing({ ...editing, error: 'A document is a JSON object ({ … }).' });
      return;
    }
    try {
      if (editing.id) {
        await client().replace(collection, editing.id, doc);
        setMessage(`Saved ${editing.id}.`);
        setEditing({ ...editing, error: null });
        refresh();
      } else {
        const { id } = await client().insert(collection, doc);
        setMessage(`Inserted ${id}.`);
        setEditing({ id, text: JSON.stringify({ ...doc, _id: id }, null, 2), error: null });
        setVersion((v) => v + 1);
      }
    } catch (caught) {
      setEditing({ ...editing, error: (caught as Error).message });
    }
  };

  const remove = async () => {
    const id = editing?.id;
    if (!id) return;
    const ok = await ask({
      title: 'Delete this document?',
      body: <p className="mono">{id}</p>,
      action: 'Delete document',
      danger: true,
    });
    if (!ok) return;
    try {
      await client().delete(collection, id);
      setMessage(`Deleted ${id}.`);
      setEditing(null);
      setVersion((v) => v + 1);
    } catch (caught) {
      setEditing({ ...editing, error: (caught as Error).message });
    }
  };

  return (
    <>
      <h1>Documents</h1>
      {dialog}
      <div className="row">
        <CollectionPicker value={collection} onChange={setCollection} refreshKey={version} />
        <fieldset className="row" style={{ border: 0, margin: 0, padding: 0 }}>
          <legend className="notice" style={{ float: 'left', marginRight: 6 }}>
            View
          </legend>
          <label>
            <input
              type="radio"
              name="view"
              checked={view === 'table'}
              onChange={() => setView('table')}
            />
            Table
          </label>
          <label>
            <input
              type="radio"
              name="view"
              checked={view === 'json'}
              onChange={() => setView('json')}
            />
            JSON
          </label>
        </fieldset>
        <button
          type="button"
          className="primary"
          disabled={!collection}
          onClick={() => setEditing({ id: undefined, text: '{\n  \n}', error: null })}
        >
          New document
        </button>
      </div>
      <FindForm collection={collection} onFound={setFound} onError={setError} />
      <ErrorBox error={error} />
      {message && (
        <p role="status" className="ok">
          {message}
        </p>
      )}
      {found && (
        <div className="row">
          <span>Found {found.count} by key; plan:</span>
          <PlanView plan={found.plan ?? ''} />
          <button type="button" onClick={() => setFound(null)}>
            Back to all documents
          </button>
        </div>
      )}
      <div className={editing ? 'split' : ''}>
        <div style={{ minWidth: 0 }}>
          {collection &&
            view === 'table' &&
            (found ? (
              <DocGrid
                label="found documents"
                columns={columns}
                rows={found.documents}
                onOpen={open}
              />
            ) : (
              <DocGrid
                key={`${collection}-${version}-${columns.join()}`}
                label="documents"
                columns={columns}
                datasource={datasource}
                blockSize={PAGE_ROWS}
                onOpen={open}
                onReady={setGrid}
              />
            ))}
          {collection && view === 'json' && (
            <JsonPages collection={collection} version={version} found={found} onOpen={open} />
          )}
        </div>
        {editing && (
          <section className="panel" aria-label="document editor">
            <div className="row" style={{ marginTop: 0 }}>
              <strong>{editing.id ? 'Edit' : 'New document'}</strong>
              {editing.id && <code>{editing.id}</code>}
            </div>
            <CodeEditor
              language="json"
              label="document JSON"
              value={editing.text}
              onChange={(text) => setEditing((e) => (e ? { ...e, text, error: null } : e))}
              onRun={save}
              height="45vh"
            />
            <ErrorBox error={editing.error} />
            <div className="row">
              <button type="button" className="primary" onClick={save}>
                {editing.id ? 'Save' : 'Insert'}
              </button>
              {editing.id && (
                <button type="button" className="danger" onClick={remove}>
                  Delete
                </button>
              )}
              <button type="button" onClick={() => setEditing(null)}>
                Close
              </button>
              <span className="notice">Ctrl/Cmd+Enter saves</span>
            </div>
          </section>
        )}
      </div>
    </>
  );
}

function FindForm({
  collection,
  onFound,
  onError,
}: {
  collection: string;
  onFound: (page: ByKeyAnswer) => void;
  onError: (error: Error | null) => void;
}) {
  const [path, setPath] = useState('');
  const [value, setValue] = useState('');
  const find = async (event: FormEvent) => {
    event.preventDefault();
    onError(null);
    try {
      onFound(await client().getByKey(collection, path.trim(), value));
    } catch (caught) {
      onError(caught as Error);
    }
  };
  return (
    <form className="row" onSubmit={find} aria-label="find by key">
      <label>
        Key path
        <input
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="pnr or fare.total"
        />
      </label>
      <label>
        Value
        <input value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit" disabled={!collection || !path.trim()}>
        Find
      </button>
    </form>
  );
}

/** The JSON view: one server page at a time, with the cursors of the pages before kept. */
function JsonPages({
  collection,
  version,
  found,
  onOpen,
}: {
  collection: string;
  version: number;
  found: ByKeyAnswer | null;
  onOpen: (doc: Doc) => void;
}) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [docs, setDocs] = useState<Doc[]>([]);
  const [error, setError] = useState<Error | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new collection or version starts over
  useEffect(() => setCursors([undefined]), [collection, version]);
  useEffect(() => {
    if (found) return;
    client()
      .list(collection, { limit: PAGE_ROWS, after: cursors.at(-1) })
      .then(
        (page) => setDocs(page.documents),
        (caught: Error) => setError(caught),
      );
  }, [collection, cursors, found]);
  const shown = found?.documents ?? docs;
  return (
    <>
      <ErrorBox error={error} />
      {!found && (
        <div className="row">
          <button
            type="button"
            disabled={cursors.length < 2}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Previous page
          </button>
          <span className="notice">
            Page {cursors.length} ({PAGE_ROWS} per page)
          </span>
          <button
            type="button"
            disabled={docs.length < PAGE_ROWS}
            onClick={() => setCursors([...cursors, idOf(docs.at(-1))])}
          >
            Next page
          </button>
        </div>
      )}
      <ul className="json-view" aria-label="documents as JSON" style={{ listStyle: 'none' }}>
        {shown.map((doc) => (
          <li key={idOf(doc)}>
            <button type="button" onClick={() => onOpen(doc)} aria-label={`open ${idOf(doc)}`}>
              Open
            </button>
            <pre style={{ margin: '4px 0 10px' }}>{JSON.stringify(doc, null, 2)}</pre>
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * Query: a SQL editor (highlighting, `?` parameters, Ctrl/Cmd+Enter runs); every run shows
 * its plan, count and time, the plan drawn with a hint when WHERE has no index; the result
 * as a grid or JSON, exportable as JSON, NDJSON or CSV; the session's statements in a
 * history to run again.
 */

'use client';

import { useEffect, useState } from 'react';
import { download, ErrorBox } from '@/components/bits';
import { CodeEditor } from '@/components/code-editor';
import { DocGrid } from '@/components/grid';
import { PlanView } from '@/components/plan-view';
import type { QueryAnswer } from 'docdb/client';
import { client } from '@/lib/api';
import { type ExportFormat, formatDocuments, MIME } from '@/lib/export-format';
import { columnPaths } from '@/lib/paths';

const HISTORY_STORAGE = 'docdb.queryHistory';
/** Statements the history keeps, newest first. */
const HISTORY_MAX = 50;

interface Run {
  sql: string;
  result: QueryAnswer | null;
  error: string | null;
  /** Milliseconds the browser waited, next to the node's own executionMs. */
  roundTripMs: number;
  plan: string | null;
}

export default function QueryPage() {
  const [sql, setSql] = useState('SELECT * FROM orders LIMIT 20');
  const [params, setParams] = useState('[]');
  const [run, setRun] = useState<Run | null>(null);
  const [running, setRunning] = useState(false);
  const [view, setView] = useState<'table' | 'json'>('table');
  const [history, setHistory] = useState<string[]>([]);

  useEffect(() => {
    const saved = sessionStorage.getItem(HISTORY_STORAGE);
    if (saved) setHistory(JSON.parse(saved) as string[]);
  }, []);

  const remember = (statement: string) => {
    const next = [statement, ...history.filter((s) => s !== statement)].slice(0, HISTORY_MAX);
    setHistory(next);
    sessionStorage.setItem(HISTORY_STORAGE, JSON.stringify(next));
  };

  const execute = async (statement = sql) => {
    if (!statement.trim() || running) return;
    let values: unknown;
    try {
      values = JSON.parse(params || '[]');
      if (!Array.isArray(values))
        throw new Error('parameters must be a JSON array, e.g. [30, "LH"]');
    } catch (caught) {
      setRun({
        sql: statement,
        result: null,
        error: `Parameters: ${(caught as Error).message}`,
        roundTripMs: 0,
        plan: null,
      });
      return;
    }
    setRunning(true);
    remember(statement);
    const started = performance.now();
    try {
      const result = await client().query(statement, values);
      setRun({
        sql: statement,
        result,
        error: null,
        roundTripMs: performance.now() - started,
        plan: result.plan,
      });
    } catch (caught) {
      setRun({
        sql: statement,
        result: null,
        error: (caught as Error).message,
        roundTripMs: performance.now() - started,
        plan: null,
      });
    } finally {
      setRunning(false);
    }
  };

  const docs = run?.result?.documents ?? [];
  const exportAs = (format: ExportFormat) =>
    download(`docdb-result.${format}`, formatDocuments(docs, format), MIME[format]);

  return (
    <>
      <h1>Query</h1>
      <CodeEditor
        language="sql"
        label="SQL statement"
        value={sql}
        onChange={setSql}
        onRun={() => execute()}
      />
      <div className="row">
        <label>
          Parameters for <code>?</code> (JSON array)
          <input
            className="mono"
            value={params}
            onChange={(e) => setParams(e.target.value)}
            size={24}
          />
        </label>
        <button type="button" className="primary" onClick={() => execute()} disabled={running}>
          {running ? 'Running…' : 'Run'}
        </button>
        <span className="notice">Ctrl/Cmd+Enter runs</span>
      </div>
      {run && (
        <section aria-label="result">
          <ErrorBox error={run.error} />
          {run.result && (
            <div className="row" role="status" aria-label="run summary">
              <span className="badge">count {run.result.count}</span>
              <span className="badge">{run.result.executionMs.toFixed(2)} ms on the node</span>
              <span className="badge">{Math.round(run.roundTripMs)} ms round trip</span>
              {run.result.affected !== undefined && (
                <span className="badge">affected {run.result.affected}</span>
              )}
            </div>
          )}
          {run.plan && run.plan !== 'NONE' && <PlanView plan={run.plan} sql={run.sql} />}
          {run.result && (
            <>
              <div className="row">
                <label>
                  <input
                    type="radio"
                    name="result-view"
                    checked={view === 'table'}
                    onChange={() => setView('table')}
                  />
                  Table
                </label>
                <label>
                  <input
                    type="radio"
                    name="result-view"
                    checked={view === 'json'}
                    onChange={() => setView('json')}
                  />
                  JSON
                </label>
                <span className="notice">Export</span>
                {(['json', 'ndjson', 'csv'] as const).map((format) => (
                  <button
                    key={format}
                    type="button"
                    onClick={() => exportAs(format)}
                    disabled={docs.length === 0}
                  >
                    {format.toUpperCase()}
                  </button>
                ))}
              </div>
              {view === 'table' ? (
                <DocGrid label="result rows" columns={columnPaths(docs)} rows={docs} />
              ) : (
                <pre className="json-view">{JSON.stringify(docs, null, 2)}</pre>
              )}
            </>
          )}
        </section>
      )}
      <h2>History</h2>
      {history.length === 0 ? (
        <p className="notice">Statements you run in this session show here.</p>
      ) : (
        <ul className="history" aria-label="history">
          {history.map((statement) => (
            <li key={statement}>
              <button type="button" onClick={() => setSql(statement)} title={statement}>
                {statement}
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

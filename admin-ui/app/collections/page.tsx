/**
 * Collections: each with its count and indexes; create one (with its first document, as the
 * node creates a collection at its first insert); drop one after typing its name, which
 * sends `X-Confirm: true`.
 */

'use client';

import Link from 'next/link';
import { type FormEvent, useState } from 'react';
import { ErrorBox } from '@/components/bits';
import { useConfirm } from '@/components/confirm';
import type { Document } from 'docdb/client';
import { client, stats as readStats } from '@/lib/api';
import { useLoad } from '@/lib/use-load';

export default function CollectionsPage() {
  const stats = useLoad(() => readStats());
  const [dialog, ask] = useConfirm();
  const [error, setError] = useState<Error | null>(null);
  const [message, setMessage] = useState('');
  const [name, setName] = useState('');
  const [first, setFirst] = useState('{}');

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const doc = JSON.parse(first) as Document;
      const { id } = await client().insert(name.trim(), doc);
      setMessage(`Created ${name.trim()} with its first document ${id}.`);
      setName('');
      await stats.reload();
    } catch (caught) {
      setError(
        caught instanceof SyntaxError
          ? new Error(`first document: ${caught.message}`)
          : (caught as Error),
      );
    }
  };

  const drop = async (collection: string, count: number) => {
    const ok = await ask({
      title: `Drop ${collection}?`,
      body: (
        <p>
          This deletes all {count.toLocaleString()} documents of <code>{collection}</code> and its
          indexes. It cannot be undone.
        </p>
      ),
      action: 'Drop collection',
      typed: collection,
      danger: true,
    });
    if (!ok) return;
    setError(null);
    try {
      await client().dropCollection(collection);
      setMessage(`Dropped ${collection}.`);
      await stats.reload();
    } catch (caught) {
      setError(caught as Error);
    }
  };

  return (
    <>
      <h1>Collections</h1>
      {dialog}
      <ErrorBox error={stats.error ?? error} />
      {message && (
        <p role="status" className="ok">
          {message}
        </p>
      )}
      <div className="scroll-x">
        <table className="plain">
          <thead>
            <tr>
              <th>Name</th>
              <th>Documents</th>
              <th>Indexes</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {stats.data?.collections.map((c) => (
              <tr key={c.name}>
                <td>
                  <Link href={`/documents/?c=${encodeURIComponent(c.name)}`}>{c.name}</Link>
                </td>
                <td>{c.count.toLocaleString()}</td>
                <td>
                  {'indexes' in c
                    ? c.indexes.map((i) => (
                        <span key={i.name} className="badge" title={i.paths.join(', ')}>
                          {i.name}
                        </span>
                      ))
                    : '–'}
                </td>
                <td>
                  <button type="button" className="danger" onClick={() => drop(c.name, c.count)}>
                    Drop {c.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Create a collection</h2>
      <form onSubmit={create} className="row">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="orders" />
        </label>
        <label>
          First document
          <input
            className="mono"
            value={first}
            onChange={(e) => setFirst(e.target.value)}
            size={30}
          />
        </label>
        <button type="submit" className="primary" disabled={!name.trim()}>
          Create
        </button>
      </form>
      <p className="notice">A collection exists from its first document on.</p>
    </>
  );
}

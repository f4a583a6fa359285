/**
 * Indexes: a collection's indexes with their kind (single, composite, multikey, unique) and
 * state (ready, stale); create one, rebuild one, drop one (`DROP INDEX`, the node's only way
 * to drop an index), each change confirmed first when it loses something.
 */

'use client';

import { type FormEvent, useState } from 'react';
import { CollectionPicker, ErrorBox } from '@/components/bits';
import { useConfirm } from '@/components/confirm';
import type { IndexInfo } from 'docdb/client';
import { client } from '@/lib/api';
import { useCollectionParam, useLoad } from '@/lib/use-load';

function kinds(index: IndexInfo): string[] {
  return [
    index.paths.length > 1 ? 'composite' : 'single',
    ...(index.multikey ? ['multikey'] : []),
    ...(index.unique ? ['unique'] : []),
  ];
}

export default function IndexesPage() {
  const [collection, setCollection] = useCollectionParam();
  const indexes = useLoad(
    () => (collection ? client().indexes(collection) : Promise.resolve([])),
    collection,
  );
  const [dialog, ask] = useConfirm();
  const [error, setError] = useState<Error | null>(null);
  const [message, setMessage] = useState('');
  const [paths, setPaths] = useState('');
  const [name, setName] = useState('');
  const [unique, setUnique] = useState(false);

  const act = async (what: () => Promise<string>) => {
    setError(null);
    setMessage('');
    try {
      setMessage(await what());
      await indexes.reload();
    } catch (caught) {
      setError(caught as Error);
    }
  };

  const create = (event: FormEvent) => {
    event.preventDefault();
    const list = paths
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    act(async () => {
      const created = await client().createIndex({
        collection,
        paths: list,
        ...(name.trim() && { name: name.trim() }),
        ...(unique && { unique: true }),
      });
      setPaths('');
      setName('');
      setUnique(false);
      return `Created index ${created.name} on ${created.paths.join(', ')}.`;
    });
  };

  const drop = async (index: IndexInfo) => {
    const ok = await ask({
      title: `Drop index ${index.name}?`,
      body: (
        <p>
          Queries on {index.paths.join(', ')} will scan the collection until it is created again.
        </p>
      ),
      action: 'Drop index',
      danger: true,
    });
    if (ok)
      act(async () => {
        await client().dropIndex(collection, index.name);
        return `Dropped index ${index.name}.`;
      });
  };

  const rebuild = (index: IndexInfo) =>
    act(async () => {
      await client().rebuildIndex(collection, index.name);
      return `Rebuilt index ${index.name}.`;
    });

  return (
    <>
      <h1>Indexes</h1>
      {dialog}
      <div className="row">
        <CollectionPicker value={collection} onChange={setCollection} />
      </div>
      <ErrorBox error={indexes.error ?? error} />
      {message && (
        <p role="status" className="ok">
          {message}
        </p>
      )}
      <div className="scroll-x">
        <table className="plain" aria-label="indexes">
          <thead>
            <tr>
              <th>Name</th>
              <th>Paths</th>
              <th>Kind</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {indexes.data?.map((index) => (
              <tr key={index.name}>
                <td>{index.name}</td>
                <td className="mono">{index.paths.join(', ')}</td>
                <td>{kinds(index).join(', ')}</td>
                <td>
                  <span className={`badge ${index.state === 'ready' ? 'ok' : 'warn'}`}>
                    {index.state}
                  </span>
                </td>
                <td className="row" style={{ margin: 0 }}>
                  <button type="button" onClick={() => rebuild(index)}>
                    Rebuild {index.name}
                  </button>
                  <button type="button" className="danger" onClick={() => drop(index)}>
                    Drop {index.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {indexes.data?.length === 0 && (
        <p className="notice">No indexes: every query on this collection scans it.</p>
      )}
      <h2>Create an index</h2>
      <form className="row" onSubmit={create} aria-label="create index">
        <label>
          Paths
          <input
            value={paths}
            onChange={(e) => setPaths(e.target.value)}
            placeholder="pnr, or fare.total, or flights[*].from"
            size={28}
          />
        </label>
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="optional" />
        </label>
        <label>
          <input type="checkbox" checked={unique} onChange={(e) => setUnique(e.target.checked)} />
          Unique
        </label>
        <button type="submit" className="primary" disabled={!collection || !paths.trim()}>
          Create index
        </button>
      </form>
      <p className="notice">
        Several paths, comma-separated, make a composite index; a path with [*] a multikey one.
      </p>
    </>
  );
}

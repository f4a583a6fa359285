/** Loading what a screen shows: the value, the error to show in its place, and a reload. */

'use client';

import { useCallback, useEffect, useRef, useState } from 'react';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Loads on mounting and again whenever `key` changes (the collection the load reads). */
export function useLoad<T>(load: () => Promise<T>, key?: unknown): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const [loading, setLoading] = useState(true);
  // The newest load, so that reload (made once) reads what the caller reads now.
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    setLoading(true);
    try {
      setData(await latest.current());
      setError(null);
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setLoading(false);
    }
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: key names what load reads
  useEffect(() => {
    reload();
  }, [key, reload]);
  return { data, error, loading, reload };
}

/**
 * The collection a screen works on, kept in the address (`?c=orders`) so a link or a reload
 * opens the same one. Read after mounting: the export prerenders pages without a query.
 */
export function useCollectionParam(): [string, (name: string) => void] {
  const [name, setName] = useState('');
  useEffect(() => {
    setName(new URLSearchParams(window.location.search).get('c') ?? '');
  }, []);
  const choose = useCallback((next: string) => {
    setName(next);
    const url = new URL(window.location.href);
    if (next) url.searchParams.set('c', next);
    else url.searchParams.delete('c');
    window.history.replaceState(null, '', url);
  }, []);
  return [name, choose];
}

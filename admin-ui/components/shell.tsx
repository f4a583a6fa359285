/**
 * The gate and the frame of every screen: it checks that the node answers (/health is
 * public) and that the key works (/stats is not), then shows the navigation and the screen.
 * A node that does not answer and a wrong key each get a screen of their own that says so.
 */

'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { type FormEvent, type ReactNode, useCallback, useEffect, useState } from 'react';
import { type HealthBody as Health, isDbError } from 'docdb/client';
import { BASE_URL, client, nodeUrl, storedKey, storeKey, unanswered } from '@/lib/api';
import { SessionContext } from './session';

type Gate =
  | { kind: 'checking' }
  | { kind: 'down'; message: string }
  | { kind: 'key'; message: string | null; health: Health }
  | { kind: 'in'; health: Health };

async function check(key: string): Promise<Gate> {
  let health: Health;
  try {
    health = await client(key).health();
  } catch (error) {
    return { kind: 'down', message: downMessage(error) };
  }
  try {
    await client(key).stats();
    return { kind: 'in', health };
  } catch (error) {
    if (isDbError(error, 'ERR_UNAUTHORIZED')) {
      // No key yet is not a mistake: ask for one without an error.
      return { kind: 'key', message: key ? error.message : null, health };
    }
    // A router whose shard is down answers /stats 503, yet the key worked.
    if (isDbError(error) && !unanswered(error)) return { kind: 'in', health };
    return { kind: 'down', message: downMessage(error) };
  }
}

/** What the down screen says: the node did not answer, and the client's words for why. */
function downMessage(error: unknown): string {
  const why = (error as Error).message;
  return unanswered(error)
    ? `the node at ${nodeUrl()} did not answer: is it running? (${why})`
    : why;
}

const SCREENS: Array<{ href: string; label: string; when?: 'node' | 'router' }> = [
  { href: '/', label: 'Overview' },
  { href: '/collections/', label: 'Collections' },
  { href: '/documents/', label: 'Documents' },
  { href: '/query/', label: 'Query' },
  { href: '/indexes/', label: 'Indexes' },
  { href: '/transfer/', label: 'Import / export' },
  { href: '/replication/', label: 'Replication', when: 'node' },
  { href: '/cluster/', label: 'Cluster', when: 'router' },
];

export function Shell({ children }: { children: ReactNode }) {
  const [gate, setGate] = useState<Gate>({ kind: 'checking' });
  const pathname = usePathname();

  const recheck = useCallback(async (key: string) => {
    setGate({ kind: 'checking' });
    const next = await check(key);
    if (next.kind === 'in') storeKey(key);
    if (next.kind === 'key') storeKey('');
    setGate(next);
  }, []);

  useEffect(() => {
    recheck(storedKey());
  }, [recheck]);

  if (gate.kind === 'checking') return <p className="signin notice">Connecting to docdb…</p>;
  if (gate.kind === 'down') {
    return (
      <section className="signin" aria-labelledby="down-title">
        <h1 id="down-title">The node does not answer</h1>
        <p className="error" role="alert">
          {gate.message}
        </p>
        <p className="notice">
          Start it with <code>./bin/docdb serve</code> (or check the address), then try again.
        </p>
        <button type="button" className="primary" onClick={() => recheck(storedKey())}>
          Try again
        </button>
      </section>
    );
  }
  if (gate.kind === 'key') return <SignIn gate={gate} onSubmit={recheck} />;

  const isRouter = gate.health.role === 'router';
  const signOut = () => {
    storeKey('');
    recheck('');
  };
  return (
    <SessionContext.Provider value={{ health: gate.health, isRouter }}>
      <div className="app">
        <nav className="nav" aria-label="Screens">
          <div className="brand">docdb</div>
          <div className="who">
            {gate.health.node} · {isRouter ? 'router' : `role ${gate.health.role}`} ·{' '}
            {BASE_URL || 'this node'}
          </div>
          <ul>
            {SCREENS.filter((s) => !s.when || (s.when === 'router' ? isRouter : !isRouter)).map(
              (s) => (
                <li key={s.href}>
                  <Link href={s.href} aria-current={pathname === s.href ? 'page' : undefined}>
                    {s.label}
                  </Link>
                </li>
              ),
            )}
          </ul>
          {storedKey() && (
            <button type="button" className="signout" onClick={signOut}>
              Sign out
            </button>
          )}
        </nav>
        <main>{children}</main>
      </div>
    </SessionContext.Provider>
  );
}

function SignIn({
  gate,
  onSubmit,
}: {
  gate: Extract<Gate, { kind: 'key' }>;
  onSubmit: (key: string) => void;
}) {
  const [key, setKey] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(key.trim());
  };
  return (
    <section className="signin" aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in to {gate.health.node}</h1>
      <p className="notice">
        This node needs its API key. It stays in this tab's session storage and is sent as{' '}
        <code>Authorization: Bearer</code>.
      </p>
      {gate.message && (
        <p className="error" role="alert">
          {gate.message}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          // biome-ignore lint/a11y/noAutofocus: the sign-in form has nothing else to focus
          autoFocus
        />
        <button type="submit" className="primary" disabled={!key.trim()}>
          Sign in
        </button>
      </form>
    </section>
  );
}

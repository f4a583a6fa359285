/**
 * Cluster (served by `docdb router`): each shard with whether it answered and its counts per
 * collection, from the router's /stats, refreshed every five seconds. A shard that does not
 * answer fails the router's /stats with a 503 naming it, which shows here as the node said.
 */

'use client';

import { useEffect } from 'react';
import { ErrorBox, formatBytes } from '@/components/bits';
import { useSession } from '@/components/session';
import { routerStats, stats as readStats } from '@/lib/api';
import { useLoad } from '@/lib/use-load';

const REFRESH_MS = 5000;

export default function ClusterPage() {
  const { health, isRouter } = useSession();
  const stats = useLoad(() => readStats());
  const router = routerStats(stats.data);
  const { reload } = stats;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (!isRouter)
    return <p className="notice">This screen shows when the UI is served by a router.</p>;
  const shards = router?.shards ?? [];
  const names = stats.data?.collections.map((c) => c.name) ?? [];
  return (
    <>
      <h1>Cluster</h1>
      <p className="notice">
        Router {health.node} fronts {health.shards} shards.
      </p>
      <ErrorBox error={stats.error} />
      <div className="scroll-x">
        <table className="plain" aria-label="shards">
          <thead>
            <tr>
              <th>Shard</th>
              <th>Health</th>
              <th>File size</th>
              {names.map((n) => (
                <th key={n}>{n}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shards.map((shard) => (
              <tr key={shard.name}>
                <td>{shard.name}</td>
                <td>
                  <span className={`badge ${stats.error ? 'warn' : 'ok'}`}>
                    {stats.error ? 'unknown' : 'up'}
                  </span>
                </td>
                <td>{formatBytes(shard.stats.fileSizeBytes)}</td>
                {names.map((n) => (
                  <td key={n}>
                    {(
                      shard.stats.collections.find((c) => c.name === n)?.count ?? 0
                    ).toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
            <tr>
              <td>
                <strong>total</strong>
              </td>
              <td />
              <td />
              {stats.data?.collections.map((c) => (
                <td key={c.name}>
                  <strong>{c.count.toLocaleString()}</strong>
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
    </>
  );
}

/**
 * Cluster (served by `docdb router`): each shard with its health, its nodes and its counts per
 * collection, from the router's /stats, refreshed every five seconds. A replica-set shard
 * lists its members with their role badges (leader, follower, read-only, down), term, seq and
 * lag, and is marked while no member leads or a member is down. A shard without a leader fails
 * the router's /stats with a 503 naming it, which shows here as the router said, over the
 * last answer.
 */

'use client';

import { useEffect } from 'react';
import { ErrorBox, formatBytes } from '@/components/bits';
import { useSession } from '@/components/session';
import type { RouterShardStats } from 'docdb/client';
import { memberBadge, shardBadge, shardProblems } from '@/lib/cluster';
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
              <th>Nodes</th>
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
                  <ShardBadge shard={shard} failed={stats.error !== null} />
                </td>
                <td>{nodesText(shard)}</td>
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
      {shards.some((s) => s.members !== null) && <h2>Replica sets</h2>}
      {shards.map(
        (shard) =>
          shard.members !== null && (
            <Members key={shard.name} shard={shard} failed={stats.error !== null} />
          ),
      )}
    </>
  );
}

function ShardBadge({ shard, failed }: { shard: RouterShardStats; failed: boolean }) {
  const badge = shardBadge(shard, failed);
  return (
    <span className={`badge ${badge.tone}`} title={shardProblems(shard).join('; ') || undefined}>
      {badge.label}
    </span>
  );
}

/** A one-endpoint shard's endpoint, or how many members a replica set has and which leads. */
function nodesText(shard: RouterShardStats): string {
  if (shard.members === null) return shard.endpoint ?? '';
  const count = `${shard.members.length} member${shard.members.length === 1 ? '' : 's'}`;
  return `replica set, ${count}, ${shard.leader === null ? 'no leader' : `leader ${shard.leader}`}`;
}

/** A replica set's members: role badge, term, seq, lag behind the leader, and why one is down. */
function Members({ shard, failed }: { shard: RouterShardStats; failed: boolean }) {
  const problems = shardProblems(shard);
  return (
    <section aria-label={`shard ${shard.name}`}>
      <h3>
        {shard.name} <ShardBadge shard={shard} failed={failed} />
      </h3>
      {problems.length > 0 && <p className="notice">{problems.join('; ')}.</p>}
      <div className="scroll-x">
        <table className="plain" aria-label={`members of ${shard.name}`}>
          <thead>
            <tr>
              <th>Member</th>
              <th>Role</th>
              <th>Term</th>
              <th>Seq</th>
              <th>Lag</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {(shard.members ?? []).map((m) => {
              const badge = memberBadge(m, shard.leader);
              return (
                <tr key={m.endpoint}>
                  <td>{m.endpoint}</td>
                  <td>
                    <span className={`badge ${badge.tone}`}>{badge.label}</span>
                  </td>
                  <td>{m.term ?? '–'}</td>
                  <td>{m.seq?.toLocaleString() ?? '–'}</td>
                  <td>{m.lag?.toLocaleString() ?? '–'}</td>
                  <td>{m.error ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * Overview: the node's name, version, role, read-only flag and uptime, its file and pages,
 * each collection's count, and a live chart of requests/s, latency and writes/s from
 * /metrics (refreshing every two seconds, pausable). A router shows its health and totals.
 */

'use client';

import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import { ErrorBox, formatBytes, formatDuration } from '@/components/bits';
import { useSession } from '@/components/session';
import { client, nodeStats, stats as readStats } from '@/lib/api';
import { type Rates, ratesBetween, readTotals, type Totals } from '@/lib/metrics';
import { useLoad } from '@/lib/use-load';

const REFRESH_MS = 2000;
/** Readings the chart keeps: two minutes at one every two seconds. */
const SAMPLES_MAX = 60;

export default function OverviewPage() {
  const { health, isRouter } = useSession();
  const live = useLoad(() => client().health());
  const stats = useLoad(() => readStats());
  const node = nodeStats(stats.data);
  const h = live.data ?? health;
  return (
    <>
      <h1>Overview</h1>
      <div className="cards">
        <Card label="Node" value={h.node} />
        <Card label="Version" value={h.version} />
        <Card label="Role" value={h.role} />
        <Card label="Read-only" value={h.readOnly ? 'yes' : 'no'} />
        <Card label="Uptime" value={formatDuration(h.uptimeSeconds)} />
        {isRouter ? (
          <Card label="Shards" value={String(h.shards ?? '–')} />
        ) : (
          <>
            <Card label="File size" value={formatBytes(node?.fileSizeBytes)} />
            <Card
              label="Pages used / total"
              value={node ? `${node.pages.used} / ${node.pages.total}` : '–'}
            />
            <Card label="Last seq" value={String(node?.changeLog.lastSeq ?? '–')} />
          </>
        )}
      </div>
      <ErrorBox error={stats.error} />
      <h2>Collections</h2>
      <table className="plain">
        <thead>
          <tr>
            <th>Name</th>
            <th>Documents</th>
            <th>Indexes</th>
          </tr>
        </thead>
        <tbody>
          {stats.data?.collections.map((c) => (
            <tr key={c.name}>
              <td>
                <Link href={`/documents/?c=${encodeURIComponent(c.name)}`}>{c.name}</Link>
              </td>
              <td>{c.count.toLocaleString()}</td>
              <td>{'indexes' in c ? c.indexes.length : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!isRouter && <LiveChart />}
    </>
  );
}

function Card({ label, value }: { label: string; value: string }) {
  return (
    <div className="card">
      <div className="label">{label}</div>
      <div className="value">{value}</div>
    </div>
  );
}

function LiveChart() {
  const [paused, setPaused] = useState(false);
  const [rates, setRates] = useState<Rates[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const last = useRef<Totals | null>(null);
  useEffect(() => {
    if (paused) {
      // A pause would otherwise show as a dip: the next rate starts from a fresh reading.
      last.current = null;
      return;
    }
    let stopped = false;
    const read = async () => {
      try {
        const totals = readTotals(await client().metrics(), Date.now());
        if (stopped) return;
        if (last.current) {
          const next = ratesBetween(last.current, totals);
          setRates((all) => [...all, next].slice(-SAMPLES_MAX));
        }
        last.current = totals;
        setError(null);
      } catch (caught) {
        setError(caught as Error);
      }
    };
    read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [paused]);
  const now = rates.at(-1);
  return (
    <section aria-label="live metrics">
      <div className="row">
        <h2 style={{ margin: 0 }}>Live</h2>
        <button type="button" onClick={() => setPaused(!paused)} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <span className="notice">from /metrics every {REFRESH_MS / 1000} s</span>
      </div>
      <ErrorBox error={error} />
      <div className="charts">
        <Series
          title="Requests/s"
          values={rates.map((r) => r.requestsPerSecond)}
          now={now?.requestsPerSecond}
        />
        <Series
          title="Mean latency (ms)"
          values={rates.map((r) => r.latencyMs)}
          now={now?.latencyMs}
        />
        <Series
          title="Writes/s"
          values={rates.map((r) => r.writesPerSecond)}
          now={now?.writesPerSecond}
        />
      </div>
    </section>
  );
}

function Series({
  title,
  values,
  now,
}: {
  title: string;
  values: number[];
  now: number | undefined;
}) {
  const max = Math.max(1, ...values);
  const points = values
    // The newest reading at the right edge; older ones run off to the left.
    .map(
      (v, i) =>
        `${100 - ((values.length - 1 - i) / (SAMPLES_MAX - 1)) * 100},${38 - (v / max) * 36}`,
    )
    .join(' ');
  return (
    <div className="card">
      <div className="label">
        {title}: <strong>{now === undefined ? '–' : now.toFixed(now < 10 ? 2 : 0)}</strong> (max{' '}
        {max.toFixed(max < 10 ? 2 : 0)})
      </div>
      <svg
        className="chart"
        viewBox="0 0 100 40"
        preserveAspectRatio="none"
        role="img"
        aria-label={title}
      >
        <polyline points={points} vectorEffect="non-scaling-stroke" />
      </svg>
    </div>
  );
}

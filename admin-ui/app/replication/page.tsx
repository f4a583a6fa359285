/**
 * Replication: GET /replication/status refreshed every two seconds (role, term, seqs, the
 * followers with their lag, the link to the leader, auto-failover), and the state table's
 * actions: read-only, read-write, promote, auto-failover on and off. Each asks first; the
 * node refuses one that does not fit its role (409), and the refusal shows as it said it.
 */

'use client';

import { useEffect, useState } from 'react';
import { ErrorBox } from '@/components/bits';
import { useConfirm } from '@/components/confirm';
import type { ReplicationStatus } from 'docdb/client';
import { client } from '@/lib/api';
import { useLoad } from '@/lib/use-load';

const REFRESH_MS = 2000;

export default function ReplicationPage() {
  const status = useLoad(() => client().replicationStatus());
  const { reload } = status;
  const [dialog, ask] = useConfirm();
  const [error, setError] = useState<Error | null>(null);
  const [message, setMessage] = useState('');
  const [promotePort, setPromotePort] = useState('');
  const [silence, setSilence] = useState('10');
  const [newLeaderPort, setNewLeaderPort] = useState('');

  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);

  const act = async (title: string, body: string, action: string, run: () => Promise<unknown>) => {
    const ok = await ask({ title, body: <p>{body}</p>, action });
    if (!ok) return;
    setError(null);
    setMessage('');
    try {
      await run();
      setMessage(`${title.replace(/\?$/, '')}: done.`);
      await reload();
    } catch (caught) {
      setError(caught as Error);
    }
  };

  const s = status.data;
  return (
    <>
      <h1>Replication</h1>
      {dialog}
      <ErrorBox error={status.error ?? error} />
      {message && (
        <p role="status" className="ok">
          {message}
        </p>
      )}
      {s && <StatusView s={s} />}
      <h2>Actions</h2>
      <div className="row">
        <button
          type="button"
          onClick={() =>
            act(
              'Make this node read-only?',
              'It refuses writes from now on (a planned handover starts here).',
              'read-only',
              () => client().readOnly(),
            )
          }
        >
          Read-only
        </button>
        <button
          type="button"
          onClick={() =>
            act('Take writes again?', 'The node accepts writes again.', 'read-write', () =>
              client().readWrite(),
            )
          }
        >
          Read-write
        </button>
      </div>
      <div className="row">
        <label>
          Promote, listening on port
          <input
            value={promotePort}
            onChange={(e) => setPromotePort(e.target.value)}
            inputMode="numeric"
            size={7}
          />
        </label>
        <button
          type="button"
          disabled={!promotePort}
          onClick={() =>
            act(
              'Promote this follower?',
              `It becomes the leader of the next term, listening for followers on ${promotePort}.`,
              'promote',
              () => client().promote({ port: Number(promotePort) }),
            )
          }
        >
          Promote
        </button>
      </div>
      <div className="row">
        <label>
          Auto-failover after silence (s)
          <input
            value={silence}
            onChange={(e) => setSilence(e.target.value)}
            inputMode="numeric"
            size={5}
          />
        </label>
        <label>
          New leader port
          <input
            value={newLeaderPort}
            onChange={(e) => setNewLeaderPort(e.target.value)}
            inputMode="numeric"
            size={7}
          />
        </label>
        <button
          type="button"
          disabled={!silence || !newLeaderPort}
          onClick={() =>
            act(
              'Enable auto-failover?',
              `This follower promotes itself once its leader has been silent ${silence} s.`,
              'auto-failover/enable',
              () =>
                client().enableAutoFailover({
                  silenceSeconds: Number(silence),
                  newLeaderPort: Number(newLeaderPort),
                }),
            )
          }
        >
          Enable auto-failover
        </button>
        <button
          type="button"
          onClick={() =>
            act(
              'Disable auto-failover?',
              'The follower stops watching its leader.',
              'auto-failover/disable',
              () => client().disableAutoFailover(),
            )
          }
        >
          Disable auto-failover
        </button>
      </div>
    </>
  );
}

function StatusView({ s }: { s: ReplicationStatus }) {
  return (
    <>
      <section className="cards" aria-label="replication status">
        <Card label="Role" value={s.role} />
        <Card label="Read-only" value={s.readOnly ? 'yes' : 'no'} />
        <Card label="Term" value={String(s.term)} />
        <Card label="Last seq" value={String(s.lastSeq)} />
        <Card label="Seq floor" value={String(s.seqFloor)} />
        <Card label="Replication port" value={String(s.replicationPort ?? '–')} />
        <Card label="Sync followers" value={String(s.syncFollowers)} />
        <Card
          label="Auto-failover"
          value={`${s.autoFailover.state}${s.autoFailover.silenceSeconds ? ` (${s.autoFailover.silenceSeconds} s)` : ''}`}
        />
      </section>
      {s.fenced && (
        <p className="warn">
          Fenced: saw term {s.fenced.term} from {s.fenced.by} at {s.fenced.at}; read-only until
          handled.
        </p>
      )}
      {s.role === 'leader' && (
        <>
          <h2>Followers ({s.followerCount})</h2>
          <div className="scroll-x">
            <table className="plain" aria-label="followers">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Address</th>
                  <th>State</th>
                  <th>Acknowledged seq</th>
                  <th>Lag (entries)</th>
                  <th>Lag (s)</th>
                </tr>
              </thead>
              <tbody>
                {s.followers.map((f) => (
                  <tr key={`${f.name}-${f.address}`}>
                    <td>{f.name}</td>
                    <td className="mono">{f.address}</td>
                    <td>{f.state}</td>
                    <td>{f.acknowledgedSeq}</td>
                    <td>{f.lagEntries}</td>
                    <td>{f.lagSeconds.toFixed(1)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {s.leader && (
        <>
          <h2>Leader</h2>
          <p>
            {s.leader.leaderName ?? s.leader.leader} at <code>{s.leader.leader}</code>:{' '}
            {s.leader.state}
            {s.leader.connected ? '' : ' (not connected)'}, applied seq {s.leader.appliedSeq}, lag{' '}
            {s.leader.lagEntries ?? '–'} entries
            {s.leader.lastError && (
              <span className="warn"> · last error: {s.leader.lastError}</span>
            )}
          </p>
        </>
      )}
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

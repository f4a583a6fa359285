/**
 * `docdb health <cluster-config>`: asks every shard of a cluster.json for its health and its
 * document counts, and prints a table per shard and one of documents per collection, whose
 * total counts a replicated collection once (or JSON with --json), and a table of a replica
 * set's members (role, term, seq, lag). Read-only. Exits 1 when any shard is down or
 * unreachable, has no leader, or has a member down, so scripts and monitors can act on the
 * exit code alone.
 */

import { type ClusterHealth, checkClusterHealth, readClusterConfig } from '../cluster/index.js';
import { bold, EXIT_FAILURE, printJson } from './output.js';
import { renderTable } from './table.js';

function render(file: string, health: ClusterHealth): string {
  const shards = health.shards.map((s) => ({
    shard: s.shard,
    endpoint: s.endpoint,
    status: s.status,
    ms: s.responseMs,
    node: s.node ?? '-',
    version: s.version ?? '-',
    role: s.role === null ? '-' : `${s.role}${s.readOnly ? ' (read-only)' : ''}`,
  }));
  // A replicated collection's total is one copy's count, not the sum of the copies.
  const documents = health.collections.map(({ name, count, complete }) => {
    const row: Record<string, unknown> = { collection: name };
    for (const s of health.shards)
      row[s.shard] =
        s.documents === null ? '?' : Object.hasOwn(s.documents, name) ? s.documents[name] : 0;
    row.total = complete ? count : `${count}+?`;
    return row;
  });
  const lines = [
    `${bold('cluster')} ${file}: ${health.up} of ${health.shards.length} shards up`,
    '',
    renderTable(shards),
  ];
  const members = health.shards.flatMap((s) =>
    (s.members ?? []).map((m) => ({
      shard: s.shard,
      member: m.endpoint,
      status: m.status,
      role: m.role === null ? '-' : `${m.role}${m.readOnly ? ' (read-only)' : ''}`,
      term: m.term ?? '-',
      seq: m.seq ?? '-',
      lag: m.lag ?? '-',
    })),
  );
  if (members.length > 0) lines.push('', bold('replica-set members'), renderTable(members));
  if (documents.length > 0) lines.push('', bold('documents'), renderTable(documents));
  for (const s of health.shards)
    if (s.error) lines.push('', `${s.shard} is ${s.status}: ${s.error}`);
  return lines.join('\n');
}

/** Runs `docdb health` (declared in commands.ts). */
export async function runHealth(
  file: string,
  options: { json?: boolean; timeoutMs?: number },
): Promise<void> {
  const config = await readClusterConfig(file);
  const health = await checkClusterHealth(config, { timeoutMs: options.timeoutMs });
  if (options.json) printJson(health);
  else process.stdout.write(`${render(file, health)}\n`);
  if (health.down > 0 || health.degraded > 0) process.exitCode = EXIT_FAILURE;
}

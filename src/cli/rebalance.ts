/**
 * `docdb rebalance <old-config> <new-config> [--plan-only]`: plans, or carries out, the move
 * of documents from the placement of one cluster.json to another's (shards added or
 * removed). `--plan-only` prints per collection what moves from which shard to which, and
 * moves nothing. Execution copies, verifies, then deletes, pass after pass, with a progress
 * bar; a re-run after a kill finishes the job (src/cluster/rebalance.ts).
 */

import {
  executeRebalance,
  planRebalance,
  type RebalancePlan,
  readClusterConfig,
} from '../cluster/index.js';
import { bold, printJson } from './output.js';
import { progressBar } from './progress.js';
import { renderTable } from './table.js';

function renderPlan(plan: RebalancePlan): string {
  const rows = plan.collections.flatMap((c) =>
    c.moves.length === 0
      ? [{ collection: c.name, strategy: c.strategy, from: '-', to: '-', documents: 0 }]
      : c.moves.map((m) => ({
          collection: c.name,
          strategy: c.strategy,
          from: m.from,
          to: m.to,
          documents: m.documents,
        })),
  );
  const totals = plan.collections.map((c) => `${c.name} ${c.total}`).join(', ');
  return [
    rows.length === 0 ? '(no collections in the new config)' : renderTable(rows),
    '',
    `${bold('total')} ${plan.total} documents to move${totals ? ` (${totals})` : ''}`,
  ].join('\n');
}

/** Runs `docdb rebalance` (declared in commands.ts). */
export async function runRebalance(
  oldFile: string,
  newFile: string,
  options: { planOnly?: boolean; json?: boolean },
): Promise<void> {
  const [from, to] = await Promise.all([readClusterConfig(oldFile), readClusterConfig(newFile)]);
  if (options.planOnly) {
    const plan = await planRebalance(from, to);
    if (options.json) printJson(plan);
    else
      process.stdout.write(
        `${bold('rebalance plan')} ${oldFile} → ${newFile}\n\n${renderPlan(plan)}\n`,
      );
    return;
  }
  const bar = progressBar(
    'moving [{bar}] {value}/{total} documents {eta_formatted} left',
    options.json,
  );
  const startedMs = performance.now();
  try {
    const result = await executeRebalance(from, to, (done, total) => bar.update(done, total), {
      journal: `${newFile}.rebalance-journal`,
    });
    bar.stop();
    const seconds = (performance.now() - startedMs) / 1000;
    if (options.json) {
      printJson({ ...result, seconds });
    } else {
      const resumed =
        result.resumed > 0 ? `, ${result.resumed} found already copied by an earlier run` : '';
      const undone =
        result.undone > 0
          ? `\n${result.undone} copies removed: their documents were deleted on the old shard while the earlier run was stopped`
          : '';
      const remaining =
        result.remaining > 0
          ? `\n${result.remaining} documents written meanwhile still wait on shards that no longer own them; switch the routers to the new config, then run rebalance again`
          : '';
      const uncertain = result.uncertain.map(
        (u) =>
          `\nkept ${u.collection} ${u.id} on ${u.shard}: the stopped run's delete of it from the old shard was never answered; delete it if your application had deleted it`,
      );
      process.stdout.write(
        `${renderPlan(result.plan)}\n\nmoved ${result.moved} documents in ${result.passes} pass(es)${resumed}, ${seconds.toFixed(2)} s${remaining}${undone}${uncertain.join('')}\n`,
      );
    }
  } finally {
    bar.stop();
  }
}

/**
 * A query plan drawn plainly: where a router ran it (one shard, or a scatter it merged), the
 * access path (an index scan, or a collection scan that reads every document), then each
 * join, aggregate and DISTINCT, with a hint when a WHERE path has no index to serve it.
 */

'use client';

import { parsePlan, routeText, wherePaths } from '@/lib/plan';

export function PlanView({ plan, sql }: { plan: string; sql?: string }) {
  const parsed = parsePlan(plan);
  // A plan may name the same step twice (two joins of one collection): number them.
  const steps = parsed.steps.map((step, at) => ({ id: `${at}:${step.raw}`, ...step }));
  const paths = parsed.scans && sql ? wherePaths(sql) : [];
  return (
    <section aria-label="plan">
      <div className="plan">
        {parsed.route && (
          <span className="row" style={{ margin: 0 }}>
            <span className="step route" title={plan.slice(0, plan.indexOf(':'))}>
              {routeText(parsed.route)}
            </span>
            <span className="arrow">:</span>
          </span>
        )}
        {steps.map((step, i) => (
          <span key={step.id} className="row" style={{ margin: 0 }}>
            {i > 0 && <span className="arrow">→</span>}
            <span className={`step ${step.kind}`} title={step.raw}>
              {step.text}
            </span>
          </span>
        ))}
      </div>
      {paths.length > 0 && (
        <p className="warn" role="note">
          Hint: no index serves <code>{paths.join(', ')}</code> in WHERE, so every document is read
          {parsed.route?.kind === 'scatter' ? ' on every shard' : ''}. An index on{' '}
          {paths.length > 1 ? 'one of them' : 'it'} (Indexes screen) lets the planner look the
          values up.
        </p>
      )}
    </section>
  );
}

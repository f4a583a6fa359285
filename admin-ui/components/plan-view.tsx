/**
 * A query plan drawn plainly: the access path (an index scan, or a collection scan that reads
 * every document), then each join, aggregate and DISTINCT, with a hint when a WHERE path has
 * no index to serve it.
 */

'use client';

import { wherePaths } from '@/lib/plan';

function describeStep(step: string): { text: string; kind: 'index' | 'scan' | 'other' } {
  if (step.startsWith('INDEX_')) return { text: `index scan · ${step}`, kind: 'index' };
  if (step === 'COLLECTION_SCAN') return { text: 'collection scan (every document)', kind: 'scan' };
  const join = /^HASH_JOIN\((.*)\)$/.exec(step);
  if (join) return { text: `join ${join[1]} (hash)`, kind: 'other' };
  if (step === 'AGGREGATE') return { text: 'aggregate / group', kind: 'other' };
  if (step === 'DISTINCT') return { text: 'distinct', kind: 'other' };
  return { text: step, kind: 'other' };
}

export function PlanView({ plan, sql }: { plan: string; sql?: string }) {
  // A plan may name the same step twice (two joins of one collection): number them.
  const steps = plan
    .split(' + ')
    .map((step, at) => ({ id: `${at}:${step}`, ...describeStep(step) }));
  const scanned = plan.startsWith('COLLECTION_SCAN');
  const paths = scanned && sql ? wherePaths(sql) : [];
  return (
    <section aria-label="plan">
      <div className="plan">
        {steps.map((step, i) => (
          <span key={step.id} className="row" style={{ margin: 0 }}>
            {i > 0 && <span className="arrow">→</span>}
            <span className={`step ${step.kind}`}>{step.text}</span>
          </span>
        ))}
      </div>
      {paths.length > 0 && (
        <p className="warn" role="note">
          Hint: no index serves <code>{paths.join(', ')}</code> in WHERE, so every document is read.
          An index on {paths.length > 1 ? 'one of them' : 'it'} (Indexes screen) lets the planner
          look the values up.
        </p>
      )}
    </section>
  );
}

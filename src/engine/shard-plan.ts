/**
 * A router's ShardPlan (ADR 0014) applied to the user's parsed SELECT: the one place where a
 * shard turns its part of a scattered query into an ordinary statement, a planner phase and
 * the executor's sort-key flag, so the planner and executor know nothing more of routers.
 * Pure: it reads neither storage nor the plan cache.
 */

import { dbError } from '../errors/index.js';
import { isAggregate, type SelectStatement, type Statement } from '../sql/index.js';
import type { ShardPlan } from '../types/index.js';

/** A SELECT as this node runs it: as written, or a shard's part of it for a router. */
export interface ShardSelect {
  statement: SelectStatement;
  phase: 'complete' | 'partial';
  /** Answer each row's sort key beside it (when the statement sorts). */
  sortKeys: boolean;
  /**
   * Tells the plans of one SQL text apart in the plan cache: `''` for the statement as
   * written, else the part the plan asks for (sort keys change no plan).
   */
  planKey: string;
}

/** A plan is a router's, for a SELECT only; a write refuses one, naming the statement. */
export function refuseShardPlan(statement: Statement, plan: ShardPlan | undefined): void {
  if (plan === undefined || statement.kind === 'select') return;
  throw dbError('ERR_BAD_ARGUMENT', 'shardPlanOnWrite', { kind: statement.kind.toUpperCase() });
}

/**
 * The statement a shard plans for `plan`: a partial aggregate without its ORDER BY,
 * DISTINCT, OFFSET and LIMIT (they apply to finished rows, after the router's merge); rows
 * without OFFSET and with LIMIT `top` (the router's OFFSET + LIMIT) when given, else none.
 * A plan that does not fit the statement is refused, saying why.
 */
export function shardSelect(statement: SelectStatement, plan: ShardPlan | undefined): ShardSelect {
  if (plan === undefined) return { statement, phase: 'complete', sortKeys: false, planKey: '' };
  switch (plan.kind) {
    case 'partial': {
      const extra = Object.keys(plan).filter((field) => field !== 'kind');
      if (extra.length > 0) {
        throw dbError('ERR_BAD_ARGUMENT', 'shardPlanRowsField', { extra: extra[0] });
      }
      if (!isAggregate(statement)) {
        throw dbError('ERR_BAD_ARGUMENT', 'shardPlanNotAggregate');
      }
      return {
        statement: {
          ...statement,
          orderBy: [],
          distinct: false,
          offset: undefined,
          limit: undefined,
        },
        phase: 'partial',
        sortKeys: false,
        planKey: 'partial',
      };
    }
    case 'rows': {
      const { top } = plan;
      if (top !== undefined && !(Number.isSafeInteger(top) && top >= 0)) {
        throw dbError('ERR_BAD_ARGUMENT', 'shardPlanTop', { top: JSON.stringify(top) });
      }
      return {
        statement: {
          ...statement,
          offset: undefined,
          limit: top === undefined ? undefined : { kind: 'literal', value: top },
        },
        phase: 'complete',
        sortKeys: plan.sortKeys === true,
        planKey: `rows:${top ?? ''}`,
      };
    }
    default: {
      const never: never = plan;
      throw dbError('ERR_BAD_ARGUMENT', 'shardPlanKind', {
        kind: JSON.stringify((never as { kind: unknown }).kind),
      });
    }
  }
}

/**
 * Statement targeting for the router (ADR 0014): which shards a SELECT goes to, the plan each
 * shard runs the user's own SQL text under (its first OFFSET + LIMIT rows on a scatter;
 * aggregates in the partial phase), and what the router must merge. Pure: it reads
 * cluster.json's placement and the AST, never a shard, and prints no SQL.
 */

import { dbError } from '../errors/index.js';
import type { Condition, Operand, SelectStatement, Value } from '../sql/ast/index.js';
import { isAggregate, PathResolver } from '../sql/planner/index.js';
import type { ShardPlan } from '../types/index.js';
import { type JsonPath, normalizeCollectionName, parsePath, samePath } from '../util/index.js';
import {
  type ClusterConfig,
  type ClusterShard,
  type CollectionPlacement,
  placementOf,
} from './config.js';
import { shardFor } from './hash.js';

/** What the router does with the shards' answers of a scattered SELECT. */
export type MergeSpec =
  | {
      kind: 'rows';
      /** ORDER BY's descending flags: the parts are k-way merged by their sort keys. */
      orderBy: boolean[] | undefined;
      distinct: boolean;
      offset: number;
      limit: number;
    }
  | {
      kind: 'aggregate';
      /** Output names of the GROUP BY values, in GROUP BY order (alias or path text). */
      groupNames: string[];
      /** The aggregate items in select-list order. */
      aggregates: Array<{ fn: AggregateFnName; star: boolean; name: string }>;
      /** ORDER BY over the finished rows, by output name. */
      orderBy: Array<{ name: string; descending: boolean }>;
      distinct: boolean;
      offset: number;
      limit: number;
    };

type AggregateFnName = 'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX';

/**
 * A SELECT as the router runs it: the shards, the plan of each one's part and the merge of
 * the parts. Every shard gets the user's own SQL text and params.
 */
export type SelectRoute =
  | {
      /** One shard answers the statement as is. */
      kind: 'single';
      shards: ClusterShard[];
      /** A replicated read: any one healthy shard will do (the router tries them in order). */
      anyOf: boolean;
    }
  | {
      /** Every listed shard answers its part under `plan`; the router merges the parts. */
      kind: 'scatter';
      shards: ClusterShard[];
      plan: ShardPlan;
      merge: MergeSpec;
    };

/** The placement of a collection; unknown ones are a 400 naming the command that adds them. */
export function requirePlacement(config: ClusterConfig, collection: string): CollectionPlacement {
  const name = normalizeCollectionName(collection);
  const placement = placementOf(config, name);
  if (!placement) {
    throw dbError('ERR_CLUSTER_COLLECTION_UNKNOWN', 'notPlaced', { name }, { collection: name });
  }
  return placement;
}

/** The value a `?` or literal stands for. */
function boundValue(value: Value, params: readonly unknown[]): unknown {
  return value.kind === 'literal' ? value.value : params[value.index];
}

/** Parsed shard-key paths of the placements seen (a reload brings new placement objects). */
const keyPaths = new WeakMap<CollectionPlacement & { strategy: 'hash' }, JsonPath>();

/** A hash placement's shard-key path, parsed once per placement rather than per statement. */
export function keyPathOf(placement: CollectionPlacement & { strategy: 'hash' }): JsonPath {
  let key = keyPaths.get(placement);
  if (key === undefined) {
    key = parsePath(placement.path);
    keyPaths.set(placement, key);
  }
  return key;
}

/**
 * The shard-key values a WHERE pins the FROM collection to: an equality on the key, an IN
 * (an OR of equalities), or either inside an AND. Undefined when rows with any key may match.
 */
function keyValues(
  where: Condition | undefined,
  isKey: (operand: Operand) => boolean,
  params: readonly unknown[],
): unknown[] | undefined {
  if (!where) return undefined;
  switch (where.kind) {
    case 'compare': {
      if (where.op !== '=') return undefined;
      const { left, right } = where;
      if (isKey(left) && right.kind !== 'path') return [boundValue(right, params)];
      if (isKey(right) && left.kind !== 'path') return [boundValue(left, params)];
      return undefined;
    }
    case 'and':
      for (const c of where.conditions) {
        const values = keyValues(c, isKey, params);
        if (values) return values;
      }
      return undefined;
    case 'or': {
      const all: unknown[] = [];
      for (const c of where.conditions) {
        const values = keyValues(c, isKey, params);
        if (!values) return undefined;
        for (const value of values) all.push(value);
      }
      return all;
    }
    default:
      return undefined;
  }
}

/**
 * The owners of the shard-key values `where` pins a hash collection to, or undefined when
 * the statement needs every shard. A value no shard can own (an array, an object) scatters.
 */
export function ownersOf(
  config: ClusterConfig,
  placement: CollectionPlacement,
  where: Condition | undefined,
  params: readonly unknown[],
  resolver: PathResolver,
): ClusterShard[] | undefined {
  if (placement.strategy !== 'hash') return undefined;
  const key = keyPathOf(placement);
  const isKey = (operand: Operand) => {
    if (operand.kind !== 'path') return false;
    const resolved = resolver.resolve(operand);
    return resolved.source === 0 && samePath(resolved.path, key);
  };
  const values = keyValues(where, isKey, params);
  if (!values) return undefined;
  const owners = new Map<string, ClusterShard>();
  for (const value of values) {
    if (value !== null && typeof value === 'object') return undefined;
    const owner = shardFor(value, config.shards);
    owners.set(owner.name, owner);
  }
  return config.shards.filter((s) => owners.has(s.name));
}

/** Refuses a JOIN whose rows may meet only across shards (issue 11), saying why. */
function checkJoins(config: ClusterConfig, statement: SelectStatement, resolver: PathResolver) {
  const from = requirePlacement(config, statement.from);
  statement.joins.forEach((join, j) => {
    const right = requirePlacement(config, join.collection);
    if (right.strategy === 'replicated') return;
    const a = resolver.resolve(join.left);
    const b = resolver.resolve(join.right);
    const [mine, theirs] = a.source === j + 1 ? [a, b] : [b, a];
    const onKeys =
      from.strategy === 'hash' &&
      theirs.source === 0 &&
      samePath(theirs.path, keyPathOf(from)) &&
      samePath(mine.path, keyPathOf(right));
    if (onKeys) return;
    const name = normalizeCollectionName(join.collection);
    const fromName = normalizeCollectionName(statement.from);
    throw from.strategy === 'replicated'
      ? dbError(
          'ERR_CLUSTER_JOIN_UNROUTABLE',
          'fromReplicated',
          { name, from: fromName },
          { collection: name },
        )
      : dbError(
          'ERR_CLUSTER_JOIN_UNROUTABLE',
          'notOnKeys',
          { name, from: fromName, fromPath: from.path, rightPath: right.path },
          { collection: name },
        );
  });
}

/** LIMIT or OFFSET as a number, or undefined when it is not a non-negative integer. */
function countOf(value: Value | undefined, params: readonly unknown[], absent: number) {
  if (value === undefined) return absent;
  const n = boundValue(value, params);
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The merge of an aggregate's partial groups, with the names the node gives its output. */
function aggregateMerge(statement: SelectStatement, offset: number, limit: number): MergeSpec {
  const items = statement.items === '*' ? [] : statement.items;
  const aliasOf = new Map(
    items.flatMap((i) => (i.kind === 'column' ? [[i.path.text, i.name] as const] : [])),
  );
  return {
    kind: 'aggregate',
    groupNames: statement.groupBy.map((g) => aliasOf.get(g.text) ?? g.text),
    aggregates: items.flatMap((i) =>
      i.kind === 'aggregate' ? [{ fn: i.fn, star: i.arg === '*', name: i.name }] : [],
    ),
    orderBy: statement.orderBy.map((o) => ({
      name: aliasOf.get(o.path.text) ?? o.path.text,
      descending: o.descending,
    })),
    distinct: statement.distinct,
    offset,
    limit,
  };
}

/** Plans a SELECT over the cluster: its shards, their parts and the merge. */
export function routeSelect(
  config: ClusterConfig,
  statement: SelectStatement,
  params: readonly unknown[],
): SelectRoute {
  const placement = requirePlacement(config, statement.from);
  const resolver = new PathResolver([
    normalizeCollectionName(statement.from),
    ...statement.joins.map((j) => normalizeCollectionName(j.collection)),
  ]);
  checkJoins(config, statement, resolver);
  if (placement.strategy === 'replicated') {
    return { kind: 'single', shards: config.shards, anyOf: true };
  }
  const owners = ownersOf(config, placement, statement.where, params, resolver);
  const shards = owners ?? config.shards;
  if (shards.length === 1) return { kind: 'single', shards, anyOf: false };
  const offset = countOf(statement.offset, params, 0);
  const limit = countOf(statement.limit, params, Number.POSITIVE_INFINITY);
  if (offset === undefined || limit === undefined) {
    // Let the shards refuse a bad LIMIT or OFFSET with the node's own message.
    return { kind: 'single', shards: shards.slice(0, 1), anyOf: false };
  }
  if (isAggregate(statement)) {
    return {
      kind: 'scatter',
      shards,
      plan: { kind: 'partial' },
      merge: aggregateMerge(statement, offset, limit),
    };
  }
  const sorted = statement.orderBy.length > 0;
  // Each shard answers at most the rows the window could take from it: the first
  // OFFSET + LIMIT in the statement's order (DISTINCT stays, so shards shrink their parts).
  const top = Number.isFinite(limit)
    ? Math.min(offset + limit, Number.MAX_SAFE_INTEGER)
    : undefined;
  return {
    kind: 'scatter',
    shards,
    plan: { kind: 'rows', ...(top !== undefined && { top }), ...(sorted && { sortKeys: true }) },
    merge: {
      kind: 'rows',
      orderBy: sorted ? statement.orderBy.map((o) => o.descending) : undefined,
      distinct: statement.distinct,
      offset,
      limit,
    },
  };
}

/** The plan header of a routed statement: `SINGLE_SHARD(s1): …` or `SCATTER(n): …`. */
export function routedPlan(
  route: { kind: 'single' | 'scatter'; count: number; shard: string },
  plan: string,
) {
  return route.kind === 'single'
    ? `SINGLE_SHARD(${route.shard}): ${plan}`
    : `SCATTER(${route.count}): ${plan}`;
}

/** The plan-header route of a set of shards. */
export function routeOf(shards: readonly ClusterShard[]) {
  return {
    kind: shards.length === 1 ? ('single' as const) : ('scatter' as const),
    count: shards.length,
    shard: (shards[0] as ClusterShard).name,
  };
}

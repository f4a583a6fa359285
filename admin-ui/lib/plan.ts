/**
 * What the plan view needs: a plan string read into its parts, and the paths a statement's
 * WHERE compares. Pure. A plan string is the node's (`ACCESS + HASH_JOIN(c) + AGGREGATE +
 * DISTINCT`, `INSERT`, `CREATE INDEX`, `DROP INDEX`; src/sql/planner/plan.ts), or a router's,
 * which puts where it ran first: `SINGLE_SHARD(s1): <the shard's plan>` or `SCATTER(n): <the
 * first shard's plan>` (src/cluster/route-plan.ts).
 */

/** Where a router ran a statement: on one shard, or on `shards` it merged the answers of. */
export type PlanRoute = { kind: 'single'; shard: string } | { kind: 'scatter'; shards: number };

/** One step of a plan, as the view draws it. */
export interface PlanStep {
  kind: 'index' | 'scan' | 'join' | 'aggregate' | 'distinct' | 'write' | 'other';
  /** What the step does, in words. */
  text: string;
  /** The step as the plan string wrote it. */
  raw: string;
}

/** A plan string read: its route (a router's only), its steps, and whether it reads everything. */
export interface ParsedPlan {
  route: PlanRoute | undefined;
  steps: PlanStep[];
  /** The access path is a collection scan: every document is read (on every shard it ran on). */
  scans: boolean;
}

const ROUTE = /^(?:SINGLE_SHARD\(([^)]*)\)|SCATTER\((\d+)\)):\s*/;

/** Reads a plan string of a node or a router; a step it does not know stays as written. */
export function parsePlan(plan: string): ParsedPlan {
  const routed = ROUTE.exec(plan);
  let route: PlanRoute | undefined;
  if (routed?.[1] !== undefined) route = { kind: 'single', shard: routed[1] };
  else if (routed?.[2] !== undefined) route = { kind: 'scatter', shards: Number(routed[2]) };
  const rest = routed ? plan.slice(routed[0].length) : plan;
  const steps = rest.split(' + ').map(describeStep);
  return { route, steps, scans: steps[0]?.kind === 'scan' };
}

const INDEX_STEPS: Record<string, string> = {
  INDEX_SCAN: 'index scan',
  INDEX_RANGE_SCAN: 'index range scan',
  INDEX_SCAN_COMPOSITE: 'composite index scan',
  INDEX_SCAN_MULTI: 'index scan',
};

function describeStep(raw: string): PlanStep {
  const call = /^([A-Z_]+)\((.*)\)$/.exec(raw);
  const [name, args] = call ? [call[1] as string, call[2] as string] : [raw, ''];
  const index = INDEX_STEPS[name];
  // INDEX_SCAN_MULTI(name, 3 keys): one lookup per key.
  if (index && call) return { kind: 'index', text: `${index} · ${args}`, raw };
  if (raw === 'COLLECTION_SCAN') {
    return { kind: 'scan', text: 'collection scan (every document)', raw };
  }
  if (name === 'HASH_JOIN' && call) return { kind: 'join', text: `join ${args} (hash)`, raw };
  if (raw === 'AGGREGATE') return { kind: 'aggregate', text: 'aggregate / group', raw };
  if (raw === 'DISTINCT') return { kind: 'distinct', text: 'distinct', raw };
  if (raw === 'INSERT' || raw === 'CREATE INDEX' || raw === 'DROP INDEX') {
    return { kind: 'write', text: raw.toLowerCase(), raw };
  }
  return { kind: 'other', text: raw, raw };
}

/** What the view says of a route. */
export function routeText(route: PlanRoute): string {
  return route.kind === 'single'
    ? `one shard: ${route.shard}`
    : `scatter to ${route.shards} shards, merged by the router`;
}

/** Paths compared in a statement's WHERE clause (`age > 30` → `age`), in order, once each. */
export function wherePaths(sql: string): string[] {
  const where = /\bWHERE\b([\s\S]*?)(\bGROUP\s+BY\b|\bORDER\s+BY\b|\bLIMIT\b|\bOFFSET\b|$)/i.exec(
    sql,
  );
  if (!where?.[1]) return [];
  // Quoted strings hold no paths; drop them before looking.
  const text = where[1].replace(/'(?:[^']|'')*'/g, "''");
  const paths = new Set<string>();
  const compare =
    /([A-Za-z_][\w]*(?:(?:\.[A-Za-z_]\w*)|\[\d+\])*)\s*(?:=|!=|<>|<=|>=|<|>|\bIN\b|\bLIKE\b|\bIS\b|\bBETWEEN\b)/gi;
  for (const match of text.matchAll(compare)) {
    const path = match[1] as string;
    if (!/^(AND|OR|NOT|NULL|TRUE|FALSE)$/i.test(path)) paths.add(path);
  }
  return [...paths];
}

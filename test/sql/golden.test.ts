/**
 * Proves the SQL dialect (spec §4, DESIGN §4) statement by statement: every golden case in
 * test/sql/golden/*.sql runs through `query` and must give exactly the plan string, rows,
 * affected count or error its file states. Each file runs against every implementation of
 * the REST surface (types/api.ts): the embedded database on a real LMDB file, a client over
 * HTTP to a node, and a router over three shards (every collection replicated, so answers keep
 * one node's order; a router's plan is compared without its `SINGLE_SHARD(s): ` prefix). One
 * vitest test per case; fresh storage per file and implementation; steps run in file order.
 *
 * File format (line based; blank lines are ignored):
 *
 *   --- any text                  a comment
 *   -- setup                      each following line is one SQL statement, run in order;
 *                                 any failure fails the step
 *   -- load: <coll> [skipIndexes] each following line is one JSON document; all are loaded by
 *                                 one `collection.insertMany` (atomic; with skipIndexes the
 *                                 collection's indexes become stale)
 *   -- rebuild-indexes: <coll>    rebuilds every index of the collection (marks them ready)
 *   -- drop-collection: <coll>    drops the collection with its indexes (the dialect has no
 *                                 statement for it)
 *   -- case: <name>               starts a case; its statement is every following line up to
 *                                 the first expectation, joined with newlines (so positions in
 *                                 errors can be on line 2 or 3)
 *   -- params: <JSON array>       parameters for the `?` placeholders
 *   -- unordered                  rows are compared as a multiset (order not part of the case)
 *   -- fails: <why>               a known bug: the case is expected to fail (`it.fails`); the
 *                                 reason names the bug
 *   -- plan: <text>               the exact plan string (required unless the case expects an
 *                                 error)
 *   -- rows: <JSON array>         the exact result documents; or `-- rows:` alone followed by
 *                                 one JSON document per line. The string "<uuid>" matches any
 *                                 canonical UUID (generated ids). count must equal rows.length
 *   -- count: <n>                 the result count
 *   -- affected: <n>              a write's affected count (count equals it, documents empty)
 *   -- ids: <JSON array>          the ids an INSERT reports; `-- ids: <n> new` checks n
 *                                 distinct, strictly increasing generated UUIDs instead
 *   -- error: <CODE> [text]       the statement fails with a DbError of that code whose
 *                                 message contains text; ERR_SQL_SYNTAX errors must also carry
 *                                 details.line/column and end with "at <line>:<column>"
 *
 * Any other `-- ` line is a format error, so a mistyped directive never passes silently.
 * Run with GOLDEN_SHOW_BUGS=1 to run the `-- fails:` cases as ordinary tests and see their diffs.
 * Cases depend on the steps before them: filter by file (`-t select-basics.sql`), not by case.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/client/index.js';
import { type ClusterConfig, Router } from '../../src/cluster/index.js';
import { isDbError, type NodeApi, open } from '../../src/index.js';
import { type Harness, startHarness } from '../support/app-harness.js';
import { makeTempDir } from '../support/temp-dir.js';

const GOLDEN_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ANY_UUID = '<uuid>';

type Step =
  | { kind: 'setup'; line: number; statements: Array<{ line: number; sql: string }> }
  | { kind: 'load'; line: number; collection: string; skipIndexes: boolean; docs: unknown[] }
  | { kind: 'rebuild'; line: number; collection: string }
  | { kind: 'drop'; line: number; collection: string }
  | { kind: 'case'; line: number; test: GoldenCase };

interface GoldenCase {
  name: string;
  sqlLines: string[];
  params: unknown[];
  unordered: boolean;
  fails: string | undefined;
  plan?: string;
  rows?: unknown[];
  count?: number;
  affected?: number;
  ids?: string[] | { generated: number };
  error?: { code: string; text: string };
}

class FormatError extends Error {}

function formatError(file: string, line: number, message: string): FormatError {
  return new FormatError(`${file}:${line}: ${message}`);
}

function parseJson(file: string, line: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw formatError(file, line, `bad JSON (${(error as Error).message}): ${text}`);
  }
}

/** Parses one golden file into its steps (see the format at the top of this file). */
function parseGolden(file: string, text: string): Step[] {
  const steps: Step[] = [];
  let current: Step | undefined;
  // Inside a case: 'statement' until the first expectation, then 'expect'; 'rows' after a
  // bare `-- rows:` collects one row per line.
  let phase: 'statement' | 'expect' | 'rows' = 'statement';
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    const content = raw.trimEnd();
    if (content.trim() === '' || content.startsWith('---')) return;
    if (content.startsWith('-- ')) {
      const directive = content.slice(3).trim();
      const colon = directive.indexOf(':');
      const word = colon < 0 ? directive : directive.slice(0, colon);
      const arg = colon < 0 ? '' : directive.slice(colon + 1).trim();
      if (word === 'setup') {
        current = { kind: 'setup', line, statements: [] };
        steps.push(current);
        return;
      }
      if (word === 'load') {
        const [collection, flag, extra] = arg.split(/\s+/);
        if (!collection || (flag && flag !== 'skipIndexes') || extra) {
          throw formatError(file, line, 'expected -- load: <collection> [skipIndexes]');
        }
        current = { kind: 'load', line, collection, skipIndexes: flag === 'skipIndexes', docs: [] };
        steps.push(current);
        return;
      }
      if (word === 'rebuild-indexes') {
        if (!arg) throw formatError(file, line, 'expected -- rebuild-indexes: <collection>');
        steps.push({ kind: 'rebuild', line, collection: arg });
        current = undefined;
        return;
      }
      if (word === 'drop-collection') {
        if (!arg) throw formatError(file, line, 'expected -- drop-collection: <collection>');
        steps.push({ kind: 'drop', line, collection: arg });
        current = undefined;
        return;
      }
      if (word === 'case') {
        if (!arg) throw formatError(file, line, 'a case needs a name');
        const test: GoldenCase = {
          name: arg,
          sqlLines: [],
          params: [],
          unordered: false,
          fails: undefined,
        };
        current = { kind: 'case', line, test };
        steps.push(current);
        phase = 'statement';
        return;
      }
      if (current?.kind !== 'case') {
        throw formatError(file, line, `'-- ${word}' outside a case`);
      }
      caseDirective(file, line, current.test, word, arg);
      if (word === 'params' || word === 'unordered' || word === 'fails') return;
      phase = word === 'rows' && arg === '' ? 'rows' : 'expect';
      return;
    }
    if (content.startsWith('--')) throw formatError(file, line, `unknown line: ${content}`);
    if (!current) throw formatError(file, line, 'text before the first block');
    switch (current.kind) {
      case 'setup':
        current.statements.push({ line, sql: content.trim() });
        return;
      case 'load':
        current.docs.push(parseJson(file, line, content));
        return;
      case 'rebuild':
      case 'drop':
        throw formatError(file, line, `text after -- ${current.kind}`);
      case 'case':
        if (phase === 'statement') current.test.sqlLines.push(content);
        else if (phase === 'rows') current.test.rows?.push(parseJson(file, line, content));
        else throw formatError(file, line, 'text after an expectation');
        return;
    }
  });
  for (const step of steps) {
    if (step.kind !== 'case') continue;
    const t = step.test;
    if (t.sqlLines.length === 0) throw formatError(file, step.line, 'a case needs a statement');
    if (t.error && (t.plan !== undefined || t.rows || t.affected !== undefined)) {
      throw formatError(file, step.line, 'an error case states nothing else');
    }
    if (!t.error && t.plan === undefined) {
      throw formatError(file, step.line, 'a case states its plan or an error');
    }
    if (t.unordered && JSON.stringify(t.rows ?? []).includes(ANY_UUID)) {
      throw formatError(file, step.line, '"<uuid>" needs ordered rows');
    }
  }
  return steps;
}

function caseDirective(file: string, line: number, test: GoldenCase, word: string, arg: string) {
  switch (word) {
    case 'params': {
      const params = parseJson(file, line, arg);
      if (!Array.isArray(params)) throw formatError(file, line, 'params must be a JSON array');
      test.params = params;
      return;
    }
    case 'unordered':
      test.unordered = true;
      return;
    case 'fails':
      if (!arg) throw formatError(file, line, '-- fails: needs the reason (the bug)');
      test.fails = arg;
      return;
    case 'plan':
      test.plan = arg;
      return;
    case 'rows': {
      if (arg === '') {
        test.rows = [];
        return;
      }
      const rows = parseJson(file, line, arg);
      if (!Array.isArray(rows)) throw formatError(file, line, 'rows must be a JSON array');
      test.rows = rows;
      return;
    }
    case 'count':
    case 'affected': {
      const n = Number(arg);
      if (!Number.isInteger(n) || n < 0) throw formatError(file, line, `bad ${word}: ${arg}`);
      test[word] = n;
      return;
    }
    case 'ids': {
      const generated = /^(\d+) new$/.exec(arg);
      if (generated) {
        test.ids = { generated: Number(generated[1]) };
        return;
      }
      const ids = parseJson(file, line, arg);
      if (!Array.isArray(ids)) throw formatError(file, line, 'ids must be a JSON array');
      test.ids = ids as string[];
      return;
    }
    case 'error': {
      const match = /^(ERR_[A-Z_]+)(?:\s+(.*))?$/.exec(arg);
      if (!match) throw formatError(file, line, 'expected -- error: <CODE> [message text]');
      test.error = { code: match[1] as string, text: match[2] ?? '' };
      return;
    }
    default:
      throw formatError(file, line, `unknown directive '-- ${word}'`);
  }
}

/** `expected` with every "<uuid>" replaced by the UUID at the same place in `actual`. */
function fillUuids(expected: unknown, actual: unknown): unknown {
  if (expected === ANY_UUID) {
    return typeof actual === 'string' && UUID.test(actual) ? actual : expected;
  }
  if (Array.isArray(expected)) {
    return expected.map((e, i) => fillUuids(e, Array.isArray(actual) ? actual[i] : undefined));
  }
  if (expected !== null && typeof expected === 'object') {
    const a = (actual ?? {}) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, fillUuids(v, a[k])]));
  }
  return expected;
}

/** A stable text of a JSON value with sorted keys, to sort rows for an unordered compare. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

function sortRows(rows: unknown[]): unknown[] {
  return [...rows].sort((a, b) => {
    const x = canonical(a);
    const y = canonical(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

async function runCase(db: NodeApi, t: GoldenCase): Promise<void> {
  const sql = t.sqlLines.join('\n');
  if (t.error) {
    let caught: unknown;
    try {
      await db.query(sql, t.params);
    } catch (error) {
      caught = error;
    }
    expect(caught, 'the statement should fail').toBeDefined();
    if (!isDbError(caught)) throw caught;
    expect({ code: caught.code, message: caught.message }).toEqual({
      code: t.error.code,
      message: expect.stringContaining(t.error.text),
    });
    if (caught.code === 'ERR_SQL_SYNTAX') {
      const { line, column } = (caught.details ?? {}) as { line?: unknown; column?: unknown };
      expect(Number.isInteger(line) && (line as number) >= 1, 'details.line').toBe(true);
      expect(Number.isInteger(column) && (column as number) >= 1, 'details.column').toBe(true);
      expect(caught.message.endsWith(` at ${line}:${column}`), caught.message).toBe(true);
    }
    return;
  }
  const result = await db.query(sql, t.params);
  expect(result.plan.replace(SHARD_PREFIX, '')).toBe(t.plan);
  expect(Number.isFinite(result.executionMs) && result.executionMs >= 0).toBe(true);
  if (t.rows) {
    const expected = fillUuids(t.rows, result.documents) as unknown[];
    if (t.unordered) expect(sortRows(result.documents)).toEqual(sortRows(expected));
    else expect(result.documents).toEqual(expected);
  }
  if (t.count !== undefined) expect(result.count).toBe(t.count);
  if (t.affected !== undefined) {
    expect(result.affected).toBe(t.affected);
    expect(result.count).toBe(t.affected);
    expect(result.documents).toEqual([]);
  } else if (result.affected === undefined) {
    expect(result.count).toBe(result.documents.length);
  }
  if (Array.isArray(t.ids)) {
    expect(result.ids).toEqual(t.ids);
  } else if (t.ids) {
    const ids = result.ids ?? [];
    expect(ids).toHaveLength(t.ids.generated);
    for (const id of ids) expect(id).toMatch(UUID);
    for (let i = 1; i < ids.length; i++)
      expect((ids[i - 1] as string) < (ids[i] as string)).toBe(true);
  }
}

async function runStep(db: NodeApi, step: Exclude<Step, { kind: 'case' }>): Promise<void> {
  switch (step.kind) {
    case 'setup':
      for (const { line, sql } of step.statements) {
        try {
          await db.query(sql);
        } catch (error) {
          throw new Error(`setup statement at line ${line} failed: ${(error as Error).message}`);
        }
      }
      return;
    case 'load': {
      const result = await db.bulk(step.collection, step.docs, {
        atomic: true,
        skipIndexes: step.skipIndexes,
      });
      expect(result.errors).toEqual([]);
      expect(result.ids).toHaveLength(step.docs.length);
      return;
    }
    case 'rebuild':
      await db.rebuildIndexes(step.collection);
      return;
    case 'drop':
      expect(await db.dropCollection(step.collection)).toEqual({
        dropped: step.collection.toLowerCase(),
      });
      return;
  }
}

function stepTitle(step: Step): string {
  switch (step.kind) {
    case 'setup':
      return `setup (line ${step.line})`;
    case 'load':
      return `load ${step.docs.length} documents into ${step.collection}${step.skipIndexes ? ' skipping indexes' : ''} (line ${step.line})`;
    case 'rebuild':
      return `rebuild the indexes of ${step.collection} (line ${step.line})`;
    case 'drop':
      return `drop collection ${step.collection} (line ${step.line})`;
    case 'case':
      return `${step.test.name} (line ${step.line})`;
  }
}

const files = fs
  .readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.sql'))
  .sort();

it('finds the golden files', () => {
  expect(files.length).toBeGreaterThan(0);
});

/** A router's plan is a node's behind the prefix that says where it ran. */
const SHARD_PREFIX = /^(SCATTER\(\d+\)|SINGLE_SHARD\([^)]*\)): /;

/** One implementation of the REST surface, made fresh for one file. */
interface Target {
  api: NodeApi;
  close(): Promise<void>;
}

/** Every collection name a file's steps and statements may name (extra names do no harm). */
function collectionsOf(steps: Step[]): string[] {
  const names = new Set<string>();
  const text: string[] = [];
  for (const step of steps) {
    if (step.kind === 'load' || step.kind === 'rebuild' || step.kind === 'drop') {
      names.add(step.collection.toLowerCase());
    } else if (step.kind === 'setup') {
      text.push(...step.statements.map((s) => s.sql));
    } else {
      text.push(step.test.sqlLines.join('\n'));
    }
  }
  for (const sql of text) {
    for (const m of sql.matchAll(
      /\b(?:FROM|INTO|JOIN|UPDATE|ON)\s+"?([A-Za-z_][A-Za-z0-9_.-]*)/gi,
    )) {
      names.add((m[1] as string).toLowerCase());
    }
  }
  return [...names];
}

const TARGETS: Record<string, (steps: Step[]) => Promise<Target>> = {
  embedded: async () => {
    const temp = makeTempDir('docdb-sql-');
    const db = await open(temp.dir);
    return {
      api: db,
      close: async () => {
        await db.close();
        temp.cleanup();
      },
    };
  },
  client: async () => {
    const node = await startHarness();
    const client = connect(await node.app.listen({ port: 0, host: '127.0.0.1' }));
    return {
      api: client,
      close: async () => {
        await client.close();
        await node.close();
      },
    };
  },
  router: async (steps) => {
    const shards: Harness[] = [];
    const endpoints: ClusterConfig['shards'] = [];
    for (const name of ['s1', 's2', 's3']) {
      const shard = await startHarness({ nodeName: name });
      shards.push(shard);
      endpoints.push({ name, endpoint: await shard.app.listen({ port: 0, host: '127.0.0.1' }) });
    }
    const collections = Object.fromEntries(
      collectionsOf(steps).map((name) => [name, { strategy: 'replicated' as const }]),
    );
    const router = new Router({
      version: 1,
      router: { port: 6000 },
      shards: endpoints,
      collections,
    });
    return {
      api: router,
      close: async () => {
        await router.close();
        for (const shard of shards) await shard.close();
      },
    };
  },
};

for (const file of files) {
  const steps = parseGolden(file, fs.readFileSync(path.join(GOLDEN_DIR, file), 'utf8'));

  for (const [via, make] of Object.entries(TARGETS)) {
    describe(`${file} via ${via}`, () => {
      let target: Target | undefined;
      let db: NodeApi;

      beforeAll(async () => {
        target = await make(steps);
        db = target.api;
      });

      afterAll(async () => {
        await target?.close();
      });

      for (const step of steps) {
        if (step.kind !== 'case') {
          it(stepTitle(step), () => runStep(db, step));
        } else if (step.test.fails && !process.env.GOLDEN_SHOW_BUGS) {
          // A known bug (named by `-- fails:`): vitest reports it if the case starts to pass.
          it(`${stepTitle(step)} [known bug: ${step.test.fails}]`, () => runCase(db, step.test));
        } else {
          it(stepTitle(step), () => runCase(db, step.test));
        }
      }
    });
  }
}

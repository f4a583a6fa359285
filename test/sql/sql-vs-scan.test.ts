/**
 * Proves that index use never changes a SQL answer (issue 3, DESIGN §3 "results are always
 * correct; only speed differs"): random documents from a small value domain are loaded into
 * two collections with the same `_id`s, one with indexes (single, nested, composite, unique,
 * multikey `tags[*]`, a random subset per run, built over existing data or kept up by inserts)
 * and one without. For random WHERE clauses (=, !=, <>, <, <=, >, >=, IN, NOT IN, NOT, AND, OR,
 * parentheses, IS [NOT] NULL, [NOT] LIKE / ILIKE, literals and `?` placeholders):
 *  - `SELECT * … WHERE w` gives the same documents on both collections, and the documents an
 *    independent model of DESIGN §4 (three-valued logic, typed comparisons) selects;
 *  - the indexed run's plan names an index whenever a top-level conjunct is an indexed
 *    equality, range or IN, and the other collection's plan is COLLECTION_SCAN;
 *  - with LIMIT, ORDER BY … LIMIT … OFFSET and aggregates the two collections agree too;
 *  - UPDATE and DELETE with a WHERE affect the same counts and leave the same contents;
 *  - after a skipIndexes load the stale indexes are never used, until rebuilt.
 * Bugs these properties found are kept as named regression cases at the end. Real LMDB files
 * in a temp dir.
 */

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Document, open } from '../../src/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import {
  type Op,
  type Val,
  type Where,
  docsArb,
  literal,
  render,
  scalar,
  valArb,
  whereOfDepth,
} from './generators.js';

let temp: ReturnType<typeof makeTempDir> | undefined;
let db: Database;
let runSeq = 0;

beforeAll(async () => {
  temp = makeTempDir('docdb-sql-');
  db = await open(temp.dir);
});

afterAll(async () => {
  await db?.close();
  temp?.cleanup();
});

/** Runs of the main property. Raise it to hunt: DOCDB_PROPERTY_RUNS=1000. */
const NUM_RUNS = Number(process.env.DOCDB_PROPERTY_RUNS ?? 100);

// ---- indexes -----------------------------------------------------------------------------

interface IndexSpec {
  name: string;
  paths: string[];
  unique?: boolean;
}

const INDEXES: IndexSpec[] = [
  { name: 'by_n', paths: ['n'] },
  { name: 'by_s', paths: ['s'] },
  { name: 'by_ab', paths: ['a.b'] },
  { name: 'by_tags', paths: ['tags[*]'] },
  { name: 'by_u', paths: ['u'], unique: true },
  { name: 'by_s_n', paths: ['s', 'n'] },
  { name: 'by_tags_n', paths: ['tags[*]', 'n'] },
  { name: 'by_ab_s', paths: ['a.b', 's'] },
];

const indexSubsetArb = fc.subarray(INDEXES, { minLength: 3 });

/** True when a single-path index of `indexes` can serve a predicate on `p`. */
function singleIndexCovers(indexes: IndexSpec[], p: string): boolean {
  const generic = p.replace(/\[\d+\]/g, '[*]');
  return indexes.some((i) => i.paths.length === 1 && (i.paths[0] === p || i.paths[0] === generic));
}

/** A comparison an index may serve: =, a range or IN on an indexable path. */
const indexableArb: fc.Arbitrary<Where> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('cmp' as const),
      path: fc.constantFrom('n', 's', 'a.b', 'tags[0]', 'tags[1]', 'u'),
      op: fc.constantFrom<Op>('=', '=', '=', '<', '<=', '>', '>='),
      val: valArb,
      valueFirst: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('in' as const),
      path: fc.constantFrom('n', 's', 'a.b', 'tags[0]', 'u'),
      vals: fc.array(valArb, { minLength: 1, maxLength: 4 }),
      not: fc.constant(false),
    }),
  },
);

/** Equalities on every path of a composite index, in either order. */
const compositeArb: fc.Arbitrary<Where> = fc
  .tuple(
    fc.constantFrom(['s', 'n'], ['tags[0]', 'n'], ['tags[1]', 'n'], ['a.b', 's']),
    valArb,
    valArb,
    fc.option(fc.nat(), { nil: undefined, freq: 3 }),
    fc.boolean(),
  )
  .map(([[p, q], v, w, from, swap]) => {
    // Both values from one document (most of the time), so the tuple exists.
    const vv = from === undefined ? v : { ...v, from };
    const ww = from === undefined ? w : { ...w, from };
    const left: Where = { k: 'cmp', path: p as string, op: '=', val: vv, valueFirst: false };
    const right: Where = { k: 'cmp', path: q as string, op: '=', val: ww, valueFirst: false };
    return swap ? { k: 'and', left: right, right: left } : { k: 'and', left, right };
  });

const anyWhereArb: fc.Arbitrary<Where> = fc.oneof(
  { weight: 4, arbitrary: whereOfDepth(2) },
  { weight: 2, arbitrary: indexableArb },
  { weight: 1, arbitrary: compositeArb },
  {
    weight: 3,
    arbitrary: fc.record({
      k: fc.constant('and' as const),
      left: fc.oneof(indexableArb, compositeArb),
      right: whereOfDepth(1),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('or' as const),
      left: indexableArb,
      right: indexableArb,
    }),
  },
);

function isScalar(v: unknown): boolean {
  return v === null || ['boolean', 'number', 'string'].includes(typeof v);
}

/** Resolves every `from` of a WHERE against the documents (see Val). */
function bind(w: Where, docs: Document[]): Where {
  const val = (v: Val, p: string): Val => {
    if (v.from === undefined || docs.length === 0) return v;
    const found = valueAt(docs[v.from % docs.length], p);
    return found !== undefined && isScalar(found) ? { ...v, value: found } : v;
  };
  switch (w.k) {
    case 'cmp':
      return { ...w, val: val(w.val, w.path) };
    case 'in':
      return { ...w, vals: w.vals.map((v) => val(v, w.path)) };
    case 'and':
    case 'or':
      return { ...w, left: bind(w.left, docs), right: bind(w.right, docs) };
    case 'not':
    case 'paren':
      return { ...w, inner: bind(w.inner, docs) };
    default:
      return w;
  }
}

/**
 * The WHERE clauses of the main property, including range bounds on two different positions
 * of a multikey path (once a bug: see `regressions` below).
 */
const whereArb: fc.Arbitrary<Where> = anyWhereArb;

// ---- an independent model of DESIGN §4 -------------------------------------------------

type Truth = boolean | null;

function valueAt(doc: unknown, p: string): unknown {
  let current = doc;
  for (const step of p.split('.').flatMap((s) => s.split(/(?=\[)/))) {
    if (step.startsWith('[')) {
      if (!Array.isArray(current)) return undefined;
      current = current[Number(step.slice(1, -1))];
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current))
        return undefined;
      if (!Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}

function typeOf(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

function codePointCompare(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (typeOf(a) !== typeOf(b)) return false;
  if (a === null || typeof a !== 'object') return a === b;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b as object).sort();
  return (
    ka.length === kb.length &&
    ka.every(
      (k, i) =>
        k === kb[i] &&
        deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

function modelCompare(op: Op, a: unknown, b: unknown): Truth {
  if (a === undefined || a === null || b === undefined || b === null) return null;
  const same = typeOf(a) === typeOf(b);
  if (op === '=') return same && deepEqual(a, b);
  if (op === '!=' || op === '<>') return !same || !deepEqual(a, b);
  if (!same || typeof a === 'object') return false;
  const c =
    typeof a === 'string'
      ? codePointCompare(a, b as string)
      : Number(a) - Number(b as number | boolean);
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

function likeMatches(value: string, pattern: string, ci: boolean): boolean {
  let source = '';
  for (const ch of pattern) {
    if (ch === '%') source += '.*';
    else if (ch === '_') source += '.';
    else source += ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, ci ? 'isu' : 'su').test(value);
}

function not(t: Truth): Truth {
  return t === null ? null : !t;
}

function and(a: Truth, b: Truth): Truth {
  if (a === false || b === false) return false;
  return a === null || b === null ? null : true;
}

function or(a: Truth, b: Truth): Truth {
  if (a === true || b === true) return true;
  return a === null || b === null ? null : false;
}

function model(w: Where, doc: Document): Truth {
  switch (w.k) {
    case 'cmp': {
      const v = valueAt(doc, w.path);
      return w.valueFirst ? modelCompare(w.op, w.val.value, v) : modelCompare(w.op, v, w.val.value);
    }
    case 'paths':
      return modelCompare(w.op, valueAt(doc, w.left), valueAt(doc, w.right));
    case 'in': {
      const v = valueAt(doc, w.path);
      const any = w.vals.map((x) => modelCompare('=', v, x.value)).reduce(or, false);
      return w.not ? not(any) : any;
    }
    case 'null': {
      const v = valueAt(doc, w.path);
      const isNull = v === undefined || v === null;
      return w.not ? !isNull : isNull;
    }
    case 'like': {
      const v = valueAt(doc, w.path);
      const p = w.pattern.value;
      if (v === undefined || v === null || p === null) return null;
      const match = typeof v === 'string' && likeMatches(v, p as string, w.ci);
      return w.not ? !match : match;
    }
    case 'and':
      return and(model(w.left, doc), model(w.right, doc));
    case 'or':
      return or(model(w.left, doc), model(w.right, doc));
    case 'not':
      return not(model(w.inner, doc));
    case 'paren':
      return model(w.inner, doc);
  }
}

/** True when a top-level conjunct is an equality, range or IN a single-path index serves. */
function hasIndexedConjunct(w: Where, indexes: IndexSpec[]): boolean {
  switch (w.k) {
    case 'and':
      return hasIndexedConjunct(w.left, indexes) || hasIndexedConjunct(w.right, indexes);
    case 'paren':
      return hasIndexedConjunct(w.inner, indexes);
    case 'cmp':
      return (
        w.op !== '!=' &&
        w.op !== '<>' &&
        (w.val.param || w.val.value !== null) &&
        singleIndexCovers(indexes, w.path)
      );
    case 'in':
      return (
        !w.not &&
        w.vals.every((v) => v.param || v.value !== null) &&
        singleIndexCovers(indexes, w.path)
      );
    default:
      return false;
  }
}

// ---- running and checking ----------------------------------------------------------------

function byId(documents: Document[]): Document[] {
  return [...documents].sort((a, b) => ((a._id as string) < (b._id as string) ? -1 : 1));
}

interface Pair {
  indexed: string;
  plain: string;
  indexes: IndexSpec[];
  /** The documents both collections hold, by `_id`, kept in step with every write. */
  docs: Map<string, Document>;
  stale: boolean;
}

async function checkSelect(pair: Pair, w: Where): Promise<void> {
  const params: unknown[] = [];
  const where = render(w, params, { notLike: true });
  const label = `WHERE ${where}  params ${JSON.stringify(params)}`;
  const viaIndex = await db.query(`SELECT * FROM ${pair.indexed} WHERE ${where}`, params);
  const viaScan = await db.query(`SELECT * FROM ${pair.plain} WHERE ${where}`, params);
  expect(viaScan.plan, label).toBe('COLLECTION_SCAN');
  expect(byId(viaIndex.documents), label).toEqual(byId(viaScan.documents));
  expect(new Set(viaIndex.documents.map((d) => d._id)).size, `${label}: duplicates`).toBe(
    viaIndex.count,
  );
  if (pair.stale) {
    expect(viaIndex.plan, `${label}: stale indexes are never used`).toBe('COLLECTION_SCAN');
  } else if (hasIndexedConjunct(w, pair.indexes)) {
    expect(viaIndex.plan, `${label}: an indexed conjunct`).toMatch(/^INDEX_/);
  }
  // LIMIT (pushed into the scan) gives a subset of the full answer, of the right size; with
  // ORDER BY (ties broken by _id) both collections give the very same rows in the same order;
  // aggregates agree.
  const full = new Set(viaScan.documents.map((d) => d._id));
  for (const c of [pair.indexed, pair.plain]) {
    const limited = await db.query(`SELECT * FROM ${c} WHERE ${where} LIMIT 2`, params);
    expect(limited.count, `${label}: LIMIT 2`).toBe(Math.min(2, full.size));
    for (const d of limited.documents) expect(full.has(d._id), `${label}: LIMIT 2`).toBe(true);
  }
  const ordered = `WHERE ${where} ORDER BY s DESC, n, a.b LIMIT 5 OFFSET 1`;
  const orderedA = await db.query(`SELECT _id, s, n FROM ${pair.indexed} ${ordered}`, params);
  const orderedB = await db.query(`SELECT _id, s, n FROM ${pair.plain} ${ordered}`, params);
  expect(orderedA.documents, `${label}: ORDER BY`).toEqual(orderedB.documents);
  const aggregate = `SELECT COUNT(*), COUNT(n), SUM(n), MIN(s), MAX(n) FROM`;
  const aggA = await db.query(`${aggregate} ${pair.indexed} WHERE ${where}`, params);
  const aggB = await db.query(`${aggregate} ${pair.plain} WHERE ${where}`, params);
  expect(aggA.documents, `${label}: aggregates`).toEqual(aggB.documents);
  // The model is compared on the `NOT (x LIKE p)` form; the NOT LIKE form is checked against
  // it in `regressions`.
  const modelParams: unknown[] = [];
  const modelWhere = render(w, modelParams, { notLike: false });
  const viaModelForm = await db.query(
    `SELECT * FROM ${pair.plain} WHERE ${modelWhere}`,
    modelParams,
  );
  const expected = [...pair.docs.values()].filter((d) => model(w, d) === true);
  expect(byId(viaModelForm.documents), `model: WHERE ${modelWhere}`).toEqual(byId(expected));
}

async function contentsAgree(pair: Pair): Promise<void> {
  const a = await db.query(`SELECT * FROM ${pair.indexed}`);
  const b = await db.query(`SELECT * FROM ${pair.plain}`);
  expect(byId(a.documents)).toEqual(byId(b.documents));
  expect(byId(b.documents)).toEqual(byId([...pair.docs.values()]));
}

/** A SET clause: a path and a literal (JSON arrays for `tags`). */
const setArb = fc.oneof(
  fc.record({ path: fc.constantFrom('m', 'n', 's', 'a.b', 'a.c', 'x.y'), value: scalar }),
  fc.record({
    path: fc.constant('tags'),
    value: fc.array(fc.oneof(scalar, fc.constant([1])), { maxLength: 3 }),
  }),
);

function sqlValue(value: unknown): string {
  return Array.isArray(value) ? JSON.stringify(value) : literal(value);
}

/**
 * The model of SET: missing objects are created on the way; a step holding null, a scalar or
 * an array is an error (null is a value, as MongoDB's `$set` treats it: docs/sql.md, write.ts).
 */
function applySet(doc: Document, p: string, value: unknown): Document | 'error' {
  const copy = structuredClone(doc);
  const steps = p.split('.');
  let current: Record<string, unknown> = copy;
  for (const step of steps.slice(0, -1)) {
    const next = current[step];
    if (next === undefined) current[step] = {};
    else if (next === null || typeof next !== 'object' || Array.isArray(next)) return 'error';
    current = current[step] as Record<string, unknown>;
  }
  // Through JSON, as a stored document is JSON (-0 reads back as 0).
  current[steps[steps.length - 1] as string] = JSON.parse(JSON.stringify(value));
  return copy;
}

async function checkUpdate(
  pair: Pair,
  w: Where,
  set: { path: string; value: unknown },
): Promise<void> {
  // Writes use the `NOT (x LIKE p)` form, so the model holds for them too; both collections
  // get the same text, so index and scan are still compared.
  const params: unknown[] = [];
  const where = render(w, params, { notLike: false });
  const sql = (c: string) => `UPDATE ${c} SET ${set.path} = ${sqlValue(set.value)} WHERE ${where}`;
  const label = `${sql('…')}  params ${JSON.stringify(params)}`;
  const matching = [...pair.docs.values()].filter((d) => model(w, d) === true);
  const updated = matching.map((d) => applySet(d, set.path, set.value));
  const [a, b] = await Promise.allSettled([
    db.query(sql(pair.indexed), params),
    db.query(sql(pair.plain), params),
  ]);
  if (updated.includes('error')) {
    // SET a.b where a holds null, a scalar or an array is an error: the whole statement fails on
    // both collections and changes nothing.
    expect(a?.status, label).toBe('rejected');
    expect(b?.status, label).toBe('rejected');
    await contentsAgree(pair);
    return;
  }
  if (a?.status !== 'fulfilled' || b?.status !== 'fulfilled') {
    throw new Error(`${label} failed`, {
      cause: a?.status === 'rejected' ? a.reason : b?.status === 'rejected' ? b.reason : undefined,
    });
  }
  expect(a.value.affected, label).toBe(b.value.affected);
  expect(b.value.affected, `${label}: model`).toBe(matching.length);
  expect(b.value.plan, label).toBe('COLLECTION_SCAN');
  if (!pair.stale && hasIndexedConjunct(w, pair.indexes)) {
    expect(a.value.plan, `${label}: an indexed conjunct`).toMatch(/^INDEX_/);
  }
  matching.forEach((d, i) => {
    pair.docs.set(d._id as string, updated[i] as Document);
  });
  await contentsAgree(pair);
}

async function checkDelete(pair: Pair, w: Where): Promise<void> {
  const params: unknown[] = [];
  const where = render(w, params, { notLike: false });
  const label = `DELETE … WHERE ${where}  params ${JSON.stringify(params)}`;
  const a = await db.query(`DELETE FROM ${pair.indexed} WHERE ${where}`, params);
  const b = await db.query(`DELETE FROM ${pair.plain} WHERE ${where}`, params);
  expect(a.affected, label).toBe(b.affected);
  expect(b.plan, label).toBe('COLLECTION_SCAN');
  if (!pair.stale && hasIndexedConjunct(w, pair.indexes)) {
    expect(a.plan, `${label}: an indexed conjunct`).toMatch(/^INDEX_/);
  }
  const removed = [...pair.docs.values()].filter((d) => model(w, d) === true);
  expect(b.affected, `${label}: model`).toBe(removed.length);
  for (const d of removed) pair.docs.delete(d._id as string);
  await contentsAgree(pair);
}

async function withPair(body: (names: { indexed: string; plain: string }) => Promise<void>) {
  const n = ++runSeq;
  const names = { indexed: `run${n}-indexed`, plain: `run${n}-plain` };
  try {
    await body(names);
  } finally {
    await db.collection(names.indexed).drop();
    await db.collection(names.plain).drop();
  }
}

// ---- the properties --------------------------------------------------------------------

describe('SQL through indexes answers what a collection scan answers', () => {
  it('SELECT, UPDATE and DELETE with random WHERE clauses on random documents', async () => {
    await fc.assert(
      fc.asyncProperty(
        docsArb,
        indexSubsetArb,
        fc.nat(25),
        fc.constantFrom('none', 'none', 'stale'),
        fc.array(whereArb, { minLength: 6, maxLength: 12 }),
        fc.array(fc.tuple(whereArb, setArb), { maxLength: 2 }),
        fc.option(whereArb, { nil: undefined }),
        async (docs, indexes, split, mode, wheres, updates, deleteWhere) => {
          await withPair(async ({ indexed, plain }) => {
            const at = Math.min(split, docs.length);
            // Documents before the indexes exist are indexed by the build, the rest by upkeep
            // (or, in 'stale' mode, not at all until the rebuild).
            if (at > 0) await db.collection(indexed).insertMany(docs.slice(0, at));
            for (const spec of indexes) await db.collection(indexed).createIndex(spec);
            const rest = docs.slice(at);
            const stale = mode === 'stale' && rest.length > 0;
            if (rest.length > 0) {
              const loaded = await db.collection(indexed).insertMany(rest, { skipIndexes: stale });
              expect(loaded.errors).toEqual([]);
            }
            if (docs.length > 0) await db.collection(plain).insertMany(docs);
            else await db.query(`INSERT INTO ${plain} VALUES []`);
            // The model starts from what was stored (storage may normalise values, e.g. -0).
            const stored = await db.query(`SELECT * FROM ${plain}`);
            expect(stored.count).toBe(docs.length);
            const pair: Pair = {
              indexed,
              plain,
              indexes,
              docs: new Map(stored.documents.map((d) => [d._id as string, d])),
              stale,
            };
            const bound = wheres.map((w) => bind(w, docs));
            for (const [i, w] of bound.entries()) {
              if (pair.stale && i === 2) {
                await db.collection(indexed).rebuildIndexes();
                pair.stale = false;
              }
              await checkSelect(pair, w);
            }
            for (const [w, set] of updates) await checkUpdate(pair, bind(w, docs), set);
            if (deleteWhere) await checkDelete(pair, bind(deleteWhere, docs));
            // The indexes after the writes still answer like the scan.
            for (const w of bound.slice(0, 4)) await checkSelect(pair, w);
          });
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('regressions', () => {
  // evaluate.ts returns false for LIKE on a non-string value *before* applying `negated`, so
  // `x NOT LIKE p` is false where `NOT (x LIKE p)` is true (x a number, boolean, array or
  // object). The golden case like.sql "x NOT LIKE p is the same as NOT (x LIKE p)" shows it.
  it('x NOT LIKE p selects what NOT (x LIKE p) selects', async () => {
    await withPair(async ({ plain }) => {
      await db.query(
        `INSERT INTO ${plain} VALUES [{"v":"a"},{"v":1},{"v":true},{"v":[1]},{"v":null},{}]`,
      );
      for (const pattern of ["'%'", "'a%'", "'b'"]) {
        const form1 = await db.query(`SELECT * FROM ${plain} WHERE v NOT LIKE ${pattern}`);
        const form2 = await db.query(`SELECT * FROM ${plain} WHERE NOT (v LIKE ${pattern})`);
        expect(byId(form1.documents)).toEqual(byId(form2.documents));
      }
    });
  });

  // The planner uses an index for `path = ?` whatever the parameter holds, but an index never
  // lists arrays or objects (idsForKeys skips such keys), so a placeholder holding an array or
  // object finds nothing through the index while a scan finds the equal document.
  it('an array or object placeholder finds the same documents with and without an index', async () => {
    await withPair(async ({ indexed, plain }) => {
      const docs = '[{"v":[1,2]},{"v":{"x":1}},{"v":1}]';
      await db.query(`INSERT INTO ${indexed} VALUES ${docs}`);
      await db.query(`INSERT INTO ${plain} VALUES ${docs}`);
      await db.query(`CREATE INDEX by_v ON ${indexed} (v)`);
      for (const param of [[1, 2], { x: 1 }]) {
        const a = await db.query(`SELECT v FROM ${indexed} WHERE v = ?`, [param]);
        const b = await db.query(`SELECT v FROM ${plain} WHERE v = ?`, [param]);
        expect(b.count).toBe(1);
        expect(a.documents.map((d) => d.v)).toEqual(b.documents.map((d) => d.v));
      }
    });
  });

  // chooseAccess (planner.ts) gathers the range conjuncts of every query path that a
  // multikey index covers and takes the lower bound of one and the upper bound of another:
  // `tags[0] < 'b' AND tags[1] > 'b'` becomes one index range ('b', 'b') over all elements,
  // which is empty, so a document with tags ["a", "c"] is missed (a scan finds it). Found by
  // the property above (seed 521162024), which now leaves such clauses out.
  it('ranges on two positions of a multikey path find what a scan finds', async () => {
    await withPair(async ({ indexed, plain }) => {
      const docs = '[{"tags":["a","c"]},{"tags":["","a_b"]},{"tags":["c","a"]}]';
      await db.query(`INSERT INTO ${indexed} VALUES ${docs}`);
      await db.query(`INSERT INTO ${plain} VALUES ${docs}`);
      await db.query(`CREATE INDEX by_tags ON ${indexed} (tags[*])`);
      for (const where of ["tags[0] < 'b' AND tags[1] > 'b'", "tags[1] > '5' AND tags[0] < '5'"]) {
        const a = await db.query(`SELECT tags FROM ${indexed} WHERE ${where}`);
        const b = await db.query(`SELECT tags FROM ${plain} WHERE ${where}`);
        expect(a.plan).toBe('INDEX_RANGE_SCAN(by_tags)');
        expect(b.count).toBe(1);
        expect(a.documents.map((d) => d.tags)).toEqual(b.documents.map((d) => d.tags));
      }
    });
  });

  // Parameters are not checked to be JSON values. A scan compares NaN as equal to every
  // number (compareValues answers 0 when neither < nor > holds) and orders ±Infinity like
  // numbers, while an index lookup or range never finds them (encodeTuple and rangeKeys take
  // finite numbers only): `x = ?` with NaN gives [1, 2] by scan and [] through an index.
  // Either answer would do if both access paths gave it, or the parameter were rejected
  // (ERR_SQL_PARAM) as UPDATE … SET already rejects NaN (ERR_DOCUMENT_INVALID).
  it('NaN and ±Infinity parameters give one answer with and without an index', async () => {
    await withPair(async ({ indexed, plain }) => {
      const docs = '[{"x":1},{"x":2},{"x":"a"}]';
      await db.query(`INSERT INTO ${indexed} VALUES ${docs}`);
      await db.query(`INSERT INTO ${plain} VALUES ${docs}`);
      await db.query(`CREATE INDEX by_x ON ${indexed} (x)`);
      const outcome = async (sql: string, params: unknown[]) => {
        try {
          return (await db.query(sql, params)).documents.map((d) => d.x);
        } catch (error) {
          return (error as { code?: string }).code ?? String(error);
        }
      };
      for (const [where, value] of [
        ['x = ?', Number.NaN],
        ['x >= ?', Number.NaN],
        ['x > ?', Number.NEGATIVE_INFINITY],
        ['x < ?', Number.POSITIVE_INFINITY],
      ] as const) {
        const a = await outcome(`SELECT x FROM ${indexed} WHERE ${where}`, [value]);
        const b = await outcome(`SELECT x FROM ${plain} WHERE ${where}`, [value]);
        expect(a, `${where} with ${value}`).toEqual(b);
      }
    });
  });

  // The planner (equalityUnion) and the evaluator (evaluate) recurse once per OR/AND node,
  // and IN lowers to a left-deep OR chain, so an IN list of a few thousand values (about
  // 25 KB of SQL, far inside the 1 MiB limit) overflows the stack: db.query rejects with a
  // RangeError instead of answering (or a typed error).
  it('an IN list of 10,000 values is answered', async () => {
    await withPair(async ({ indexed }) => {
      await db.query(`INSERT INTO ${indexed} VALUES [{"v":1},{"v":9999}]`);
      const list = Array.from({ length: 10_000 }, (_, i) => i).join(', ');
      const result = await db.query(`SELECT v FROM ${indexed} WHERE v IN (${list})`);
      expect(result.count).toBe(2);
    });
  });

  it('an AND of 10,000 comparisons is answered', async () => {
    await withPair(async ({ indexed }) => {
      await db.query(`INSERT INTO ${indexed} VALUES [{"v":1}]`);
      const chain = Array.from({ length: 10_000 }, (_, i) => `v != ${i + 2}`).join(' AND ');
      const result = await db.query(`SELECT v FROM ${indexed} WHERE ${chain}`);
      expect(result.count).toBe(1);
    });
  });
});
